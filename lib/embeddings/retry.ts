/**
 * When to try a failed call to an HTTP provider again: exponential backoff
 * with full jitter (AWS Architecture Blog, "Exponential Backoff and Jitter"),
 * unless the provider said when in `Retry-After`.
 */

export interface RetryPolicy {
  /** Tries in all, the first included. */
  maxAttempts: number;
  /** Upper bound of the first wait; doubles with each retry. */
  baseDelayMs: number;
  /** No single wait is longer; a `Retry-After` asking for more ends the retries. */
  maxDelayMs: number;
}

/** Statuses worth another try: rate limited, or the provider failing (not our request being wrong). */
export const isRetryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

/** `Retry-After` in milliseconds from now (seconds or an HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * How long to wait before try number `attempt + 1` (attempt counts from 1),
 * or undefined when no retry should be made: attempts used up, or the
 * provider asking for a longer wait than the policy allows.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number | undefined {
  if (attempt >= policy.maxAttempts) return undefined;
  if (retryAfterMs !== undefined) return retryAfterMs <= policy.maxDelayMs ? retryAfterMs : undefined;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}
