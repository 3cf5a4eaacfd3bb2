/**
 * Wire shapes of the requests, validated at the boundary. Sizes are
 * checked against the configured bounds in `resolveOptions`, since those come
 * from config rather than being constants.
 */
import { isAddress } from "@solana/kit";
import { z } from "zod";
import { DEFAULT_TIER, TIER_IDS } from "@/lib/tiers";
import { TOKENIZER_NAMES } from "@/lib/tokens/names";

/** The output formats: raw chunks, or records for a vector store's official JS client (lib/formats/). */
export const OUTPUT_FORMATS = ["raw", "pinecone", "weaviate", "chroma", "qdrant"] as const;

const tokens = z.coerce.number({ error: "must be a whole number" }).int("must be a whole number");

/** A flag from JSON (`true`) or a form field (`"true"`); optional. */
const formBoolean = () =>
  z.union([z.boolean(), z.enum(["true", "false"]).transform((value) => value === "true")]).optional();

export const ChunkOptionsSchema = z.object({
  max_tokens: tokens
    .optional()
    .meta({ description: "The most tokens (in `tokenizer`) a chunk may have; no chunk exceeds it." }),
  overlap_tokens: tokens
    .optional()
    .meta({ description: "Tokens each chunk repeats from the end of the one before; at most half of `max_tokens`." }),
  tokenizer: z.enum(TOKENIZER_NAMES).optional().meta({
    description:
      "What `max_tokens`, `overlap_tokens` and `token_count` are measured in: `o200k_base` (default; GPT-4o, GPT-4.1, GPT-5), `cl100k_base` (GPT-4, text-embedding-3) or `llama3` (Llama 3.x).",
  }),
  ocr_languages: z.string().max(200).optional().meta({
    description:
      'Tesseract languages for scanned pages, joined by "+" (`eng+deu`), from those installed (`GET /api` lists them); the server\'s setting by default.',
    example: "eng+deu",
  }),
  output_format: z
    .enum(OUTPUT_FORMATS)
    .optional()
    .meta({ description: "`raw` (default), or records for a vector store's official JS client." }),
  include_notes: formBoolean().meta({
    description:
      'Slide decks (.pptx, .odp): `false` leaves speaker notes out. By default each slide\'s notes follow its content under a "## Notes" heading.',
  }),
  context: formBoolean().meta({
    description:
      "`ai` and `ai-pro` only (refused with 400 on the other tiers): `true` has the tier's model write a sentence or two situating each chunk in its document (contextual retrieval), put before the chunk's `embed_text` and in `metadata.context`. Same price; the calls are batched, bounded and cached per document.",
  }),
  async: formBoolean().meta({
    description:
      "`true`: run as a job, on any tier (ai-pro always is one). The answer is at once `{job_id, status_url}`; poll the status (progress page by page while OCR reads a scan), then fetch the result. For scans with more pages than a synchronous request reads by OCR.",
  }),
  webhook_url: z.string().min(1).max(2048).optional().meta({
    description:
      "Jobs only (ai-pro, or `async=true`; refused on a synchronous request): an `http` or `https` URL on a public address that gets the job's status body by POST when it completes or fails, signed per Standard Webhooks with the `webhook_secret` of the answer. Retried with backoff until it answers 2xx.",
    example: "https://example.com/hooks/chunkwise",
  }),
});
export type ChunkOptions = z.infer<typeof ChunkOptionsSchema>;

/** "Exactly one of": the refinement as JSON Schema says it (zod's conversion leaves refinements out). */
export const URL_OR_UPLOAD = { oneOf: [{ required: ["url"] }, { required: ["upload_id"] }] };
export const FILE_OR_UPLOAD = { oneOf: [{ required: ["file"] }, { required: ["upload_id"] }] };

/** `upload_id` as a request field: any string, so an id of another form answers 404 like an expired one. */
const uploadIdField = z.string().min(1).max(100);

export const UrlChunkRequestSchema = ChunkOptionsSchema.extend({
  url: z.string().min(1).max(4096).optional().meta({
    description:
      "The document's `http` or `https` URL: PDF (scanned pages are read by OCR), DOCX, PPTX, ODP, XLSX, ODS, CSV/TSV (by the URL's name or content type), ODT, RTF, EPUB, e-mail (EML, MSG), HTML, Markdown, plain text, or a PNG, JPEG, TIFF or WebP image of text. Every hop must resolve to a public address. Give this or `upload_id`.",
    example: "https://example.com/paper.pdf",
  }),
  upload_id: uploadIdField.optional().meta({
    description:
      "Instead of `url`: a document uploaded in two steps (`POST /api/uploads`, then its bytes to the target it answers), for files larger than a request body may be on this host.",
    example: "upl_3f9c0a1b2c3d4e5f60718293a4b5c6d7",
  }),
  tier: z
    .enum(TIER_IDS)
    .default(DEFAULT_TIER)
    .meta({ description: "Which tier chunks it; the paid ones need `X-PAYMENT`." }),
})
  .refine((body) => (body.url === undefined) !== (body.upload_id === undefined), {
    message: "give exactly one of `url` and `upload_id`",
    path: ["url"],
  })
  .meta(URL_OR_UPLOAD);

/**
 * The multipart body of the tier endpoints, for the API's documentation: the
 * route reads `file` while streaming (lib/http/multipart.ts) and validates
 * the other fields with `ChunkOptionsSchema`, which this extends.
 */
export const UploadRequestSchema = ChunkOptionsSchema.extend({
  file: z.file().optional().meta({
    description:
      "The document: PDF (scanned pages are read by OCR), DOCX, PPTX or ODP (one section per slide), XLSX or ODS (one table per sheet), CSV or TSV, ODT, RTF, EPUB, e-mail (EML, MSG), HTML, Markdown, plain text (UTF-8, or UTF-16 with a byte-order mark), or a PNG, JPEG, TIFF or WebP image of text. Its type is read from the bytes; the name (or content type) only tells Markdown and CSV/TSV from plain text. CSV may be in any common encoding (sniffed). Give this or `upload_id`.",
  }),
  upload_id: uploadIdField.optional().meta({
    description:
      "Instead of `file`: a document uploaded in two steps (`POST /api/uploads`), for files larger than a request body may be on this host (Vercel: 4.5 MB).",
    example: "upl_3f9c0a1b2c3d4e5f60718293a4b5c6d7",
  }),
}).meta(FILE_OR_UPLOAD);

/** The arguments of the MCP tool `chunk_document`: one of `url`, `text` or `file_base64`, and the options of the HTTP API. */
/** The MCP tools' `idempotency_key`. Its syntax is checked by the tool (lib/idempotency/key.ts), so a bad key gets the API's error code. */
export const IdempotencyKeyArg = z.string().max(1024).optional().meta({
  description:
    "A key of your choosing (16 to 128 letters, digits, '-', '_'; a UUID fits) to make a retry safe: the same call again with it returns the first answer (a job: the same job_id) without paying or counting free pages again; another call with it is refused (idempotency_key_reused). An x402 payment's payment-identifier works the same way.",
});

export const ChunkDocumentArgsSchema = ChunkOptionsSchema.extend({
  url: z.string().min(1).max(4096).optional().meta({ description: "The document's http(s) URL." }),
  text: z.string().optional().meta({ description: "The document itself, as text (Markdown, HTML or plain)." }),
  file_base64: z
    .string()
    .optional()
    .meta({ description: "The document's bytes in base64 (PDF, DOCX, PPTX, ODP, XLSX, ODS, EPUB, PNG, ...)." }),
  upload_id: uploadIdField.optional().meta({
    description:
      "A large file uploaded in two steps: POST /api/uploads {filename, content_type, size} answers an `upload_id` and where to send the bytes (PUT them to `target.url`, or Vercel Blob's client upload); then pass the `upload_id` here.",
  }),
  filename: z
    .string()
    .max(255)
    .optional()
    .meta({ description: "The document's name; its extension tells Markdown and CSV/TSV from plain text." }),
  tier: z
    .enum(TIER_IDS)
    .default(DEFAULT_TIER)
    .meta({ description: 'Which tier chunks it; the paid ones are paid through x402 (`_meta["x402/payment"]`).' }),
  idempotency_key: IdempotencyKeyArg,
});
export type ChunkDocumentArgs = z.infer<typeof ChunkDocumentArgsSchema>;

/** Turns a zod failure into one readable sentence for the 400 message. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ");
}

/** `POST /api/dev/faucet` (local mode only): the address to fund with SOL and test USDC. */
export const FaucetRequestSchema = z.object({
  address: z.string().refine((value) => isAddress(value), "must be a base58 Solana address"),
});
