import type { Store } from "@/lib/store/types";

/**
 * A token bucket per key (GCRA: one key holding the time the bucket is
 * next full), over the Store's compare-and-set so it holds on the memory
 * store, redis and Upstash alike; rate-limiter-flexible and
 * @upstash/ratelimit each bind to one backend's client. A key lives only
 * while its bucket is not full, so idle clients cost nothing.
 */

export interface BucketSize {
  /** Tokens a full bucket holds: what a client may take at once. */
  burst: number;
  /** Tokens added per minute, up to `burst`. */
  perMinute: number;
}

type Taken = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * Compare-and-set rounds before a contended take gives up (refused for one interval). Each round has one winner,
 * so N requests of one client at once need up to N rounds: 8 refused a client's 20 parallel quotes with a full
 * bucket's 429 (tests/jobs-instances.test.ts). Losers wait a few random milliseconds, so they do not collide again.
 */
const MAX_ROUNDS = 64;

const jitter = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 4));

export class TokenBucket {
  readonly #intervalMs: number;
  readonly #capacityMs: number;

  constructor(
    private readonly store: Store,
    private readonly prefix: string,
    size: BucketSize,
    private readonly now: () => number = Date.now,
  ) {
    this.#intervalMs = 60_000 / size.perMinute;
    this.#capacityMs = size.burst * this.#intervalMs;
  }

  /** Takes a token, or says how long until one is there. */
  async take(key: string): Promise<Taken> {
    const stored = this.prefix + key;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const value = await this.store.get(stored);
      const now = this.now();
      // The time at which the bucket is full again; each token taken pushes it one interval on.
      const next = Math.max(value === null ? now : Number(value), now) + this.#intervalMs;
      if (next - now > this.#capacityMs) return { ok: false, retryAfterMs: next - now - this.#capacityMs };
      const ttlMs = Math.ceil(next - now);
      const written =
        value === null
          ? await this.store.setIfAbsent(stored, String(next), { ttlMs })
          : await this.store.setIfEquals(stored, value, String(next), { ttlMs });
      if (written) return { ok: true };
      await jitter();
    }
    return { ok: false, retryAfterMs: this.#intervalMs };
  }

  /** Puts a token back (what it paid for was not free after all); a full bucket stays full. */
  async giveBack(key: string): Promise<void> {
    const stored = this.prefix + key;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const value = await this.store.get(stored);
      if (value === null) return;
      const now = this.now();
      const next = Number(value) - this.#intervalMs;
      const written =
        next <= now
          ? await this.store.delIfEquals(stored, value)
          : await this.store.setIfEquals(stored, value, String(next), { ttlMs: Math.ceil(next - now) });
      if (written) return;
      await jitter();
    }
  }
}
