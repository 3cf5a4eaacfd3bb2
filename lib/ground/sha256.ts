import { createHash } from "node:crypto";

const known = new WeakMap<Uint8Array, string>();

/**
 * The bytes' SHA-256 in hex, computed once per byte array: an upload is hashed for its idempotency key, its payment
 * binding and its document id, and each time reads all of up to 25 MB. A document's bytes are never changed once
 * read, which is what lets the answer be kept.
 */
export function sha256Hex(bytes: Uint8Array): string {
  let hex = known.get(bytes);
  if (hex === undefined) {
    hex = createHash("sha256").update(bytes).digest("hex");
    known.set(bytes, hex);
  }
  return hex;
}
