import { z } from "zod";
import { UPLOAD_ID_PATTERN } from "@/lib/api-schema/uploads";
import { getBytes, setBytes } from "@/lib/store/byte-values";
import type { Store } from "@/lib/store/types";

/**
 * Two-step uploads in the store: one record per upload, and, for uploads
 * whose bytes come to this service, the bytes under a second key named by
 * their SHA-256, both expiring with the upload. The bytes are written before
 * the record names them (a compare-and-set), so a record never names bytes
 * that are not there, and two PUTs racing with different bytes cannot leave
 * a record naming one and the bytes of the other.
 */

export const UploadRecord = z.object({
  upload_id: z.string(),
  filename: z.string(),
  content_type: z.string(),
  size: z.number().int().positive(),
  /** The SHA-256 the client declared, if it did. */
  declared_sha256: z.string().optional(),
  target: z.enum(["put", "blob"]),
  /** Blob: the one pathname the client upload token allows. */
  pathname: z.string().optional(),
  expires_at: z.string(),
  /** The bytes received (PUT target only). */
  received: z.object({ sha256: z.string(), size: z.number().int() }).optional(),
});
export type UploadRecord = z.infer<typeof UploadRecord>;

const recordKey = (id: string) => `upload:${id}`;
const bytesKey = (id: string, sha256: string) => `uploadbytes:${id}:${sha256}`;

export interface UploadVersion {
  record: UploadRecord;
  raw: string;
}

const remainingMs = (record: UploadRecord, now = Date.now()) => Date.parse(record.expires_at) - now;

export class UploadStore {
  constructor(private readonly store: Store) {}

  async create(record: UploadRecord): Promise<void> {
    const raw = JSON.stringify(record);
    if (!(await this.store.setIfAbsent(recordKey(record.upload_id), raw, { ttlMs: remainingMs(record) })))
      throw new Error(`upload id ${record.upload_id} is taken`);
  }

  async get(id: string): Promise<UploadVersion | null> {
    if (!UPLOAD_ID_PATTERN.test(id)) return null;
    const raw = await this.store.get(recordKey(id));
    return raw === null ? null : { record: UploadRecord.parse(JSON.parse(raw)), raw };
  }

  /** Stores the bytes, then names them in the record; false when the record changed meanwhile (or expired). */
  async receive(current: UploadVersion, bytes: Uint8Array, sha256: string): Promise<boolean> {
    const ttlMs = remainingMs(current.record);
    if (ttlMs <= 0) return false;
    const { upload_id: id } = current.record;
    await setBytes(this.store, bytesKey(id, sha256), bytes, { ttlMs });
    const next: UploadRecord = { ...current.record, received: { sha256, size: bytes.length } };
    // A losing writer's bytes are left to expire: a winner with the same bytes shares their key.
    return this.store.setIfEquals(recordKey(id), current.raw, JSON.stringify(next), { ttlMs });
  }

  /** The bytes the record names; null when they expired. */
  async bytes(record: UploadRecord): Promise<Uint8Array | null> {
    if (!record.received) return null;
    return getBytes(this.store, bytesKey(record.upload_id, record.received.sha256));
  }
}
