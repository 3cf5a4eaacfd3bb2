import { type ChromaRecord, chromaRecord } from "./chroma";
import type { DocumentRef } from "./fields";
import { type PineconeRecord, pineconeRecord } from "./pinecone";
import { type QdrantPoint, qdrantPoint } from "./qdrant";
import { embedText } from "./embed-text";
import { type WeaviateObject, weaviateObject } from "./weaviate";

export type { ChromaRecord } from "./chroma";
export type { DocumentRef, Entity } from "./fields";
export type { PineconeRecord } from "./pinecone";
export type { QdrantPoint } from "./qdrant";
export type { WeaviateObject } from "./weaviate";

import { OUTPUT_FORMATS } from "@/lib/api-schema";
import type { Chunk } from "@/lib/chunking/types";

export { OUTPUT_FORMATS };
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** A chunk in the `raw` format: its text, the text to embed, its metadata. */
type RawRecord = { text: string; embed_text: string; metadata: Chunk["metadata"] };

/** What one chunk becomes in each format. */
interface FormattedRecord {
  raw: RawRecord;
  pinecone: PineconeRecord;
  weaviate: WeaviateObject;
  chroma: ChromaRecord;
  qdrant: QdrantPoint;
}

/**
 * Records shaped for each store's official JS client, with metadata only of
 * the value types that store takes and within its size limits. Vectors are
 * left to the caller (Chunkwise does not embed for storage). Field by field
 * (docs/api.md, "Output formats", has the same table):
 *
 * | field              | pinecone               | chroma                   | weaviate        | qdrant          |
 * |--------------------|------------------------|--------------------------|-----------------|-----------------|
 * | text to embed      | `chunk_text`           | `document`               | `embed_text`    | `embed_text`    |
 * | chunk text         | from `text_offset`     | from `text_offset`       | `text`          | `text`          |
 * | id                 | record key             | record key               | UUID v5 of key  | UUID v5 of key  |
 * | language           | string, if detected    | string, if detected      | text, if detected | string, if detected |
 * | headings           | string[]               | "A > B" string           | text[]          | string[]        |
 * | summary            | string                 | string                   | text            | string          |
 * | entities           | ["type:text", …]       | JSON string              | object[]        | object[]        |
 * | page_start/_end    | number, if known       | number, if known         | number, if known| number, if known|
 * | ocr_confidence     | number, if OCR'd       | number, if OCR'd         | number, if OCR'd| number, if OCR'd|
 * | boxes              | JSON string, if known  | JSON string, if known    | object[]        | object[]        |
 * | email, attachment  | `email_from`, `email_to`, `email_cc`, `email_date`, `email_subject`, `attachment`: strings, for e-mails (all stores) |
 * | truncated_fields   | string[], if any cut   | "a,b" string, if any cut | never cut       | never cut       |
 *
 * Absent values are left out, never null; empty lists are left out too.
 * The record key and why it holds the chunking settings: see `./ids`.
 */
const FORMATTERS: { [F in OutputFormat]: (chunk: Chunk, doc: DocumentRef) => FormattedRecord[F] } = {
  raw: (chunk, doc) => ({ text: chunk.text, embed_text: embedText(chunk, doc), metadata: chunk.metadata }),
  pinecone: pineconeRecord,
  weaviate: weaviateObject,
  chroma: chromaRecord,
  qdrant: qdrantPoint,
};

export function formatChunks<F extends OutputFormat>(
  chunks: readonly Chunk[],
  format: F,
  doc: DocumentRef,
): FormattedRecord[F][] {
  const toRecord = FORMATTERS[format];
  return chunks.map((chunk) => toRecord(chunk, doc));
}

export type { Chunk } from "@/lib/chunking/types";
