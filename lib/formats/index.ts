import { v5 as uuidv5 } from "uuid";
import type { Chunk } from "@/lib/chunking/types";

export const OUTPUT_FORMATS = ["raw", "pinecone", "weaviate", "chroma", "qdrant"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface DocumentRef {
  /** Stable id of the document (hash of its bytes or URL), so re-chunking the same document gives the same record ids. */
  documentId: string;
  filename: string;
  tier: string;
}

// Fixed namespace for record UUIDs; changing it would change every id we ever gave out.
const RECORD_NAMESPACE = "6f1c3c52-6a4e-4d2b-9a55-2f0c7a1d9e01";

const recordUuid = (doc: DocumentRef, index: number) => uuidv5(`${doc.documentId}:${index}`, RECORD_NAMESPACE);

/** Scalar metadata only: Chroma and Pinecone refuse nested objects, Chroma refuses arrays. */
function flatMetadata(chunk: Chunk, doc: DocumentRef): Record<string, string | number> {
  const { headings, ...rest } = chunk.metadata;
  const out: Record<string, string | number> = { document_id: doc.documentId, filename: doc.filename, tier: doc.tier };
  for (const [key, value] of Object.entries(rest)) if (typeof value === "number" || typeof value === "string") out[key] = value;
  if (headings?.length) out.headings = headings.join(" > ");
  return out;
}

/**
 * Records shaped for each store's official JS client. Vectors are left to the
 * caller (Chunkwise does not embed for storage):
 * - pinecone: integrated-embedding records for `index.upsertRecords()` (`_id`, `chunk_text`, flat fields);
 * - weaviate: `collection.data.insertMany()` objects `{id, properties}`;
 * - chroma: `{id, document, metadata}`, spread into `collection.add({ids, documents, metadatas})`;
 * - qdrant: points `{id, payload}` for `client.upsert()`, with UUID ids as Qdrant requires.
 */
export function formatChunks(chunks: Chunk[], format: OutputFormat, doc: DocumentRef): unknown[] {
  switch (format) {
    case "raw":
      return chunks;
    case "pinecone":
      return chunks.map((c) => ({ _id: `${doc.documentId}#${c.metadata.chunk_index}`, chunk_text: c.text, ...flatMetadata(c, doc) }));
    case "weaviate":
      return chunks.map((c) => ({ id: recordUuid(doc, c.metadata.chunk_index), properties: { text: c.text, ...flatMetadata(c, doc) } }));
    case "chroma":
      return chunks.map((c) => ({ id: `${doc.documentId}#${c.metadata.chunk_index}`, document: c.text, metadata: flatMetadata(c, doc) }));
    case "qdrant":
      return chunks.map((c) => ({ id: recordUuid(doc, c.metadata.chunk_index), payload: { text: c.text, ...c.metadata, document_id: doc.documentId, filename: doc.filename, tier: doc.tier } }));
  }
}
