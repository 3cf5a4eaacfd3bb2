import { type StoredResponse, StoredResponseSchema } from "@/lib/payments/ledger";
import type { Store } from "@/lib/store/types";

const key = (request: string) => `computed:${request}`;

/**
 * Results computed for a payment that then failed to settle, kept for the
 * payment window so that a new payment for the same request is answered at
 * once. Only answers given inline are kept: a stored result names the
 * transaction that failed.
 */
export class ComputedResults {
  constructor(
    private readonly store: Store,
    private readonly ttlMs: number,
  ) {}

  async keep(request: string, response: StoredResponse): Promise<void> {
    if ("download_url" in response.body) return;
    await this.store.set(key(request), JSON.stringify(response), { ttlMs: this.ttlMs });
  }

  async find(request: string): Promise<StoredResponse | null> {
    const stored = await this.store.get(key(request));
    if (stored === null) return null;
    const parsed = StoredResponseSchema.safeParse(JSON.parse(stored));
    return parsed.success ? parsed.data : null;
  }

  async forget(request: string): Promise<void> {
    await this.store.del(key(request));
  }
}
