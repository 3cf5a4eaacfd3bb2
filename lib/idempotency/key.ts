import { PAYMENT_ID_MAX_LENGTH, PAYMENT_ID_MIN_LENGTH, PAYMENT_ID_PATTERN } from "@x402/extensions/payment-identifier";
import { z } from "zod";
import { ApiError } from "@/lib/ground/errors";

/**
 * The syntax of an idempotency key, whichever way it comes: the `Idempotency-Key` header, the MCP tool's
 * `idempotency_key` argument, or x402 v2's `payment-identifier`. One rule for all three, x402's (16 to 128
 * characters of A-Z, a-z, 0-9, `-`, `_`): a key that can arrive as a payment identifier must pass as one, the
 * bound keeps each stored record small, and 16 characters is enough randomness that two clients behind one
 * address do not pick the same key by chance (a UUID fits).
 */
const IdempotencyKeySchema = z
  .string()
  .min(PAYMENT_ID_MIN_LENGTH, { error: `at least ${PAYMENT_ID_MIN_LENGTH} characters` })
  .max(PAYMENT_ID_MAX_LENGTH, { error: `at most ${PAYMENT_ID_MAX_LENGTH} characters` })
  .regex(PAYMENT_ID_PATTERN, { error: "only letters, digits, '-' and '_'" });

const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

/** A key checked against the one rule; 400 `invalid_idempotency_key` naming where it came from. */
export function checkedKey(value: string, source: string): string {
  const parsed = IdempotencyKeySchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ApiError(
    "invalid_idempotency_key",
    `${source} must be ${PAYMENT_ID_MIN_LENGTH} to ${PAYMENT_ID_MAX_LENGTH} characters of letters, digits, '-' and '_' (a UUID fits): ${parsed.error.issues.map((issue) => issue.message).join("; ")}.`,
  );
}

/**
 * The `Idempotency-Key` header's key, or undefined without one. The IETF draft makes it a Structured Field
 * string (`"..."`); most clients send it bare, so both are read.
 */
export function idempotencyKeyHeader(headers: Headers): string | undefined {
  const raw = headers.get(IDEMPOTENCY_KEY_HEADER);
  if (raw === null) return undefined;
  const trimmed = raw.trim();
  const unquoted = /^"[^"]*"$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
  return checkedKey(unquoted, `The ${IDEMPOTENCY_KEY_HEADER} header`);
}

/**
 * The request's one key from its two possible sources (the header or argument, and the payment's identifier):
 * either alone, or both when they agree. Two different keys on one request are refused rather than one picked.
 */
export function oneKey(given: string | undefined, paymentIdentifier: string | undefined): string | undefined {
  if (given !== undefined && paymentIdentifier !== undefined && given !== paymentIdentifier)
    throw new ApiError(
      "invalid_idempotency_key",
      `The request carries two different idempotency keys: ${IDEMPOTENCY_KEY_HEADER} (or idempotency_key) and the payment's payment-identifier. Send one, or the same in both.`,
    );
  return given ?? paymentIdentifier;
}
