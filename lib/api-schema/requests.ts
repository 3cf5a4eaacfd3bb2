/**
 * Wire shapes of the requests, validated at the boundary. Sizes are
 * checked against the configured bounds in `resolveOptions`, since those come
 * from config rather than being constants.
 */
import { isAddress } from "@solana/kit";
import { z } from "zod";
import { TIER_IDS } from "@/lib/tiers";
import { TOKENIZER_NAMES } from "@/lib/tokens/names";

/** The output formats: raw chunks, or records for a vector store's official JS client (lib/formats/). */
export const OUTPUT_FORMATS = ["raw", "pinecone", "weaviate", "chroma", "qdrant"] as const;

const tokens = z.coerce.number({ error: "must be a whole number" }).int("must be a whole number");

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

/** Turns a zod failure into one readable sentence for the 400 message. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ");
}

/** `POST /api/dev/faucet` (local mode only): the address to fund with SOL and test USDC. */
export const FaucetRequestSchema = z.object({
  address: z.string().refine((value) => isAddress(value), "must be a base58 Solana address"),
});
