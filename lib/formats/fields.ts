import type { Entity, RecordScalars, ChunkBox } from "@/lib/api-schema";
import type { Chunk } from "@/lib/chunking/types";
import type { TokenizerName } from "@/lib/tokens/names";

/** What the record ids and the document-level fields are made of. */
export interface DocumentRef {
  /** Stable id of the document (hash of its bytes), so re-chunking the same document gives the same record ids. */
  documentId: string;
  filename: string;
  tier: string;
  maxTokens: number;
  overlapTokens: number;
  /** For `embed_text`'s prefix: the document's title, when it has one worth saying. */
  title?: string;
  /** For `embed_text`'s prefix: what `page_start` counts ("Page", "Slide", …). */
  pageUnit?: string;
  /** Absent or `o200k_base`: the default, left out of record keys. */
  tokenizer?: TokenizerName;
}

/** A named entity the ai-pro tier finds in a chunk (a type alias, so it fits the clients' index-signature types: Weaviate's nested properties). */
export type { Entity } from "@/lib/api-schema";

/** One chunk's fields before a store's value rules apply. Absent values are left out, never null. */
interface ChunkFields {
  scalars: RecordScalars;
  pages?: { page_start: number; page_end: number };
  /** E-mails: the headers as `email_from`, `email_to`, `email_cc`, `email_date`, `email_subject`, and `attachment`; flat strings every store takes. */
  email?: Record<string, string>;
  /** Non-empty when present. */
  boxes?: ChunkBox[];
  ocrConfidence?: number;
  /** Non-empty when present. */
  headings?: string[];
  /** Non-empty when present. */
  summary?: string;
  /** Non-empty when present. */
  entities?: Entity[];
}

export function chunkFields(chunk: Chunk, doc: DocumentRef): ChunkFields {
  const {
    chunk_index,
    char_count,
    start,
    end,
    token_count,
    page_start,
    page_end,
    boxes,
    ocr_confidence,
    headings,
    summary,
    entities,
    email,
    attachment,
    language,
    // The model's context reaches every store inside the text to embed (`embedText`), where it does its work.
    context: _context,
    ...unmapped
  } = chunk.metadata;
  // A metadata field added to chunks must get a mapping for every store here (and in docs/api.md's table) before this compiles.
  const exhaustive: Record<string, never> = unmapped;
  void exhaustive;

  const fields: ChunkFields = {
    scalars: {
      document_id: doc.documentId,
      filename: doc.filename,
      tier: doc.tier,
      chunk_index,
      char_count,
      start,
      end,
      token_count,
    },
  };
  if (language) fields.scalars.language = language;
  if (page_start !== undefined && page_end !== undefined) fields.pages = { page_start, page_end };
  if (email || attachment) {
    fields.email = Object.fromEntries(Object.entries(email ?? {}).map(([key, value]) => [`email_${key}`, value]));
    if (attachment) fields.email.attachment = attachment;
  }
  if (boxes?.length) fields.boxes = boxes;
  if (ocr_confidence !== undefined) fields.ocrConfidence = ocr_confidence;
  if (headings?.length) fields.headings = headings;
  if (summary) fields.summary = summary;
  if (entities?.length) fields.entities = entities;
  return fields;
}
