import { type DocumentRef, chunkFields } from "./fields";
import { fitJsonString, fitStrings, fittingJson, jsonBytes } from "./fit";
import { recordKey } from "./ids";
import { embedText } from "./embed-text";
import type { Chunk } from "@/lib/chunking/types";
import type { RecordScalars } from "@/lib/api-schema";

/** Pinecone's metadata value types: string, number, boolean, list of strings. No null, no nested objects. */
type PineconeValue = string | number | boolean | string[];

/**
 * An integrated-embedding record for `index.upsertRecords({ records })`; the index's field map must name
 * `chunk_text`, which holds the text to embed (`embed_text`): the chunk's text is `chunk_text.slice(text_offset)`.
 */
export type PineconeRecord = { _id: string; chunk_text: string; text_offset: number } & RecordScalars & {
    [field: string]: PineconeValue;
  };

/** Pinecone's limit on one record's metadata (40 KB), counted here in UTF-8 bytes of JSON. */
const PINECONE_METADATA_BYTES = 40_000;
/** The most one derived text field (headings, summary, entities) may take, so no single one crowds out the others. */
const FIELD_BYTES = 4096;
/** Room kept for `truncated_fields` itself. */
const TRUNCATION_NOTE_BYTES = 64;

/**
 * Pinecone's docs call every field but the id and the embedded text
 * "metadata"; whether `chunk_text` counts toward the 40 KB is not stated, so
 * this counts it: headings, summary and entities get what the chunk leaves,
 * each at most `FIELD_BYTES`. The chunk text is never cut; a chunk that alone
 * is over 40 KB is far beyond what Pinecone's hosted embedding models read
 * anyway (a smaller `max_tokens` is the fix).
 */
export function pineconeRecord(chunk: Chunk, doc: DocumentRef): PineconeRecord {
  const fields = chunkFields(chunk, doc);
  const embedded = embedText(chunk, doc);
  const record: PineconeRecord = {
    _id: recordKey(doc, fields.scalars.chunk_index),
    chunk_text: embedded,
    // The prefix and the text are one string, not two fields, so the text is not counted twice toward 40 KB.
    text_offset: embedded.length - chunk.text.length,
    ...fields.scalars,
    ...fields.pages,
    ...fields.email,
    ...(fields.ocrConfidence === undefined ? {} : { ocr_confidence: fields.ocrConfidence }),
  };
  const truncated: string[] = [];

  /** Bytes left for one more `"name":value` pair. */
  const room = (name: string) => {
    const { _id: _, ...metadata } = record;
    const left = PINECONE_METADATA_BYTES - TRUNCATION_NOTE_BYTES - jsonBytes(metadata) - jsonBytes(name) - 2;
    return Math.min(FIELD_BYTES, left);
  };
  const putList = (name: string, values: string[]) => {
    const fitted = fitStrings(values, room(name));
    if (fitted.length < values.length || fitted.some((value, i) => value !== values[i])) truncated.push(name);
    if (fitted.length) record[name] = fitted;
  };

  if (fields.headings) putList("headings", fields.headings);
  if (fields.summary) {
    const summary = fitJsonString(fields.summary, room("summary"));
    if (summary !== fields.summary) truncated.push("summary");
    if (summary) record.summary = summary;
  }
  // Objects are not allowed: each entity becomes "<type>:<text>" in one list of strings, filterable with $in and split at the first ":".
  if (fields.entities)
    putList(
      "entities",
      fields.entities.map((entity) => `${entity.type}:${entity.text}`),
    );
  // Lists of objects are not allowed either: the boxes travel as one JSON string, as many whole boxes as fit.
  if (fields.boxes) {
    const { json, kept } = fittingJson(fields.boxes, (json) => jsonBytes(json) <= room("boxes"));
    if (kept) record.boxes = json;
    if (kept < fields.boxes.length) truncated.push("boxes");
  }
  if (truncated.length) record.truncated_fields = truncated;
  return record;
}
