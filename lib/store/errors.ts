import { ApiError } from "@/lib/ground/errors";

/**
 * The backing service could not be reached or did not answer in time. An
 * ApiError so the one error path answers 503 (DESIGN.md section 3) without
 * knowing about stores; a command the server refused is not this, it is a bug.
 */
export const storeUnavailable = (kind: string, cause: unknown) =>
  new ApiError("store_unavailable", `The ${kind} store is unavailable; try again shortly.`, { cause });

/** Using a store after close() is a lifecycle bug, never an outage, so it is not a 503. */
export class StoreClosedError extends Error {
  constructor(kind: string) {
    super(`The ${kind} store has been closed.`);
    this.name = "StoreClosedError";
  }
}

/** Redis' PX and INCRBY take integers only; checking here keeps all stores failing alike. */
export function assertTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}.`);
}

export function assertIncrement(by: number): void {
  if (!Number.isSafeInteger(by)) throw new RangeError(`incrBy needs a safe integer, got ${by}.`);
}
