import { v5 as uuidv5 } from "uuid";
import type { DocumentRef } from "./fields";

// Fixed namespace for record UUIDs; changing it would change every id we ever gave out.
const RECORD_NAMESPACE = "6f1c3c52-6a4e-4d2b-9a55-2f0c7a1d9e01";

/**
 * `<document id>#<tier>:<max_tokens>:<overlap_tokens>[:<tokenizer>]#<chunk index>`, the id of
 * one chunk of one chunking of one document. The chunking settings are part of
 * it because they decide where chunks start and end: with them in the id, one
 * id always names the same text, re-chunking with the same settings upserts
 * over the same records, and two chunkings of a document (another tier, another
 * size) sit side by side instead of overwriting each other's records one index
 * at a time. The `document#…` prefix is Pinecone's recommended shape, so
 * `index.listPaginated({ prefix: "<document id>#" })` finds every chunk.
 * The server's embedder (semantic tier) is deliberately left out: it is not a
 * request option.
 */
export function recordKey(doc: DocumentRef, chunkIndex: number): string {
  // A tokenizer other than the default sizes chunks differently, so it is in the key; the default is not, so ids given before tokenizers were an option stay.
  const tokenizer = doc.tokenizer && doc.tokenizer !== "o200k_base" ? `:${doc.tokenizer}` : "";
  return `${doc.documentId}#${doc.tier}:${doc.maxTokens}:${doc.overlapTokens}${tokenizer}#${chunkIndex}`;
}

/** The record key as a name-based UUID (v5), for the stores that take only UUIDs (Weaviate) or UUIDs and integers (Qdrant). */
export const recordUuid = (doc: DocumentRef, chunkIndex: number): string =>
  uuidv5(recordKey(doc, chunkIndex), RECORD_NAMESPACE);
