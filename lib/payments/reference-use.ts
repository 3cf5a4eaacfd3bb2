import type { Store } from "@/lib/store/types";

/**
 * How many paid requests carried the 402's reference in a Memo and how many
 * did not, per UTC day, so an operator can see when PAYMENT_REQUIRE_REFERENCE
 * would refuse nobody (read through GET /api/health). Two counters a day,
 * kept a little longer than the window they are read over.
 */

const REFERENCE_USE_DAYS = 7;
const TTL_MS = (REFERENCE_USE_DAYS + 1) * 24 * 3600 * 1000;

type Kind = "with-reference" | "memo-less";
const day = (at: Date) => at.toISOString().slice(0, 10);
const key = (kind: Kind, date: string) => `payref-use:${kind}:${date}`;

export interface ReferenceUse {
  days: number;
  with_reference: number;
  memo_less: number;
}

export class ReferenceUseCounter {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async record(withReference: boolean): Promise<void> {
    await this.store.incrBy(key(withReference ? "with-reference" : "memo-less", day(this.now())), 1, { ttlMs: TTL_MS });
  }

  /** Totals over the last REFERENCE_USE_DAYS UTC days, today included. */
  async totals(): Promise<ReferenceUse> {
    const today = this.now().getTime();
    const dates = Array.from({ length: REFERENCE_USE_DAYS }, (_, i) => day(new Date(today - i * 24 * 3600 * 1000)));
    const sum = async (kind: Kind) =>
      (await Promise.all(dates.map((date) => this.store.get(key(kind, date))))).reduce(
        (total, value) => total + (value === null ? 0 : Number(value)),
        0,
      );
    return { days: REFERENCE_USE_DAYS, with_reference: await sum("with-reference"), memo_less: await sum("memo-less") };
  }
}
