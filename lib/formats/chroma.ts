import { type DocumentRef, type Entity, chunkFields } from "./fields";
import { fittingJson, truncateUtf8, utf8Bytes } from "./fit";
import { recordKey } from "./ids";
import { embedText } from "./embed-text";
import type { Chunk } from "@/lib/chunking/types";
import type { RecordScalars } from "@/lib/api-schema";

/**
 * Scalars only. The 3.x client also takes lists (`string[]`, …), but Chroma
 * servers accept them only from 1.5 on (February 2026) and older ones refuse
 * the whole `add`; scalars work on every server.
 */
type ChromaValue = string | number | boolean;

/**
 * One record; spread a list of them into `collection.add({ ids, documents, metadatas })`. `document` is what
 * Chroma embeds, so it holds the text to embed (`embed_text`): the chunk's text is
 * `document.slice(metadata.text_offset)`.
 */
export type ChromaRecord = {
  id: string;
  document: string;
  metadata: RecordScalars & { text_offset: number } & { [field: string]: ChromaValue };
};

/** Chroma Cloud's default quota on one metadata value; self-hosted Chroma has none, so meeting it costs nothing there. */
const CHROMA_VALUE_BYTES = 4096;

const HEADING_SEPARATOR = " > ";

/**
 * Headings become one path string ("Guide > Install"), entities and boxes a
 * JSON string (`[{"text":…,"type":…}]`, parse it back), each cut to Chroma
 * Cloud's 4 KB per value: the path and summary end in "…", the lists keep
 * the entries that fit whole. The chunk itself (`document`) is never cut; Chroma
 * Cloud's 16 KB document quota is the caller's to meet with `max_tokens`.
 */
export function chromaRecord(chunk: Chunk, doc: DocumentRef): ChromaRecord {
  const fields = chunkFields(chunk, doc);
  const document = embedText(chunk, doc);
  const metadata: ChromaRecord["metadata"] = {
    ...fields.scalars,
    text_offset: document.length - chunk.text.length,
    ...fields.pages,
    ...fields.email,
  };
  const truncated: string[] = [];
  const fits = (json: string) => utf8Bytes(json) <= CHROMA_VALUE_BYTES;
  if (fields.ocrConfidence !== undefined) metadata.ocr_confidence = fields.ocrConfidence;
  if (fields.boxes) {
    const { json, kept } = fittingJson(fields.boxes, fits);
    if (kept) metadata.boxes = json;
    if (kept < fields.boxes.length) truncated.push("boxes");
  }

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
    const { json, kept } = fittingJson<Entity>(fields.entities, fits);
    if (kept) metadata.entities = json;
    if (kept < fields.entities.length) truncated.push("entities");
  }
  if (truncated.length) metadata.truncated_fields = truncated.join(",");
  return { id: recordKey(doc, fields.scalars.chunk_index), document, metadata };
}
