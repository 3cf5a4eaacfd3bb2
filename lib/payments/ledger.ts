import { randomUUID } from "node:crypto";
import { z } from "zod";
import { ApiError } from "@/lib/ground/errors";
import type { Refusal } from "@/lib/payments/refusal";
import type { Store } from "@/lib/store/types";

/**
 * Which payment paid for which request, in the store so it survives restarts
 * and is shared by every instance. One payment pays for one request:
 * claimed atomically before the work, released when the work fails (so the
 * client can retry with the same payment), and completed with the response,
 * which the same payment and the same request get again instead of a refusal.
 */

export const StoredResponseSchema = z.object({
  body: z.record(z.string(), z.unknown()),
  headers: z.record(z.string(), z.string()),
});
export type StoredResponse = z.infer<typeof StoredResponseSchema>;

const Entry = z.discriminatedUnion("state", [
  z.object({ state: z.literal("claimed"), request: z.string(), token: z.string() }),
  z.object({
    state: z.literal("done"),
    request: z.string(),
    response: StoredResponseSchema,
  }),
]);
type Entry = z.infer<typeof Entry>;

export interface Claim {
  complete: (response: StoredResponse) => Promise<void>;
  release: () => Promise<void>;
}

const key = (paymentId: string) => `payment:${paymentId}`;

/** What a used payment answers: what it bought for this request, or its refusal for another (an expected outcome). */
export type Purchase = { response: StoredResponse } | { refusal: Refusal };

const alreadyUsed: Purchase = {
  refusal: {
    code: "payment_already_used",
    message:
      "This payment has already paid for a different request. Each payment pays for one document with one set of options; send a new transfer.",
  },
};

export class PaymentLedger {
  constructor(
    private readonly store: Store,
    /** Longer than the payment age window: an older payment is refused anyway, so its record may go. */
    private readonly ttlMs: number,
  ) {}

  /** What this payment already bought, or its refusal when it paid for another request; null when unused. Throws (409) while in flight. */
  async replay(paymentId: string, request: string): Promise<Purchase | null> {
    const stored = await this.store.get(key(paymentId));
    return stored === null ? null : judge(Entry.parse(JSON.parse(stored)), request);
  }

  /** Claims the payment for this request, or returns what it already bought (a concurrent request may have finished first). */
  async claim(paymentId: string, request: string): Promise<{ claim: Claim } | Purchase> {
    const entry: Entry = { state: "claimed", request, token: randomUUID() };
    const value = JSON.stringify(entry);
    if (!(await this.store.setIfAbsent(key(paymentId), value, { ttlMs: this.ttlMs }))) {
      const purchase = await this.replay(paymentId, request);
      // Released between our two reads: the payment is free again, and the client may simply retry.
      if (!purchase) throw inFlight();
      return purchase;
    }
    return {
      claim: {
        complete: (response) =>
          this.store.set(key(paymentId), JSON.stringify({ state: "done", request, response } satisfies Entry), {
            ttlMs: this.ttlMs,
          }),
        release: async () => {
          await this.store.delIfEquals(key(paymentId), value);
        },
      },
    };
  }

  /**
   * Frees a payment whose purchase was completed but then failed (an async
   * job that failed after it was accepted), so the client can retry with it.
   * Only this request's record goes: compare-and-delete on what was read.
   */
  async releaseDone(paymentId: string, request: string): Promise<void> {
    const stored = await this.store.get(key(paymentId));
    if (stored === null || Entry.parse(JSON.parse(stored)).request !== request) return;
    await this.store.delIfEquals(key(paymentId), stored);
  }
}

function judge(entry: Entry, request: string): Purchase {
  if (entry.request !== request) return alreadyUsed;
  if (entry.state === "claimed") throw inFlight();
  return { response: entry.response };
}

const inFlight = () =>
  new ApiError(
    "payment_in_progress",
    "A request with this payment is being processed right now; retry in a few seconds to get its result.",
    { headers: { "Retry-After": "2" } },
  );
