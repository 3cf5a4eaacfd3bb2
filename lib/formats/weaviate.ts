import { type DocumentRef, type Entity, chunkFields } from "./fields";
import { recordUuid } from "./ids";
import { embedText } from "./embed-text";
import type { Chunk } from "@/lib/chunking/types";
import type { RecordScalars, ChunkBox } from "@/lib/api-schema";

/** Property values Weaviate's auto-schema types: text, number, boolean, text[] and nested object[]. Never null or an empty list, which auto-schema cannot type. */
type WeaviateValue = string | number | boolean | string[] | Entity[] | ChunkBox[];

/**
 * An object for `collection.data.insertMany(objects)`. Property names are
 * snake_case, valid GraphQL names (`[_A-Za-z][_0-9A-Za-z]*`) and none of
 * Weaviate's reserved `id`, `_id`, `_additional`; the id is a UUID.
 */
export type WeaviateObject = {
  id: string;
  /** Vectorize `embed_text` (the collection's `sourceProperties`); `text` is the chunk to show. */
  properties: { text: string; embed_text: string } & RecordScalars & { [property: string]: WeaviateValue };
};

/** Weaviate takes lists and nested objects and has no small size limit: headings stay a text[], entities and boxes object[]s, nothing is cut. */
export function weaviateObject(chunk: Chunk, doc: DocumentRef): WeaviateObject {
  const fields = chunkFields(chunk, doc);
  const properties: WeaviateObject["properties"] = {
    text: chunk.text,
    embed_text: embedText(chunk, doc),
    ...fields.scalars,
    ...fields.pages,
    ...fields.email,
  };
  if (fields.headings) properties.headings = fields.headings;
  if (fields.summary) properties.summary = fields.summary;
  if (fields.entities) properties.entities = fields.entities.map(({ text, type }) => ({ text, type }));
  if (fields.boxes) properties.boxes = fields.boxes;
  if (fields.ocrConfidence !== undefined) properties.ocr_confidence = fields.ocrConfidence;
  return { id: recordUuid(doc, fields.scalars.chunk_index), properties };
}
