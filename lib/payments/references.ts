import { createHash, randomBytes } from "node:crypto";
import { getBase58Decoder } from "@solana/kit";
import { z } from "zod";
import type { Store } from "@/lib/store/types";
import { type BucketSize, TokenBucket } from "@/lib/store/token-bucket";
import type { TierId } from "@/lib/tiers";

/**
 * One-time payment references. A signature is public once it is on chain,
 * so anyone watching `payTo` could present someone else's payment first.
 * Each 402 therefore carries a reference bound to the tier and the document
 * (its hash) or URL; a transfer whose Memo carries it can pay for that
 * request and no other.
 *
 * Unpaid requests must not grow the store: a client asking again for the
 * same tier and document gets the reference it already holds, and new
 * references come out of a token bucket per client (a burst, refilled by
 * the minute; a paid request gives its token back). So a client that
 * floods is refused for seconds, not locked out for the payment window,
 * and the references one client can hold are bounded by the bucket's
 * burst plus its refill over a payment window. A reference once
 * handed out stays valid until it is paid or expires, so a client that pays
 * after its 402 is never refused for it.
 */

const Binding = z.object({ tier: z.string(), document: z.string() });
type Binding = z.infer<typeof Binding>;

const key = (reference: string) => `payref:${reference}`;
const hash = (...parts: string[]) => createHash("sha256").update(parts.join("\n")).digest("hex");
/** The reference a client holds for a tier and document. */
const heldKey = (client: string, tier: string, document: string) => `payref-held:${hash(client, tier, document)}`;
/** The client's bucket of new references. */
const BUCKET_PREFIX = "payref-bucket:";
/** Base58 of 32 random bytes: looks like (and is as unguessable as) a Solana address, fits a Memo. */
const REFERENCE = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export type Issued = { reference: string } | { limited: true; retryAfterSeconds: number };

export class PaymentReferences {
  readonly #allowance: TokenBucket;

  constructor(
    private readonly store: Store,
    private readonly ttlMs: number,
    allowance: BucketSize,
  ) {
    this.#allowance = new TokenBucket(store, BUCKET_PREFIX, allowance);
  }

  async issue(client: string, tier: TierId, document: string): Promise<Issued> {
    const held = await this.store.get(heldKey(client, tier, document));
    if (held !== null && (await this.store.get(key(held))) !== null) return { reference: held };

    const taken = await this.#allowance.take(hash(client));
    if (!taken.ok) return { limited: true, retryAfterSeconds: Math.max(1, Math.ceil(taken.retryAfterMs / 1000)) };
    const reference = getBase58Decoder().decode(randomBytes(32));
    await this.store.set(key(reference), JSON.stringify({ tier, document } satisfies Binding), { ttlMs: this.ttlMs });
    await this.store.set(heldKey(client, tier, document), reference, { ttlMs: this.ttlMs });
    return { reference };
  }

  /**
   * A request was paid for and answered: the client's reference for it stops
   * counting against it. The binding itself stays until it expires, so the
   * payment keeps answering that request alone (a replay of the same payload,
   * a retry after failed work) and nothing else. Paid references are bought,
   * not free, so they cannot grow the store for nothing.
   */
  async paid(client: string, tier: TierId, document: string): Promise<void> {
    const held = heldKey(client, tier, document);
    const reference = await this.store.get(held);
    if (reference === null || !(await this.store.delIfEquals(held, reference))) return;
    await this.#allowance.giveBack(hash(client));
  }

  /** The binding of the first memo that is one of our references, or null when no memo is. */
  async find(memos: string[]): Promise<(Binding & { reference: string }) | null> {
    for (const memo of memos) {
      if (!REFERENCE.test(memo)) continue;
      const stored = await this.store.get(key(memo));
      if (stored === null) continue;
      const binding = Binding.safeParse(JSON.parse(stored));
      if (binding.success) return { ...binding.data, reference: memo };
    }
    return null;
  }
}
