import { type CodeOf, ERROR_CODES, type ErrorCode } from "@/lib/ground/error-codes";
import { ApiError } from "@/lib/ground/errors";

/**
 * Why a payment is refused: an expected outcome with a reason code (as
 * x402's own verify answers `invalidReason`), not a fault. Checks return
 * verdicts; the gate answers a refusal as a value, and the caller builds the
 * one 402 from it (lib/payments/payment-required.ts).
 */
export interface Refusal {
  code: CodeOf<402>;
  message: string;
}

export type Verdict<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

export const accept = <T>(value: T): Verdict<T> => ({ ok: true, value });
export const refuse = (code: Refusal["code"], message: string): { ok: false; refusal: Refusal } => ({
  ok: false,
  refusal: { code, message },
});

const isRefusalCode = (code: ErrorCode): code is CodeOf<402> => ERROR_CODES[code].status === 402;

/**
 * A verdict on work whose refusals arrive thrown: settling (lib/payments/x402/v1/settle.ts) and the facilitator
 * client, whose other callers read a 402 ApiError. Their 402s become refusals here; anything else is a fault and
 * stays thrown.
 */
export async function verdictOf<T>(work: () => Promise<T>): Promise<Verdict<T>> {
  try {
    return accept(await work());
  } catch (error) {
    if (error instanceof ApiError && isRefusalCode(error.code)) return refuse(error.code, error.message);
    throw error;
  }
}
