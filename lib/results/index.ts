import { newCapabilityId } from "@/lib/ground/capability-id";
import { ApiError } from "@/lib/ground/errors";
import { lifetimeText } from "@/lib/ground/wording";
import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import { getBytes, setBytes } from "@/lib/store/byte-values";
import type { Store } from "@/lib/store/types";
import { RESULT_ID_PATTERN } from "@/lib/tiers";

/**
 * Stored results (large documents, later completed jobs), kept for the configured lifetime and then 404. A result
 * is gzipped (its chunks' text and embed_text repeat the document: a few times smaller) and kept in parts, as a
 * large document's result runs to tens of MB.
 */

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);
const isGzip = (bytes: Uint8Array) => bytes[0] === 0x1f && bytes[1] === 0x8b;

export const newResultId = newCapabilityId;

const key = (id: string) => `result:${id}`;

export class ResultStore {
  constructor(
    private readonly store: Store,
    private readonly ttlSeconds: number,
  ) {}

  /** The result's JSON, kept for the configured lifetime, or `ttlMs` (a job's result lives as long as its job). */
  async save(id: string, json: string, ttlMs = this.ttlSeconds * 1000): Promise<void> {
    // Level 1: most of the saving for a fraction of the default's time, and off the event loop.
    await setBytes(this.store, key(id), await gzipAsync(json, { level: 1 }), { ttlMs });
  }

  /** The JSON as saved: served as it is, never parsed and written again. */
  async load(id: string): Promise<string> {
    // A result saved before gzip and parts is its JSON as it was (read as UTF-8); JSON never starts with gzip's magic.
    const bytes = RESULT_ID_PATTERN.test(id) ? await getBytes(this.store, key(id), { whole: "utf8" }) : null;
    if (bytes === null)
      throw new ApiError(
        "expired_or_unknown",
        `No result ${id} exists: results are kept for ${lifetimeText(this.ttlSeconds)} after they are made. Chunk the document again.`,
      );
    return isGzip(bytes) ? (await gunzipAsync(bytes)).toString("utf8") : Buffer.from(bytes).toString("utf8");
  }
}
