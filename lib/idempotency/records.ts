import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import { type StoredResponse, StoredResponseSchema } from "@/lib/payments/ledger";
import type { Store } from "@/lib/store/types";

/**
 * One record per idempotency key in the store, shared by every instance: `started` while the first request
 * with the key is served (a lease, so a crashed instance does not hold the key for ever), then `done` with
 * its answer for as long as results live. An answer that failed is not kept: the key is freed, so a retry
 * (after a 402, with the payment) runs again under the same key.
 */

const RecordSchema = z.discriminatedUnion("state", [
  z.object({ state: z.literal("started"), request: z.string(), token: z.string() }),
  z.object({ state: z.literal("done"), request: z.string(), response: StoredResponseSchema }),
]);
type IdempotencyRecord = z.infer<typeof RecordSchema>;

/** What a key holds when a request arrives with it: nothing yet (this request now holds it), or another request's. */
export type Begun =
  | { kind: "started"; finish: (response: StoredResponse) => Promise<void>; abandon: () => Promise<void> }
  | { kind: "replay"; response: StoredResponse }
  | { kind: "reused" }
  | { kind: "in_flight"; retryAfterSeconds: number };

/**
 * The store key: a hash of who asks and the key, so its length is fixed whatever the client address looks like,
 * and one client's key never names another client's record.
 */
/** A synchronous request takes seconds; a job's acceptance less. */
const RETRY_AFTER_SECONDS = 5;

const storeKey = (scope: string, key: string) =>
  `idempotency:${createHash("sha256")
    .update(JSON.stringify([scope, key]))
    .digest("hex")}`;

export class IdempotencyRecords {
  constructor(
    private readonly store: Store,
    /** How long an answer is kept: as long as the results it may point to (RESULT_TTL_SECONDS). */
    private readonly answerTtlMs: number,
    /** How long a request in progress holds its key at most: longer than any request's work. */
    private readonly leaseMs: number,
  ) {}

  async begin(scope: string, key: string, request: string): Promise<Begun> {
    const id = storeKey(scope, key);
    const started = JSON.stringify({ state: "started", request, token: randomUUID() } satisfies IdempotencyRecord);
    // Twice at most: the record can vanish between the write that failed and the read (its request failed, or
    // it expired), and one more try settles it; a key that keeps flickering is answered as in flight.
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await this.store.setIfAbsent(id, started, { ttlMs: this.leaseMs })) return this.#held(id, started, request);
      const stored = await this.store.get(id);
      if (stored === null) continue;
      const record = RecordSchema.parse(JSON.parse(stored));
      if (record.request !== request) return { kind: "reused" };
      if (record.state === "done") return { kind: "replay", response: record.response };
      break;
    }
    return { kind: "in_flight", retryAfterSeconds: RETRY_AFTER_SECONDS };
  }

  #held(id: string, started: string, request: string): Begun {
    return {
      kind: "started",
      finish: async (response) => {
        const done: IdempotencyRecord = { state: "done", request, response };
        // Only over our own lease: a lease that lapsed and was taken by another request is theirs.
        await this.store.setIfEquals(id, started, JSON.stringify(done), { ttlMs: this.answerTtlMs });
      },
      abandon: async () => {
        await this.store.delIfEquals(id, started);
      },
    };
  }
}
