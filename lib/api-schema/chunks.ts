/** Wire shapes of the chunks: their metadata and boxes, each vector store's record, and the ids of results and jobs. */

import { z } from "zod";
import { TIER_IDS } from "@/lib/tiers";
import { RESULT_ID_PATTERN } from "@/lib/tiers";
import { capabilityIdPattern } from "@/lib/ground/capability-id";

const count = z.number().int().nonnegative();

export const ResultIdSchema = z.string().regex(RESULT_ID_PATTERN).meta({
  description:
    "A stored result: `ai-pro_<32 hex>` for an ai-pro job's, `standard_<32 hex>` for any other (a large document's, or a job's run with `async=true`).",
  example: "standard_3f9c0a1b2c3d4e5f60718293a4b5c6d7",
});

/** `<tier>_<32 hex>`: ai-pro's jobs as the spec names them, and any tier's run with `async=true`. */
export const JOB_ID_PATTERN = capabilityIdPattern(TIER_IDS);

export const JobIdSchema = z.string().regex(JOB_ID_PATTERN).meta({
  description:
    "A job: `<tier>_<32 hex>`: `ai-pro_<32 hex>` for ai-pro, whose requests always are jobs; any tier's with `async=true`.",
  example: "ai-pro_3f9c0a1b2c3d4e5f60718293a4b5c6d7",
});

/**
 * A named entity in a chunk's metadata (ai-pro): the wire shape the model's
 * answers are checked against (lib/ai/prompts.ts) and the formats write.
 */
export const ENTITY_TYPES = ["people", "organisations", "places", "dates", "products", "other"] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export const Entity = z.object({ text: z.string().min(1), type: z.enum(ENTITY_TYPES) });
export type Entity = z.infer<typeof Entity>;

const EntitySchema = Entity.meta({
  id: "Entity",
  description: "A named entity the ai-pro tier found in a chunk.",
});

const share = z.number().min(0).max(1);
const ChunkBoxSchema = z
  .object({
    page: z.number().int().min(1).meta({ description: "The page (1-based)." }),
    x0: share.meta({ description: "Left edge, as a share of the page's width." }),
    y0: share.meta({ description: "Top edge, as a share of the page's height, from the top." }),
    x1: share.meta({ description: "Right edge." }),
    y1: share.meta({ description: "Bottom edge." }),
  })
  .meta({
    id: "ChunkBox",
    description:
      "Where a line of the chunk is on its page as displayed (rotation applied): origin at the top left, coordinates 0-1 of the page's size. Multiply by the rendered page's pixel size to highlight it.",
  });

const EmailHeadersSchema = z
  .object({
    from: z.string().optional(),
    to: z.string().optional().meta({ description: "Recipients, `Name <address>`, comma-separated." }),
    cc: z.string().optional(),
    date: z.string().optional().meta({ description: "ISO 8601 when the Date header parses, else as written." }),
    subject: z.string().optional(),
  })
  .meta({
    id: "EmailHeaders",
    description:
      "E-mails (EML, MSG): the headers of the e-mail the chunk belongs to, on every chunk of it and of its attachments (an attached e-mail's chunks carry its own).",
  });

export const ChunkMetadataSchema = z
  .object({
    chunk_index: count.meta({ description: "Zero-based position of the chunk in the document." }),
    char_count: count.meta({ description: "Characters in `text`, counted in Unicode code points." }),
    start: count.meta({
      description:
        "Where the chunk starts in the extracted text, in UTF-16 code units: `text === extracted.slice(start, end)` unless the tier rewrote the chunk (a re-fenced code block, a repeated table header, an HTML table's closing tags).",
    }),
    end: count.meta({ description: "Where the chunk ends in the extracted text (exclusive), in UTF-16 code units." }),
    token_count: count.meta({
      description: "Exact tokens in `text`, in the request's `tokenizer`; never more than `max_tokens`.",
    }),
    language: z.string().optional().meta({
      description:
        "The chunk's language, ISO 639-1 (`en`, `zh`, `th`), detected from its text; absent when too little text to tell (numbers, code, a short heading).",
    }),
    page_start: z.number().int().min(1).optional().meta({
      description:
        "PDFs and images: the first page the chunk covers (1-based). Slide decks: the slide's number. Spreadsheets and CSV: the sheet's position in the workbook (hidden sheets counted, not read). EPUB: the chapter, as its place in the book's spine (1-based).",
    }),
    page_end: z.number().int().min(1).optional().meta({
      description:
        "PDFs and images: the last page the chunk covers (1-based). Slide decks: slide; spreadsheets: sheet; EPUB: chapter.",
    }),
    boxes: z.array(ChunkBoxSchema).optional().meta({
      description:
        "PDFs and images: one box per line the chunk covers, in reading order (from the text layer's positions, or OCR's word boxes on scanned pages).",
    }),
    ocr_confidence: z.number().min(0).max(100).optional().meta({
      description:
        "When any of the chunk's lines was read by OCR: Tesseract's word confidence over them, 0-100, weighted by characters. Below ~80 the text deserves a look.",
    }),
    email: EmailHeadersSchema.optional(),
    attachment: z.string().optional().meta({
      description:
        "E-mails: the file name of the attachment the chunk comes from (attached e-mails' attachments: the names joined by ` / `); absent for the body.",
    }),
    headings: z
      .array(z.string())
      .optional()
      .meta({ description: "The section path above the chunk, outermost first (structure tier and up)." }),
    summary: z.string().optional().meta({ description: "ai-pro: what the chunk says, in a sentence or two." }),
    entities: z.array(EntitySchema).optional().meta({ description: "ai-pro: the named entities the chunk mentions." }),
    context: z.string().optional().meta({
      description:
        "`context=true` (ai, ai-pro): the model's sentence or two situating the chunk in its document; also the first paragraph of `embed_text`. Absent where the model's answer was unusable (`metadata.ai.context.fallback` lists those chunks).",
    }),
  })
  .meta({ id: "ChunkMetadata" });

const embedTextField = z.string().meta({
  description:
    "The text to embed: with `context=true`, the model's situating context and a blank line; then lines naming the document, the section path and the page (when known), a blank line, then the chunk's text. Embed this, show `text`.",
});

const RawChunkSchema = z
  .object({
    text: z.string().meta({ description: "The chunk's text." }),
    embed_text: embedTextField,
    metadata: ChunkMetadataSchema,
  })
  .meta({ id: "Chunk", description: "A chunk in the `raw` output format (the default)." });

/** The fields every vector-store record carries besides its text; further metadata follows each store's value rules. */
const recordFields = {
  document_id: z.string().meta({ description: "The first 32 hex digits of the document's SHA-256." }),
  filename: z.string(),
  tier: z.string().meta({ description: "The tier that chunked the document." }),
  chunk_index: count,
  char_count: count,
  start: count,
  end: count,
  token_count: count,
  language: z.string().optional().meta({ description: "The chunk's language (ISO 639-1), when detected." }),
};
const recordKey = z.string().meta({
  description:
    "`<document_id>#<tier>:<max_tokens>:<overlap_tokens>[:<tokenizer>]#<chunk_index>` (the tokenizer when not `o200k_base`): the same document chunked the same way always gets the same ids.",
});
const recordUuid = z.uuid().meta({
  description:
    "UUID v5 of the record key `<document_id>#<tier>:<max_tokens>:<overlap_tokens>[:<tokenizer>]#<chunk_index>`.",
});

const textOffset = count.meta({
  description: "Where the chunk's text starts in the embedded field: the text to show is that field from here on.",
});

export const PineconeRecordSchema = z
  .looseObject({
    _id: recordKey,
    chunk_text: embedTextField,
    text_offset: textOffset,
    ...recordFields,
  })
  .meta({
    id: "PineconeRecord",
    description:
      '`output_format=pinecone`: a record for `index.upsertRecords()` (map the index\'s embedded field to `chunk_text`). Also, when present: `page_start`, `page_end`, `boxes` (a JSON string of box objects), `ocr_confidence`, `headings` (strings), `summary`, `entities` (`"type:text"` strings), `truncated_fields`; e-mails: `email_from`, `email_to`, `email_cc`, `email_date`, `email_subject`, `attachment` (strings).',
  });

export const ChromaRecordSchema = z
  .object({
    id: recordKey,
    document: embedTextField,
    metadata: z.looseObject({ ...recordFields, text_offset: textOffset }).meta({
      description:
        'Scalars only: `headings` as one `"A > B"` string, `entities` and `boxes` as JSON strings, `truncated_fields` as `"a,b"`.',
    }),
  })
  .meta({
    id: "ChromaRecord",
    description: "`output_format=chroma`: spread a list into `collection.add({ids, documents, metadatas})`.",
  });

export const WeaviateObjectSchema = z
  .object({
    id: recordUuid,
    properties: z.looseObject({ text: z.string(), embed_text: embedTextField, ...recordFields }).meta({
      description:
        "Also, when present: `page_start`, `page_end`, `boxes` (box objects), `ocr_confidence`, `headings`, `summary`, `entities` (`{text, type}` objects); e-mails: `email_from`, `email_to`, `email_cc`, `email_date`, `email_subject`, `attachment` (strings).",
    }),
  })
  .meta({
    id: "WeaviateObject",
    description: "`output_format=weaviate`: an object for `collection.data.insertMany()`.",
  });

export const QdrantPointSchema = z
  .object({
    id: recordUuid,
    payload: z.looseObject({ text: z.string(), embed_text: embedTextField, ...recordFields }).meta({
      description:
        "Also, when present: `page_start`, `page_end`, `boxes` (box objects), `ocr_confidence`, `headings`, `summary`, `entities` (`{text, type}` objects); e-mails: `email_from`, `email_to`, `email_cc`, `email_date`, `email_subject`, `attachment` (strings).",
    }),
  })
  .meta({
    id: "QdrantPoint",
    description: "`output_format=qdrant`: a point for `client.upsert()` once you add its `vector`.",
  });

export const ChunkRecordSchema = z
  .union([RawChunkSchema, PineconeRecordSchema, WeaviateObjectSchema, ChromaRecordSchema, QdrantPointSchema])
  .meta({ description: "One chunk, shaped by `output_format`." });

/** The scalars every vector-store record carries, whatever the store. */
export type RecordScalars = z.infer<z.ZodObject<typeof recordFields>>;

export type Chunk = z.infer<typeof RawChunkSchema>;
export type ChunkBox = z.infer<typeof ChunkBoxSchema>;
export type ChunkMetadata = z.infer<typeof ChunkMetadataSchema>;
export type EmailHeaders = z.infer<typeof EmailHeadersSchema>;
