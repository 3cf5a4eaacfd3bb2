import { ApiError } from "@/lib/ground/errors";
import type { Store } from "@/lib/store/types";
import { freePagesEvent } from "@/lib/observability/events";

/**
 * The free tier's daily page allowance per client address, counted with an
 * atomic increment (never read-then-write), taken before the work from a cheap
 * count (lib/extract/page-count.ts), settled to the exact count once
 * extracted, and given back only when the service failed or a size limit refused the
 * document (`pagesGoBack`).
 */
export interface QuotaWindow {
  limit: number;
  remaining: number;
  /** Unix seconds at the next UTC midnight. */
  resetAt: number;
}

/** Pages taken from a client's day: `takenAt` (epoch ms) names the day they are given back to or settled on. */
export interface TakenPages {
  pages: number;
  takenAt: number;
}

export interface Reservation extends QuotaWindow, TakenPages {
  /**
   * Makes the pages taken `exact` (the count once extracted): takes the difference if the day has it, else throws
   * `free_quota_exceeded` leaving the pages taken as they were; gives back a surplus.
   */
  settle: (exact: number) => Promise<void>;
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
      freePagesEvent("refused", { pages, remaining: Math.max(0, this.limit - (used - pages)) });
      throw exceeded(
        { ...w, remaining: this.limit - (used - pages) },
        now,
        `This document has ${pages} page(s) and ${Math.max(0, this.limit - (used - pages))} free page(s) are left today.`,
      );
    }
    freePagesEvent("taken", { pages, remaining: w.remaining });
    let refunded = false;
    const reservation: Reservation = {
      ...w,
      pages,
      takenAt: now,
      settle: async (exact) => {
        if (refunded) return;
        const settled = await this.settle(client, reservation, exact);
        reservation.pages = exact;
        reservation.remaining = settled.remaining;
      },
      refund: async () => {
        if (refunded) return;
        refunded = true;
        await this.refund(client, reservation.pages, now);
      },
    };
    return reservation;
  }

  /** `settle` for pages whose reservation object is gone (a job's, noted in its record); the day's window after it. */
  async settle(client: string, taken: TakenPages, exact: number): Promise<QuotaWindow> {
    const { day, resetMs } = window(taken.takenAt);
    const k = key(day, client);
    const ttlMs = Math.max(1, resetMs - this.now() + 60_000);
    const more = exact - taken.pages;
    const used = more === 0 ? Number((await this.store.get(k)) ?? 0) : await this.store.incrBy(k, more, { ttlMs });
    const w = { limit: this.limit, remaining: this.limit - used, resetAt: resetMs / 1000 };
    if (more > 0 && used > this.limit) {
      await this.store.incrBy(k, -more, { ttlMs });
      freePagesEvent("refused", { pages: more, remaining: Math.max(0, this.limit - (used - more)) });
      throw exceeded(
        { ...w, remaining: Math.max(0, this.limit - (used - more)) },
        this.now(),
        `This document has ${exact} page(s) once read, ${more} more than its first count, and ${Math.max(0, this.limit - (used - more))} free page(s) are left today; the ${taken.pages} page(s) of the first count stay taken.`,
      );
    }
    if (more !== 0) freePagesEvent(more > 0 ? "taken" : "returned", { pages: Math.abs(more), remaining: w.remaining });
    return { ...w, remaining: Math.max(0, w.remaining) };
  }

  /** Gives back `pages` taken at `takenAt` (to that day's count): a job's, whose reservation object is gone with its worker. */
  async refund(client: string, pages: number, takenAt: number): Promise<void> {
    const { day, resetMs } = window(takenAt);
    const ttlMs = resetMs - this.now() + 60_000;
    if (ttlMs <= 0) return;
    await this.store.incrBy(key(day, client), -pages, { ttlMs });
    freePagesEvent("returned", { pages });
  }
}

/**
 * Whether a failed request's pages go back: when the service failed it (a fault, 500; `busy`, an unreachable store
 * or provider, 503), or refused it on a size limit (413: too many pages or characters, more scanned pages than a
 * request reads by OCR), which is decided before the work and which the client fixes by splitting the document or
 * sending it as a job. A document the client sent damaged, without text, or too complex to read in time or memory
 * (400) keeps its pages: the work it cost was real, and resending it must not be free.
 */
export const pagesGoBack = (error: unknown) =>
  !(error instanceof ApiError) || error.status >= 500 || error.status === 413;
