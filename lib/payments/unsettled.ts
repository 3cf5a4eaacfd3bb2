import { createHash, randomUUID } from "node:crypto";
import type { Store } from "@/lib/store/types";

/**
 * x402 payments are checked by simulation, the work is done, and only then
 * is the money moved. Between the two, the payer's balance is promised to
 * this service but still the payer's: three payloads funded by one price
 * would all simulate well, and all but one would fail to settle after their
 * work. So a payer holds at most one unsettled payment at a time, keyed by
 * the transfer's source token account and its authority (a store lock with
 * a TTL, released once the payment settles or is given up), and a payer
 * whose payment failed to settle after the work (the funds moved away in
 * between) pays before the work from then on, for a payment window. A new
 * wallet and a new address make a new payer, so past a few such defaults in
 * a window every x402 payer pays before the work: free work is bounded for
 * the whole service, not per payer.
 */

/** Defaults in a window, across all payers, after which every x402 payment settles before its work. */
const SERVICE_DEFAULTS_BEFORE_SETTLE_FIRST = 3;
const SERVICE_DEFAULTS_KEY = "x402-defaults";

export interface Hold {
  /** Idempotent: releasing twice, or after the TTL, does nothing. */
  release: () => Promise<void>;
}

const digest = (key: string) => createHash("sha256").update(key).digest("hex");
const holdKey = (key: string) => `x402-unsettled:${digest(key)}`;
const defaultedKey = (key: string) => `x402-defaulted:${digest(key)}`;

export class UnsettledPayments {
  constructor(
    private readonly store: Store,
    /** Longer than any synchronous request's work and settlement: a lock left by a crashed process frees itself. */
    private readonly holdTtlMs: number,
    /** How long a payer that defaulted pays before the work. */
    private readonly defaultedTtlMs: number,
  ) {}

  /** Holds every key or none; null when another unsettled payment holds one of them. */
  async hold(keys: string[]): Promise<Hold | null> {
    const token = randomUUID();
    const taken: string[] = [];
    const release = async () => {
      const held = taken.splice(0);
      await Promise.all(held.map((key) => this.store.delIfEquals(key, token)));
    };
    for (const key of new Set(keys.map(holdKey))) {
      if (!(await this.store.setIfAbsent(key, token, { ttlMs: this.holdTtlMs }))) {
        await release();
        return null;
      }
      taken.push(key);
    }
    return { release };
  }

  /** A payment of these payers (source, authority, client) failed to settle after it was accepted. */
  async markDefaulted(keys: string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.store.set(defaultedKey(key), "1", { ttlMs: this.defaultedTtlMs })));
    await this.store.incrBy(SERVICE_DEFAULTS_KEY, 1, { ttlMs: this.defaultedTtlMs });
  }

  /** Whether a payment of these payers must settle before its work: one of them defaulted, or too many payers did. */
  async defaulted(keys: string[]): Promise<boolean> {
    const [service, ...marks] = await Promise.all([
      this.store.get(SERVICE_DEFAULTS_KEY),
      ...keys.map((key) => this.store.get(defaultedKey(key))),
    ]);
    return Number(service ?? 0) >= SERVICE_DEFAULTS_BEFORE_SETTLE_FIRST || marks.some((mark) => mark !== null);
  }
}
