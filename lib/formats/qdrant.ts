import { type DocumentRef, chunkFields } from "./fields";
import { recordUuid } from "./ids";
import { embedText } from "./embed-text";
import type { Chunk } from "@/lib/chunking/types";
import type { RecordScalars } from "@/lib/api-schema";

/** Any JSON but null, which we never send (absent fields are left out). */
type PayloadValue = string | number | boolean | PayloadValue[] | { [key: string]: PayloadValue };

/**
 * A point for `client.upsert(collection, { points })` once you add its `vector` (of `payload.embed_text`); the id
 * is a UUID, which Qdrant takes as is.
 */
export type QdrantPoint = {
  id: string;
  payload: { text: string; embed_text: string } & RecordScalars & { [key: string]: PayloadValue };
};

/** Qdrant payloads are JSON with no small size limit: fields keep their natural shape and nothing is cut. */
export function qdrantPoint(chunk: Chunk, doc: DocumentRef): QdrantPoint {
  const fields = chunkFields(chunk, doc);
  const payload: QdrantPoint["payload"] = {
    text: chunk.text,
    embed_text: embedText(chunk, doc),
    ...fields.scalars,
    ...fields.pages,
    ...fields.email,
  };
  if (fields.headings) payload.headings = fields.headings;
  if (fields.summary) payload.summary = fields.summary;
  if (fields.entities) payload.entities = fields.entities.map(({ text, type }) => ({ text, type }));
  if (fields.boxes) payload.boxes = fields.boxes.map((box) => ({ ...box }));
  if (fields.ocrConfidence !== undefined) payload.ocr_confidence = fields.ocrConfidence;
  return { id: recordUuid(doc, fields.scalars.chunk_index), payload };
}
