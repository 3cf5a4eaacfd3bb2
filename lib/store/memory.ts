import { assertIncrement, assertTtl, StoreClosedError } from "@/lib/store/errors";
import type { Store } from "@/lib/store/types";

interface Clock {
  now: () => number;
}

interface Entry {
  value: string;
  expiresAt: number;
}

const systemClock: Clock = { now: () => Date.now() };

/**
 * The embedded default: one process, no persistence. Expiry is checked on
 * every read; a sweep driven by writes (no timer, so nothing keeps the process
 * alive) drops keys that expired and were never read again.
 */
export class MemoryStore implements Store {
  readonly kind = "memory" as const;
  readonly #entries = new Map<string, Entry>();
  readonly #clock: Clock;
  readonly #sweepIntervalMs: number;
  #nextSweepAt: number;
  #closed = false;

  constructor(options: { clock?: Clock; sweepIntervalMs?: number } = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    this.#nextSweepAt = this.#clock.now() + this.#sweepIntervalMs;
  }

  /** Entries held, including expired ones not yet swept; lets tests see the sweep work. */
  get size(): number {
    return this.#entries.size;
  }

  async get(key: string): Promise<string | null> {
    return this.#live(key)?.value ?? null;
  }

  async set(key: string, value: string, options: { ttlMs: number }): Promise<void> {
    assertTtl(options.ttlMs);
    this.#write(key, value, options.ttlMs);
  }

  async setIfAbsent(key: string, value: string, options: { ttlMs: number }): Promise<boolean> {
    assertTtl(options.ttlMs);
    if (this.#live(key)) return false;
    this.#write(key, value, options.ttlMs);
    return true;
  }

  async incrBy(key: string, by: number, options: { ttlMs: number }): Promise<number> {
    assertIncrement(by);
    assertTtl(options.ttlMs);
    const entry = this.#live(key);
    if (!entry) {
      this.#write(key, String(by), options.ttlMs);
      return by;
    }
    // Same refusals as Redis' INCRBY, so code tested on memory behaves the same in production.
    if (!/^-?\d+$/.test(entry.value)) throw new Error(`Value at "${key}" is not an integer.`);
    const next = Number(entry.value) + by;
    if (!Number.isSafeInteger(next)) throw new RangeError(`Increment at "${key}" would overflow.`);
    entry.value = String(next);
    return next;
  }

  async ttlMs(key: string): Promise<number | null> {
    const entry = this.#live(key);
    return entry ? entry.expiresAt - this.#clock.now() : null;
  }

  async del(key: string): Promise<void> {
    this.#open();
    this.#entries.delete(key);
  }

  async setIfEquals(key: string, expected: string, value: string, options: { ttlMs: number }): Promise<boolean> {
    assertTtl(options.ttlMs);
    if (this.#live(key)?.value !== expected) return false;
    this.#write(key, value, options.ttlMs);
    return true;
  }

  async delIfEquals(key: string, value: string): Promise<boolean> {
    if (this.#live(key)?.value !== value) return false;
    this.#entries.delete(key);
    return true;
  }

  async ping(): Promise<void> {
    this.#open();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#entries.clear();
  }

  #open(): void {
    if (this.#closed) throw new StoreClosedError(this.kind);
  }

  #live(key: string): Entry | undefined {
    this.#open();
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt <= this.#clock.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #write(key: string, value: string, ttlMs: number): void {
    this.#open();
    const now = this.#clock.now();
    if (now >= this.#nextSweepAt) this.#sweep(now);
    this.#entries.set(key, { value, expiresAt: now + ttlMs });
  }

  #sweep(now: number): void {
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
    this.#nextSweepAt = now + this.#sweepIntervalMs;
  }
}
