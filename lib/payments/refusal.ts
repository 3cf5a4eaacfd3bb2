import type { CodeOf } from "@/lib/ground/error-codes";

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
