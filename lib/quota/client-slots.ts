import { logFault } from "@/lib/observability/events";
import { randomUUID } from "node:crypto";
import { ApiError } from "@/lib/ground/errors";
import type { Store } from "@/lib/store/types";

/**
 * A per-client counting semaphore in the store, so every instance sees the
 * same count: `limit` numbered keys per client and kind, each taken with
 * set-if-absent and a lease. A holder renews its lease while it works and
 * deletes its key (compare-and-delete, so never another holder's) when done;
 * a key whose instance died simply expires, so a crash costs the client a
 * place for one lease at most, never for good. Taking a place tries the keys
 * in order: at most `limit` store round trips, and `limit` is small.
 */
export interface HeldSlot {
  /** The key and token, to renew or release from another process (a job taken over). */
  key: string;
  token: string;
}

export type SlotKind = "requests" | "jobs";

export class ClientSlots {
  constructor(
    private readonly store: Store,
    private readonly kind: SlotKind,
    readonly limit: number,
    readonly leaseMs: number,
  ) {}

  /** A place for `client`, or null when it holds `limit` already (an expected outcome, not a fault). */
  async take(client: string): Promise<HeldSlot | null> {
    const token = randomUUID();
    for (let i = 0; i < this.limit; i++) {
      const key = `slots:${this.kind}:${client}:${i}`;
      if (await this.store.setIfAbsent(key, token, { ttlMs: this.leaseMs })) return { key, token };
    }
    return null;
  }

  /** Extends the lease; false when it lapsed (and the place may be someone else's now). */
  renew(slot: HeldSlot): Promise<boolean> {
    return this.store.setIfEquals(slot.key, slot.token, slot.token, { ttlMs: this.leaseMs });
  }

  async release(slot: HeldSlot): Promise<void> {
    await this.store.delIfEquals(slot.key, slot.token);
  }

  /**
   * Runs `work` holding a place, renewed every third of a lease; `refused` when none is free. The renewal
   * keeps a long request's place; its failures are ignored (the place is then only bounded by the lease).
   */
  async holding<T>(client: string, refused: () => Error, work: () => Promise<T>): Promise<T> {
    const slot = await this.take(client);
    if (!slot) throw refused();
    const renewal = setInterval(() => void this.renew(slot).catch(() => false), Math.max(250, this.leaseMs / 3));
    try {
      return await work();
    } finally {
      clearInterval(renewal);
      await this.release(slot).catch((error: unknown) => logFault("Releasing a client slot failed", error));
    }
  }
}

/** How long a request's place lives without renewal: far beyond a renewal period, so only a dead instance loses one. */
export const REQUEST_SLOT_LEASE_MS = 60_000;

export const tooManyRequests = (limit: number) =>
  new ApiError(
    "too_many_requests",
    `This client has ${limit} chunking requests in progress, the most it may have at once. Wait for one to finish; nothing was charged (a payment stays usable, no free pages were counted).`,
    { headers: { "Retry-After": "2" } },
  );

export const tooManyJobs = (limit: number) =>
  new ApiError(
    "too_many_jobs",
    `This client has ${limit} jobs accepted and not finished, the most it may have at once. Wait for one to finish (poll its status); nothing was charged (a payment stays usable, no free pages were counted).`,
    { headers: { "Retry-After": "10" } },
  );
