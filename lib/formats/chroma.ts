import { type ChunkScalars, type DocumentRef, type Entity, type SourceChunk, chunkFields } from "./fields";
import { jsonBytes, longestFittingPrefix, truncateUtf8 } from "./fit";
import { recordKey } from "./ids";

/**
 * Scalars only. The 3.x client also takes lists (`string[]`, …), but Chroma
 * servers accept them only from 1.5 on (February 2026) and older ones refuse
 * the whole `add`; scalars work on every server.
 */
export type ChromaValue = string | number | boolean;

/** One record; spread a list of them into `collection.add({ ids, documents, metadatas })`. */
export type ChromaRecord = { id: string; document: string; metadata: ChunkScalars & { [field: string]: ChromaValue } };

/** Chroma Cloud's default quota on one metadata value; self-hosted Chroma has none, so meeting it costs nothing there. */
export const CHROMA_VALUE_BYTES = 4096;

const HEADING_SEPARATOR = " > ";

/**
 * Headings become one path string ("Guide > Install"), entities a JSON string
 * (`[{"text":…,"type":…}]`, parse it back), each cut to Chroma Cloud's 4 KB
 * per value: the path and summary end in "…", the entity list keeps the
 * entities that fit whole. The chunk itself (`document`) is never cut; Chroma
 * Cloud's 16 KB document quota is the caller's to meet with `max_tokens`.
 */
export function chromaRecord(chunk: SourceChunk, doc: DocumentRef): ChromaRecord {
  const fields = chunkFields(chunk, doc);
  const metadata: ChromaRecord["metadata"] = { ...fields.scalars, ...fields.pages };
  const truncated: string[] = [];

  if (fields.headings) {
    const path = fields.headings.join(HEADING_SEPARATOR);
    metadata.headings = truncateUtf8(path, CHROMA_VALUE_BYTES);
    if (metadata.headings !== path) truncated.push("headings");
  }
  if (fields.summary) {
    metadata.summary = truncateUtf8(fields.summary, CHROMA_VALUE_BYTES);
    if (metadata.summary !== fields.summary) truncated.push("summary");
  }
  if (fields.entities) {
    const kept = longestFittingPrefix<Entity>(fields.entities, (prefix) => jsonBytes(prefix) <= CHROMA_VALUE_BYTES);
    if (kept.length) metadata.entities = JSON.stringify(kept);
    if (kept.length < fields.entities.length) truncated.push("entities");
  }
  if (truncated.length) metadata.truncated_fields = truncated.join(",");
  return { id: recordKey(doc, fields.scalars.chunk_index), document: chunk.text, metadata };
}
