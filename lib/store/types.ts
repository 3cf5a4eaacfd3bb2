/**
 * The one key-value interface every piece of state goes through (results,
 * quota counters, the payment ledger, jobs). Values are strings;
 * callers serialise. Every write carries a TTL so nothing lives forever.
 */
export interface Store {
  readonly kind: "memory" | "redis" | "upstash";
  get: (key: string) => Promise<string | null>;
  set: (key: string, value: string, options: { ttlMs: number }) => Promise<void>;
  /** Atomic: writes only when the key is absent; true when this call wrote it. */
  setIfAbsent: (key: string, value: string, options: { ttlMs: number }) => Promise<boolean>;
  /** Atomic increment (negative `by` decrements). The TTL is set when the key is created and kept afterwards. */
  incrBy: (key: string, by: number, options: { ttlMs: number }) => Promise<number>;
  /** Remaining lifetime in milliseconds, or null when the key is absent. */
  ttlMs: (key: string) => Promise<number | null>;
  del: (key: string) => Promise<void>;
  /** Atomic compare-and-set: writes `value` (with a fresh TTL) only while the key still holds `expected`; true when this call wrote it. */
  setIfEquals: (key: string, expected: string, value: string, options: { ttlMs: number }) => Promise<boolean>;
  /** Atomic compare-and-delete: removes the key only while it still holds `value`; true when this call removed it. */
  delIfEquals: (key: string, value: string) => Promise<boolean>;
  /** Throws when the backing service cannot be reached. */
  ping: () => Promise<void>;
  close: () => Promise<void>;
}
