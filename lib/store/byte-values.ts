import type { Store } from "@/lib/store/types";

/**
 * Large values in the store (a job's document, a two-step upload's bytes, a result), kept in parts: Upstash refuses a
 * request over 10 MB ("ERR max request size exceeded", free and pay-as-you-go plans), and a 25 MB upload is 33 MB of
 * base64.
 * Each part is its own key and its own request; the key itself holds a header naming the parts, written last, so a
 * reader never sees a document without all its parts. Parts are written and read one at a time: @upstash/redis
 * pipelines the commands of one tick into one request, which would join them again.
 */

/** Bytes per part: 4 MB of base64, well inside Upstash's 10 MB request with its command around it. */
export const PART_BYTES = 3 * 1024 * 1024;

const HEADER = "parts:";
const partKey = (key: string, index: number) => `${key}:part:${index}`;

export async function setBytes(
  store: Store,
  key: string,
  bytes: Uint8Array,
  options: { ttlMs: number; partBytes?: number },
): Promise<void> {
  const partBytes = options.partBytes ?? PART_BYTES;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts = Math.max(1, Math.ceil(bytes.byteLength / partBytes));
  for (let i = 0; i < parts; i++) {
    const part = buffer.subarray(i * partBytes, (i + 1) * partBytes).toString("base64");
    await store.set(partKey(key, i), part, { ttlMs: options.ttlMs });
  }
  await store.set(key, `${HEADER}${parts}:${bytes.byteLength}`, { ttlMs: options.ttlMs });
}

/**
 * The bytes under `key`; null when they were never written or have expired (a part first, as parts are older).
 * A value stored whole, as before parts, is read in the encoding it was written in (`whole`): such values live an
 * hour, so they are met only across a deployment.
 */
export async function getBytes(
  store: Store,
  key: string,
  { whole = "base64" }: { whole?: "base64" | "utf8" } = {},
): Promise<Uint8Array | null> {
  const stored = await store.get(key);
  if (stored === null) return null;
  if (!stored.startsWith(HEADER)) return new Uint8Array(Buffer.from(stored, whole));
  const [parts, byteLength] = stored.slice(HEADER.length).split(":").map(Number) as [number, number];
  const bytes = new Uint8Array(byteLength);
  let offset = 0;
  for (let i = 0; i < parts; i++) {
    const part = await store.get(partKey(key, i));
    if (part === null) return null;
    const decoded = Buffer.from(part, "base64");
    if (offset + decoded.byteLength > byteLength) throw new Error(`${key}: its parts exceed its ${byteLength} bytes`);
    bytes.set(decoded, offset);
    offset += decoded.byteLength;
  }
  if (offset !== byteLength) throw new Error(`${key}: its parts hold ${offset} of its ${byteLength} bytes`);
  return bytes;
}
