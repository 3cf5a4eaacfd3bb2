import { isAddress } from "@solana/kit";
import { z } from "zod";
import { Entity } from "@/lib/chunking/entity";
import { OUTPUT_FORMATS } from "@/lib/formats";
import { JOB_ID_PATTERN } from "@/lib/jobs/job-store";
import { RESULT_ID_PATTERN } from "@/lib/results";
import { TIER_IDS } from "@/lib/tiers";

/**
 * Wire shapes of the chunking requests, validated at the boundary. Sizes are
 * checked against the configured bounds in `resolveOptions`, since those come
 * from config rather than being constants.
 */
const tokens = z.coerce.number({ error: "must be a whole number" }).int("must be a whole number");

export const ChunkOptionsSchema = z.object({
  max_tokens: tokens
    .optional()
    .meta({ description: "The most tokens (`o200k_base`) a chunk may have; no chunk exceeds it." }),
  overlap_tokens: tokens
    .optional()
    .meta({ description: "Tokens each chunk repeats from the end of the one before; at most half of `max_tokens`." }),
  output_format: z
    .enum(OUTPUT_FORMATS)
    .optional()
    .meta({ description: "`raw` (default), or records for a vector store's official JS client." }),
  async: z
    .union([z.boolean(), z.enum(["true", "false"]).transform((value) => value === "true")])
    .optional()
    .meta({
      description:
        "`true`: run as a job, on any tier (ai-pro always is one). The answer is at once `{job_id, status_url}`; poll the status (progress page by page while OCR reads a scan), then fetch the result. For scans with more pages than a synchronous request reads by OCR.",
    }),
});
export type ChunkOptionsInput = z.infer<typeof ChunkOptionsSchema>;

export const UrlChunkRequestSchema = ChunkOptionsSchema.extend({
  url: z.string().min(1).max(4096).meta({
    description:
      "The document's `http` or `https` URL: PDF (scanned pages are read by OCR), DOCX, HTML, Markdown, plain text, or a PNG, JPEG, TIFF or WebP image of text. Every hop must resolve to a public address.",
    example: "https://example.com/paper.pdf",
  }),
  tier: z
    .enum(TIER_IDS)
    .default("structure")
    .meta({ description: "Which tier chunks it; the paid ones need `X-PAYMENT`." }),
});
export type UrlChunkRequest = z.infer<typeof UrlChunkRequestSchema>;

/**
 * The multipart body of the tier endpoints, for the API's documentation: the
 * route reads `file` while streaming (lib/http/multipart.ts) and validates
 * the other fields with `ChunkOptionsSchema`, which this extends.
 */
export const UploadRequestSchema = ChunkOptionsSchema.extend({
  file: z.file().meta({
    description:
      "The document: PDF (scanned pages are read by OCR), DOCX, HTML, Markdown, plain text (UTF-8, or UTF-16 with a byte-order mark), or a PNG, JPEG, TIFF or WebP image of text. Its type is read from the bytes; the name only tells Markdown from plain text.",
  }),
});

/** The arguments of the MCP tool `chunk_document`: one of `url`, `text` or `file_base64`, and the options of the HTTP API. */
export const ChunkDocumentArgsSchema = ChunkOptionsSchema.extend({
  url: z.string().min(1).max(4096).optional().meta({ description: "The document's http(s) URL." }),
  text: z.string().optional().meta({ description: "The document itself, as text (Markdown, HTML or plain)." }),
  file_base64: z.string().optional().meta({ description: "The document's bytes in base64 (PDF, DOCX, PNG, ...)." }),
  filename: z
    .string()
    .max(255)
    .optional()
    .meta({ description: "The document's name; its extension tells Markdown from plain text." }),
  tier: z
    .enum(TIER_IDS)
    .default("structure")
    .meta({ description: 'Which tier chunks it; the paid ones are paid through x402 (`_meta["x402/payment"]`).' }),
});
export type ChunkDocumentArgs = z.infer<typeof ChunkDocumentArgsSchema>;

const PaymentOptionSchema = z
  .object({
    scheme: z.literal("exact"),
    network: z.string().meta({ description: "CAIP-2 id, as x402 v2 names it." }),
    network_v1: z.string().meta({ description: "The name x402 v1 clients use (`solana`, `solana-devnet`)." }),
    amount: z.string().regex(/^\d+$/).meta({ description: "USDC base units (6 decimals)." }),
    price_usd: z.string(),
    asset: z.string().meta({ description: "The USDC mint." }),
    payTo: z.string(),
    maxTimeoutSeconds: z.number().int().positive(),
    extra: z.object({ name: z.literal("USDC"), decimals: z.literal(6), feePayer: z.string().optional() }),
  })
  .meta({ id: "PaymentOption" });

/** `GET /.well-known/x402`: the paid resources, for agent catalogues and crawlers. */
export const X402DiscoverySchema = z
  .object({
    x402Version: z.literal(2),
    service: z.object({ name: z.string(), description: z.string(), openapi: z.url(), llms_txt: z.url(), mcp: z.url() }),
    resources: z.array(
      z.object({
        resource: z.string().meta({ description: "The URL, or for the MCP tool the MCP endpoint." }),
        type: z.enum(["http", "mcp"]),
        method: z.literal("POST"),
        tier: z.enum(TIER_IDS),
        description: z.string(),
        mimeType: z.literal("application/json"),
        input: z.object({
          body: z.enum(["multipart/form-data", "application/json", "mcp-tool"]),
          tool: z.string().optional(),
          schema: z.record(z.string(), z.unknown()),
        }),
        accepts: z.array(PaymentOptionSchema),
      }),
    ),
  })
  .meta({ id: "X402Discovery" });
export type X402Discovery = z.infer<typeof X402DiscoverySchema>;

/** Turns a zod failure into one readable sentence for the 400 message. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ");
}

/*
 * Response shapes: what the API answers, one schema each. The OpenAPI
 * document (lib/openapi.ts) is generated from these and the request schemas
 * above; the tests parse real answers with them.
 */

const count = z.number().int().nonnegative();

export const ResultIdSchema = z.string().regex(RESULT_ID_PATTERN).meta({
  description:
    "A stored result: `ai-pro_<12 hex>` for an ai-pro job's, `standard_<12 hex>` for any other (a large document's, or a job's run with `async=true`).",
  example: "standard_3f9c0a1b2c3d",
});

export const JobIdSchema = z.string().regex(JOB_ID_PATTERN).meta({
  description:
    "A job: `<tier>_<12 hex>`: `ai-pro_<12 hex>` for ai-pro, whose requests always are jobs; any tier's with `async=true`.",
  example: "ai-pro_3f9c0a1b2c3d",
});

export const EntitySchema = Entity.meta({
  id: "Entity",
  description: "A named entity the ai-pro tier found in a chunk.",
});

const share = z.number().min(0).max(1);
export const ChunkBoxSchema = z
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

export const ChunkMetadataSchema = z
  .object({
    chunk_index: count.meta({ description: "Zero-based position of the chunk in the document." }),
    char_count: count.meta({ description: "Characters in `text`, counted in Unicode code points." }),
    start: count.meta({
      description:
        "Where the chunk starts in the extracted text, in UTF-16 code units: `text === extracted.slice(start, end)` unless the tier rewrote the chunk (a re-fenced code block, a repeated table header).",
    }),
    end: count.meta({ description: "Where the chunk ends in the extracted text (exclusive), in UTF-16 code units." }),
    token_count: count.meta({ description: "Exact `o200k_base` tokens in `text`; never more than `max_tokens`." }),
    page_start: z
      .number()
      .int()
      .min(1)
      .optional()
      .meta({ description: "PDFs and images: the first page the chunk covers (1-based)." }),
    page_end: z
      .number()
      .int()
      .min(1)
      .optional()
      .meta({ description: "PDFs and images: the last page the chunk covers (1-based)." }),
    boxes: z.array(ChunkBoxSchema).optional().meta({
      description:
        "PDFs and images: one box per line the chunk covers, in reading order (from the text layer's positions, or OCR's word boxes on scanned pages).",
    }),
    ocr_confidence: z.number().min(0).max(100).optional().meta({
      description:
        "When any of the chunk's lines was read by OCR: Tesseract's word confidence over them, 0-100, weighted by characters. Below ~80 the text deserves a look.",
    }),
    headings: z
      .array(z.string())
      .optional()
      .meta({ description: "The section path above the chunk, outermost first (structure tier and up)." }),
    summary: z.string().optional().meta({ description: "ai-pro: what the chunk says, in a sentence or two." }),
    entities: z.array(EntitySchema).optional().meta({ description: "ai-pro: the named entities the chunk mentions." }),
  })
  .meta({ id: "ChunkMetadata" });

export const RawChunkSchema = z
  .object({ text: z.string().meta({ description: "The chunk's text." }), metadata: ChunkMetadataSchema })
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
};
const recordKey = z.string().meta({
  description:
    "`<document_id>#<tier>:<max_tokens>:<overlap_tokens>#<chunk_index>`: the same document chunked the same way always gets the same ids.",
});
const recordUuid = z.uuid().meta({
  description: "UUID v5 of the record key `<document_id>#<tier>:<max_tokens>:<overlap_tokens>#<chunk_index>`.",
});

export const PineconeRecordSchema = z.looseObject({ _id: recordKey, chunk_text: z.string(), ...recordFields }).meta({
  id: "PineconeRecord",
  description:
    '`output_format=pinecone`: a record for `index.upsertRecords()`. Also, when present: `page_start`, `page_end`, `boxes` (a JSON string of box objects), `ocr_confidence`, `headings` (strings), `summary`, `entities` (`"type:text"` strings), `truncated_fields`.',
});

export const ChromaRecordSchema = z
  .object({
    id: recordKey,
    document: z.string(),
    metadata: z.looseObject(recordFields).meta({
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
    properties: z.looseObject({ text: z.string(), ...recordFields }).meta({
      description:
        "Also, when present: `page_start`, `page_end`, `boxes` (box objects), `ocr_confidence`, `headings`, `summary`, `entities` (`{text, type}` objects).",
    }),
  })
  .meta({
    id: "WeaviateObject",
    description: "`output_format=weaviate`: an object for `collection.data.insertMany()`.",
  });

export const QdrantPointSchema = z
  .object({
    id: recordUuid,
    payload: z.looseObject({ text: z.string(), ...recordFields }).meta({
      description:
        "Also, when present: `page_start`, `page_end`, `boxes` (box objects), `ocr_confidence`, `headings`, `summary`, `entities` (`{text, type}` objects).",
    }),
  })
  .meta({
    id: "QdrantPoint",
    description: "`output_format=qdrant`: a point for `client.upsert()` once you add its `vector`.",
  });

export const ChunkRecordSchema = z
  .union([RawChunkSchema, PineconeRecordSchema, WeaviateObjectSchema, ChromaRecordSchema, QdrantPointSchema])
  .meta({ description: "One chunk, shaped by `output_format`." });

export const AiDetailsSchema = z
  .object({
    model: z.string().meta({ description: "The model that found the boundaries." }),
    units: count.meta({
      description: "Numbered units (paragraphs, code blocks, sentences of long paragraphs) shown to the model.",
    }),
    windows: count.meta({ description: "Model calls for boundaries." }),
    sections_found: count,
    fallback: z.array(z.object({ start: count, end: count, reason: z.string() })).meta({
      description:
        "Stretches of text (character offsets) the model's replies left undecided, cut by the structure splitter alone.",
    }),
    unenriched: z
      .array(z.object({ chunk_index: count, reason: z.string() }))
      .optional()
      .meta({ description: "ai-pro: chunks a bad reply left without summary and entities." }),
  })
  .meta({ id: "AiDetails", description: "The ai and ai-pro tiers: what the model did." });

export const DocumentMetadataSchema = z
  .object({
    filename: z
      .string()
      .meta({ description: "The uploaded file's name (for display only), or the name the URL gave." }),
    content_type: z.string().meta({ description: "The media type detected from the bytes." }),
    size_bytes: count,
    estimated_pages: z
      .number()
      .int()
      .min(1)
      .meta({ description: "A PDF's or an image's page count; otherwise ceil(characters / 3000)." }),
    ocr_pages: z.array(z.number().int().min(1)).meta({
      description:
        "Pages read by OCR, 1-based: a PDF's pages without a text layer, every page of an image; empty for everything else.",
    }),
    method: z.string().meta({ description: "The method that ran (`GET /api` lists each tier's `running_method`)." }),
    embedder: z.string().optional().meta({ description: "semantic tier: the embedder that ran." }),
    ai: AiDetailsSchema.optional(),
    max_tokens: z.number().int(),
    overlap_tokens: z.number().int(),
    output_format: z.enum(OUTPUT_FORMATS),
  })
  .meta({ id: "DocumentMetadata" });

export const PaymentSummarySchema = z
  .object({
    amount: count.meta({ description: "USDC base units received (6 decimals); 0 on the free tier." }),
    asset: z.literal("USDC"),
    network: z.string(),
    transaction: z
      .string()
      .nullable()
      .meta({ description: "The payment's transaction signature; null on the free tier." }),
  })
  .meta({ id: "PaymentSummary" });

const resultFields = {
  success: z.literal(true),
  tier: z.enum(TIER_IDS),
  total_chunks: count,
  metadata: DocumentMetadataSchema,
  document_summary: z.string().nullable().optional().meta({
    description: "ai-pro: the whole document in a few sentences (null when the model's answer was unusable).",
  }),
  payment: PaymentSummarySchema,
};

export const ChunkingResultSchema = z.object({ ...resultFields, chunks: z.array(ChunkRecordSchema) }).meta({
  id: "ChunkingResult",
  description: "A result with its chunks inline (fewer than `GET /api` `limits.inline_chunk_limit` chunks).",
});

export const StoredResultSummarySchema = z
  .object({
    ...resultFields,
    result_id: ResultIdSchema,
    download_url: z.url().meta({ description: "`GET` it for the full result: `{base_url}/results/{result_id}`." }),
    expires_in: z.string().meta({ description: "How long the stored result lives.", example: "60 minutes" }),
  })
  .meta({
    id: "StoredResultSummary",
    description:
      "A result too large to inline (`limits.inline_chunk_limit` chunks or more): stored, and this summary says where.",
  });

export const StoredResultSchema = z
  .object({
    ...resultFields,
    chunks: z.array(ChunkRecordSchema),
    result_id: ResultIdSchema,
    job_id: JobIdSchema.optional().meta({ description: "A completed job's result: the job that made it." }),
    expires_in: z.string().optional().meta({ description: "A completed job's result: how long it has left." }),
  })
  .meta({ id: "StoredResult", description: "A stored result, chunks included." });

export const JobAcceptedSchema = z
  .object({
    success: z.literal(true),
    async: z.literal(true),
    job_id: JobIdSchema,
    status: z.literal("processing"),
    status_url: z.url().meta({ description: "Poll it every second or two: `{base_url}/job/{job_id}/status`." }),
  })
  .meta({ id: "JobAccepted", description: "ai-pro: the job was created; it runs after this answer." });

export const JobStatusSchema = z
  .object({
    success: z.literal(true),
    job_id: JobIdSchema,
    status: z.enum(["processing", "completed", "failed"]),
    progress: z
      .number()
      .int()
      .min(0)
      .max(100)
      .meta({ description: "The share of model calls made; 100 only when completed." }),
    message: z.string().meta({
      description:
        "The stage: `Extracting text`, `Finding boundaries 12/40`, `Summarising 30/118`, `Summarising the document`, `Completed`, `Failed`.",
    }),
    created_at: z.iso.datetime(),
    expires_at: z.iso
      .datetime()
      .meta({ description: "The job and its result are gone after this (one hour after creation)." }),
    result_id: ResultIdSchema.optional().meta({ description: "When completed." }),
    download_url: z.url().optional().meta({ description: "When completed: `{base_url}/results/{result_id}`." }),
    error: z.object({ code: z.string(), message: z.string() }).optional().meta({
      description: "When failed. The payment was released: submit the request again with the same `X-PAYMENT`.",
    }),
  })
  .meta({ id: "JobStatus" });

export const ErrorBodySchema = z
  .object({
    success: z.literal(false),
    error: z.string().meta({ description: "The HTTP status name.", example: "Bad Request" }),
    code: z
      .string()
      .regex(/^[a-z0-9_]+$/)
      .meta({ description: "A stable snake_case reason: branch on this, not on `message`." }),
    message: z.string().meta({ description: "What happened and what to do, for people." }),
  })
  .meta({ id: "Error", description: "The body of every error but 402." });

export const PaymentRequirementSchema = z
  .object({
    x402Version: z.literal(1),
    scheme: z.literal("exact"),
    network: z.string().meta({
      description:
        "In `paymentRequirements` the service's network (`solana-localnet`, `solana-devnet`, `solana`); in `accepts[]` as x402 clients know it (the local chain shows as `solana-devnet`).",
    }),
    maxAmountRequired: z
      .string()
      .regex(/^\d+$/)
      .meta({ description: "The price in USDC base units (6 decimals), as a decimal string.", example: "2000" }),
    asset: z.string().meta({ description: "The USDC mint address." }),
    payTo: z
      .string()
      .meta({ description: "The address to pay (its USDC associated token account receives the transfer)." }),
    description: z.string(),
    resource: z.url().meta({ description: "The URL this requirement pays for." }),
    mimeType: z.string(),
    maxTimeoutSeconds: z.number().int().positive(),
    extra: z.object({
      name: z.literal("USDC"),
      decimals: z.literal(6),
      tier: z.enum(TIER_IDS),
      feePayer: z.string().optional().meta({
        description:
          "x402: the service's fee payer, which co-signs `exact` payloads. Absent when this server takes only transaction signatures.",
      }),
      reference: z.string().optional().meta({
        description:
          "One-time reference bound to this tier and document (or URL): put it in a Memo instruction of the transfer so the payment can pay for this request only.",
      }),
    }),
  })
  .meta({ id: "PaymentRequirement" });

export const PaymentRequiredSchema = z
  .object({
    error: z.literal("Payment Required"),
    code: z
      .string()
      .meta({ description: "`payment_required` when no payment came; otherwise why the payment was refused." }),
    message: z.string(),
    paymentRequirements: PaymentRequirementSchema,
    x402Version: z.literal(1),
    accepts: z.array(PaymentRequirementSchema).min(1).meta({ description: "The same requirement for x402 clients." }),
  })
  .meta({
    id: "PaymentRequired",
    description:
      "The 402 body: the spec's `paymentRequirements`, plus `code`, `x402Version` and `accepts[]` for x402 clients.",
  });

export const TierInfoSchema = z
  .looseObject({
    id: z.enum(TIER_IDS),
    price_usd: z.string(),
    price_base_units: count,
    endpoints: z.array(z.url()).min(1),
    method: z.string(),
    good_for: z.string(),
    mode: z.enum(["sync", "async"]),
    available: z.boolean(),
    reason: z.string().optional().meta({ description: "Why an unavailable tier is unavailable here." }),
    model: z.string().optional(),
    running_method: z.string(),
    embedder: z.string().optional(),
  })
  .meta({ id: "TierInfo" });

export const ApiInfoSchema = z
  .looseObject({
    name: z.string(),
    version: z.string(),
    network: z.string(),
    asset: z.object({ symbol: z.string(), mint: z.string(), decimals: z.number().int() }),
    payTo: z.string(),
    tiers: z.array(TierInfoSchema),
    payment: z.looseObject({
      how: z.string(),
      x402: z.looseObject({ network: z.string(), fee_payer: z.string() }).nullable(),
      max_payment_age_seconds: count,
      rpc_url: z.url().meta({ description: "The Solana RPC a browser wallet flow should use." }),
      reference_required: z.boolean(),
    }),
    localnet: z
      .looseObject({ rpc_url: z.url(), ws_url: z.url(), faucet_url: z.url() })
      .optional()
      .meta({ description: "Local mode only: the test chain and its faucet." }),
    defaults: z.looseObject({
      max_tokens: z.number().int(),
      overlap_tokens: z.number().int(),
      output_format: z.enum(OUTPUT_FORMATS),
    }),
    limits: z.looseObject({
      max_upload_bytes: count,
      max_tokens_range: z.tuple([z.number().int(), z.number().int()]),
      free_pages_per_day: count,
      inline_chunk_limit: count,
    }),
    output_formats: z.array(z.enum(OUTPUT_FORMATS)),
  })
  .meta({
    id: "ApiInfo",
    description: "Everything a client needs to choose a tier and call it. Fields beyond these may be added.",
  });

const check = z.object({ ok: z.boolean(), error: z.string().optional() });

export const HealthSchema = z
  .object({
    status: z.enum(["healthy", "degraded"]),
    network: z.string(),
    checks: z
      .object({ store: check.extend({ kind: z.string() }), chain: check.extend({ rpc: z.string() }) })
      .optional()
      .meta({ description: "When degraded: each dependency's check." }),
  })
  .meta({ id: "Health" });

export const FreeQuotaSchema = z
  .object({
    limit: count.meta({ description: "Free pages per UTC day." }),
    remaining: count,
    reset: count.meta({ description: "Epoch seconds of the next UTC midnight, when the allowance renews." }),
  })
  .meta({ id: "FreeQuota" });

export const FaucetAnswerSchema = z
  .object({
    success: z.literal(true),
    address: z.string(),
    sol: z.number().meta({ description: "SOL sent." }),
    usdc: z.number().meta({ description: "Test USDC sent." }),
    token_account: z.string().meta({ description: "The address's USDC associated token account." }),
    signatures: z.array(z.string()),
    network: z.string(),
  })
  .meta({ id: "FaucetAnswer" });

export type ChunkBoxBody = z.infer<typeof ChunkBoxSchema>;
export type ChunkMetadataBody = z.infer<typeof ChunkMetadataSchema>;
/** The scalars every vector-store record carries, whatever the store. */
export const RecordScalarsSchema = z.object(recordFields);
export type RecordScalars = z.infer<typeof RecordScalarsSchema>;
export type AiDetailsBody = z.infer<typeof AiDetailsSchema>;
export type ChunkingResultBody = z.infer<typeof ChunkingResultSchema>;
export type StoredResultSummaryBody = z.infer<typeof StoredResultSummarySchema>;
export type StoredResultBody = z.infer<typeof StoredResultSchema>;
export type JobAccepted = z.infer<typeof JobAcceptedSchema>;
export type JobStatus = z.infer<typeof JobStatusSchema>;
export type ErrorBody = z.infer<typeof ErrorBodySchema>;
export type PaymentRequiredBody = z.infer<typeof PaymentRequiredSchema>;
export type TierInfoBody = z.infer<typeof TierInfoSchema>;
export type ApiInfoBody = z.infer<typeof ApiInfoSchema>;
export type FreeQuotaBody = z.infer<typeof FreeQuotaSchema>;
export type HealthBody = z.infer<typeof HealthSchema>;
export type FaucetAnswerBody = z.infer<typeof FaucetAnswerSchema>;

export const OpenApiDocumentSchema = z
  .looseObject({
    openapi: z.string().regex(/^3\.1\.\d+$/),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "OpenApiDocument", description: "An OpenAPI 3.1 document." });

/** `POST /api/dev/faucet` (local mode only): the address to fund with SOL and test USDC. */
export const FaucetRequestSchema = z.object({
  address: z.string().refine((value) => isAddress(value), "must be a base58 Solana address"),
});
