import { createHash } from "node:crypto";
import { sha256Hex } from "@/lib/ground/sha256";
import type { DocumentInput } from "@/lib/pipeline";
import type { TierId } from "@/lib/tiers";

/**
 * What makes two requests under one idempotency key "the same request": the tier, the document (a batch: its
 * documents, in order) and the options.
 * The document is its bytes' SHA-256 for an upload, its URL, or the two-step upload's id (an upload's bytes never
 * change once received). The payment is not part of it: a retry with a new payment is the same request, and is
 * answered from the first one without being charged.
 */
export function requestFingerprint(
  tier: TierId,
  input: DocumentInput | readonly DocumentInput[],
  options: object,
): string {
  const documents = Array.isArray(input) ? input.map(documentOf) : documentOf(input as DocumentInput);
  return createHash("sha256")
    .update(JSON.stringify([tier, documents, canonical(options)]))
    .digest("hex");
}

function documentOf(input: DocumentInput): string {
  switch (input.kind) {
    case "upload":
      return `sha256:${sha256Hex(input.bytes)}:${input.filename ?? ""}:${input.contentType ?? ""}`;
    case "url":
      return `url:${input.url}`;
    case "uploaded":
      return `upload:${input.uploadId}`;
  }
}

/** Options with their keys sorted, undefined ones dropped: the same options written in another order are the same. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, canonical(v)]),
  );
}
