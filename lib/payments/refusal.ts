import type { CodeOf } from "@/lib/error-codes";
import { ApiError } from "@/lib/errors";

/**
 * Why a payment is refused: an expected outcome with a reason code (as
 * x402's own verify answers `invalidReason`), not a fault. Verification
 * returns verdicts; the gate turns a refusal into the one 402 answer (the
 * body with fresh requirements and the v2 header) in one place.
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

/** A refusal on its way to the gate, which gives it the full 402 body. */
export const refusalError = ({ code, message }: Refusal) => new ApiError(code, message);

/** The value of a verdict, or its refusal raised as the 402 the gate completes. */
export function orRefuse<T>(verdict: Verdict<T>): T {
  if (!verdict.ok) throw refusalError(verdict.refusal);
  return verdict.value;
}
