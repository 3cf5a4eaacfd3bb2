import { newCapabilityId } from "@/lib/ground/capability-id";
import { ApiError } from "@/lib/ground/errors";
import { lifetimeText } from "@/lib/ground/wording";
import type { Store } from "@/lib/store/types";
import { RESULT_ID_PATTERN } from "@/lib/tiers";

/** Stored results (large documents, later completed jobs), kept for the configured lifetime and then 404. */

export const newResultId = newCapabilityId;

const key = (id: string) => `result:${id}`;

export class ResultStore {
  constructor(
    private readonly store: Store,
    private readonly ttlSeconds: number,
  ) {}

  /** The result's JSON, kept for the configured lifetime, or `ttlMs` (a job's result lives as long as its job). */
  async save(id: string, json: string, ttlMs = this.ttlSeconds * 1000): Promise<void> {
    await this.store.set(key(id), json, { ttlMs });
  }

  /** The JSON as saved: served as it is, never parsed and written again. */
  async load(id: string): Promise<string> {
    const raw = RESULT_ID_PATTERN.test(id) ? await this.store.get(key(id)) : null;
    if (raw === null)
      throw new ApiError(
        "expired_or_unknown",
        `No result ${id} exists: results are kept for ${lifetimeText(this.ttlSeconds)} after they are made. Chunk the document again.`,
      );
    return raw;
  }
}
