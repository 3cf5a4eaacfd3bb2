import { ApiError } from "@/lib/errors";
import type { Store } from "@/lib/store/types";

/**
 * The free tier's daily page allowance per client address, counted with an
 * atomic increment (never read-then-write) and refundable when work fails.
 */
export interface QuotaWindow {
  limit: number;
  remaining: number;
  /** Unix seconds at the next UTC midnight. */
  resetAt: number;
}

export interface Reservation extends QuotaWindow {
  /** When the pages were taken (epoch ms): `FreeQuota.refund` needs it to give them back to that day. */
  takenAt: number;
  refund: () => Promise<void>;
}

const DAY_MS = 86_400_000;

function window(now: number) {
  const dayStart = Math.floor(now / DAY_MS) * DAY_MS;
  return { day: new Date(dayStart).toISOString().slice(0, 10), resetMs: dayStart + DAY_MS };
}

const key = (day: string, client: string) => `quota:free:${day}:${client}`;

export function rateLimitHeaders(w: QuotaWindow): Record<string, string> {
  return {
    "x-ratelimit-limit": String(w.limit),
    "x-ratelimit-remaining": String(Math.max(0, w.remaining)),
    "x-ratelimit-reset": String(w.resetAt),
  };
}

function exceeded(w: QuotaWindow, now: number, detail: string): ApiError {
  return new ApiError(
    "free_quota_exceeded",
    `${detail} The free tier allows ${w.limit} pages per UTC day; it resets at ${new Date(w.resetAt * 1000).toISOString()}. Paid tiers have no daily limit.`,
    {
      headers: { ...rateLimitHeaders(w), "retry-after": String(Math.max(1, w.resetAt - Math.floor(now / 1000))) },
    },
  );
}

export class FreeQuota {
  constructor(
    private readonly store: Store,
    private readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  async status(client: string): Promise<QuotaWindow> {
    const now = this.now();
    const { day, resetMs } = window(now);
    const used = Number((await this.store.get(key(day, client))) ?? 0);
    return { limit: this.limit, remaining: Math.max(0, this.limit - used), resetAt: resetMs / 1000 };
  }

  /** Refuses early, before any extraction, when nothing is left today. */
  async assertAvailable(client: string): Promise<void> {
    const w = await this.status(client);
    if (w.remaining <= 0) throw exceeded(w, this.now(), "No free pages are left today.");
  }

  async reserve(client: string, pages: number): Promise<Reservation> {
    const now = this.now();
    const { day, resetMs } = window(now);
    const k = key(day, client);
    // Outlive the day a little so a counter never vanishes while its day is current.
    const ttlMs = resetMs - now + 60_000;
    const used = await this.store.incrBy(k, pages, { ttlMs });
    const w = { limit: this.limit, remaining: this.limit - used, resetAt: resetMs / 1000 };
    if (used > this.limit) {
      await this.store.incrBy(k, -pages, { ttlMs });
      throw exceeded(
        { ...w, remaining: this.limit - (used - pages) },
        now,
        `This document has ${pages} page(s) and ${Math.max(0, this.limit - (used - pages))} free page(s) are left today.`,
      );
    }
    let refunded = false;
    return {
      ...w,
      takenAt: now,
      refund: async () => {
        if (refunded) return;
        refunded = true;
        await this.refund(client, pages, now);
      },
    };
  }

  /** Gives back `pages` taken at `takenAt` (to that day's count): a job's, whose reservation object is gone with its worker. */
  async refund(client: string, pages: number, takenAt: number): Promise<void> {
    const { day, resetMs } = window(takenAt);
    const ttlMs = resetMs - this.now() + 60_000;
    if (ttlMs > 0) await this.store.incrBy(key(day, client), -pages, { ttlMs });
  }
}
