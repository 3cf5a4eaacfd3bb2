/** Wire shapes of what a chunking request answers: a result (inline or stored), a job and its status, an error. */

import { z } from "zod";
import { TOKENIZER_NAMES } from "@/lib/tokens/names";
import { OUTPUT_FORMATS } from "./requests";
import { TIER_IDS } from "@/lib/tiers";
import { ChunkRecordSchema, JobIdSchema, ResultIdSchema } from "./chunks";
import { PaymentSummarySchema } from "./payments";

const count = z.number().int().nonnegative();

const AiDetailsSchema = z
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
    context: z
      .object({
        chunks: count.meta({ description: "Chunks given a model-written context." }),
        calls: count.meta({ description: "Model calls made for the contexts (cached answers not counted)." }),
        fallback: z.array(z.object({ chunk_index: count, reason: z.string() })).meta({
          description:
            "Chunks left with the deterministic `embed_text` only: a bad reply (after one retry), a reply that left them out, or the per-document call bound reached.",
        }),
      })
      .optional()
      .meta({ description: "`context=true`: what the model's situating contexts cost and where they are missing." }),
  })
  .meta({ id: "AiDetails", description: "The ai and ai-pro tiers: what the model did." });

const DocumentMetadataSchema = z
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
    tokenizer: z.enum(TOKENIZER_NAMES).optional().meta({
      description: "What the sizes and token counts are measured in (absent in results stored before it was asked).",
    }),
    ocr_languages: z
      .array(z.string())
      .optional()
      .meta({ description: "The request's `ocr_languages`, when it gave them: what scanned pages were read with." }),
  })
  .meta({ id: "DocumentMetadata" });

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
    webhook_secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=]+$/)
      .optional()
      .meta({
        description:
          "With `webhook_url`: this job's secret for verifying its webhook (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`). Shown only here: keep it.",
        example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      }),
  })
  .meta({ id: "JobAccepted", description: "ai-pro: the job was created; it runs after this answer." });

const JobWebhookStatusSchema = z
  .object({
    state: z.enum(["pending", "delivered", "exhausted"]).meta({
      description:
        "`pending` until the job ends and while a retry is due; `delivered` once the receiver answered 2xx; `exhausted` when every try failed (or none was left within the job's lifetime).",
    }),
    attempts: count.meta({ description: "Tries made so far; every try carries the same `webhook-id`." }),
    max_attempts: z.number().int().min(1),
    last_status: z.number().int().optional().meta({ description: "The receiver's HTTP status on its last answer." }),
    last_error: z.string().optional().meta({
      description:
        "Why the last try failed: `timeout`, `http_status` (not 2xx), `redirect` (never followed), `url_forbidden` (the host now resolves to a non-public address), `url_unresolvable`, `connection_failed`, `not_scheduled`.",
    }),
    next_attempt_at: z.iso.datetime().optional().meta({ description: "When the next try is due, while one is." }),
  })
  .meta({ id: "JobWebhookStatus", description: "A job asked with `webhook_url`: how its delivery went." });

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

const BATCH_DOCUMENT_STATES = ["rejected", "pending", "completed", "failed"] as const;

export const BatchDocumentStatusSchema = z
  .object({
    index: z.number().int().min(0).meta({ description: "Its position in the request, from 0." }),
    filename: z.string(),
    status: z.enum(BATCH_DOCUMENT_STATES).meta({
      description:
        "`rejected`: refused by the free check before payment (not charged); `pending`: paid for, not chunked yet; `completed`; `failed`: failed in the job after payment (its share is not refunded).",
    }),
    pages: z.number().int().min(0).meta({ description: "Its pages by the cheap count made before payment." }),
    error: ErrorBodySchema.optional().meta({ description: "`rejected` or `failed`: why, as a request's error body." }),
  })
  .meta({ id: "BatchDocumentStatus" });

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
    webhook: JobWebhookStatusSchema.optional(),
    documents: z
      .array(BatchDocumentStatusSchema)
      .optional()
      .meta({ description: "A batch's job: each document's state, in request order." }),
    done: z.number().int().min(0).optional().meta({ description: "A batch's job: documents completed or failed." }),
    total: z.number().int().min(0).optional().meta({ description: "A batch's job: documents accepted." }),
  })
  .meta({ id: "JobStatus" });

export type AiDetails = z.infer<typeof AiDetailsSchema>;
export type ChunkingResult = z.infer<typeof ChunkingResultSchema>;
export type StoredResultSummary = z.infer<typeof StoredResultSummarySchema>;
export type StoredResult = z.infer<typeof StoredResultSchema>;
export type JobAccepted = z.infer<typeof JobAcceptedSchema>;
export type JobStatus = z.infer<typeof JobStatusSchema>;
export type JobWebhookStatus = z.infer<typeof JobWebhookStatusSchema>;
export type ErrorBody = z.infer<typeof ErrorBodySchema>;
