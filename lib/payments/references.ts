import { randomBytes } from "node:crypto";
import { getBase58Decoder } from "@solana/kit";
import { z } from "zod";
import type { Store } from "@/lib/store/types";
import type { TierId } from "@/lib/tiers";

/**
 * One-time payment references. A signature is public once it is on chain,
 * so anyone watching `payTo` could present someone else's payment first.
 * Each 402 therefore carries a fresh reference bound to the tier and the
 * document (its hash) or URL; a transfer whose Memo carries it can pay for
 * that request and no other.
 */

const Binding = z.object({ tier: z.string(), document: z.string() });
type Binding = z.infer<typeof Binding>;

const key = (reference: string) => `payref:${reference}`;
/** Base58 of 32 random bytes: looks like (and is as unguessable as) a Solana address, fits a Memo. */
const REFERENCE = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export class PaymentReferences {
  constructor(
    private readonly store: Store,
    private readonly ttlMs: number,
  ) {}

  async issue(tier: TierId, document: string): Promise<string> {
    const reference = getBase58Decoder().decode(randomBytes(32));
    await this.store.set(key(reference), JSON.stringify({ tier, document } satisfies Binding), { ttlMs: this.ttlMs });
    return reference;
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
