/**
 * Wire shapes of batches (`POST /api/batch/{tier}`, the MCP tool `chunk_documents`): the JSON body, each
 * document's state in the answer and the job's status, and the combined result. The document count and byte
 * limits come from config (BATCH_MAX_DOCUMENTS, MAX_UPLOAD_BYTES) and are checked in lib/batch/.
 */
import { z } from "zod";
import { ChunkOptionsSchema, IdempotencyKeyArg } from "./requests";
import { PaymentSummarySchema } from "./payments";
import { BatchDocumentStatusSchema, JobAcceptedSchema } from "./results";
import { DEFAULT_TIER, TIER_IDS } from "@/lib/tiers";

/** A batch is always a job: `async` is not an option of it. */
export const BatchOptionsSchema = ChunkOptionsSchema.omit({ async: true });

const UrlMember = z.strictObject({
  url: z.string().min(1).max(4096).meta({ description: "An `http` or `https` URL, fetched under the URL rules." }),
});
const TextMember = z.strictObject({
  text: z.string().meta({ description: "The document itself (Markdown, HTML or plain text)." }),
  filename: z
    .string()
    .min(1)
    .max(255)
    .meta({ description: "Its name; the extension tells Markdown and CSV/TSV from plain text." }),
});
const UploadMember = z.strictObject({
  upload_id: z
    .string()
    .min(1)
    .max(100)
    .meta({ description: "A document uploaded in two steps (`POST /api/uploads`)." }),
});

const BatchDocumentSchema = z
  .union([UrlMember, TextMember, UploadMember])
  .meta({ id: "BatchDocument", description: "One document of a batch: `{url}`, `{text, filename}` or `{upload_id}`." });

export const BatchRequestSchema = BatchOptionsSchema.extend({
  documents: z
    .array(BatchDocumentSchema)
    .min(1, "give at least one document")
    .meta({ description: "The documents, at most `BATCH_MAX_DOCUMENTS` (GET /api `limits.batch_max_documents`)." }),
}).meta({ id: "BatchRequest" });

/** The multipart body of the batch endpoint, for the API's documentation: several `file` parts and the options. */
export const BatchUploadRequestSchema = BatchOptionsSchema.extend({
  file: z.array(z.file()).meta({ description: "The documents: one `file` part each, in the order they are numbered." }),
});

/** The MCP tool `chunk_documents`: documents by URL or text, a tier and the options. */
export const ChunkDocumentsArgsSchema = BatchOptionsSchema.extend({
  documents: z
    .array(z.union([UrlMember, TextMember]))
    .min(1)
    .meta({ description: "The documents: `{url}` or `{text, filename}` each." }),
  tier: z
    .enum(TIER_IDS)
    .default(DEFAULT_TIER)
    .meta({ description: 'Which tier chunks them; paid tiers are paid through x402 (`_meta["x402/payment"]`).' }),
  idempotency_key: IdempotencyKeyArg,
});

export const BatchAcceptedSchema = JobAcceptedSchema.extend({
  documents: z.array(BatchDocumentStatusSchema),
  accepted: z
    .number()
    .int()
    .min(1)
    .meta({ description: "Documents accepted: the price is this many times the tier's." }),
  rejected: z.number().int().min(0),
  amount: z.number().int().min(0).meta({ description: "What the batch cost, in USDC base units." }),
}).meta({ id: "BatchAccepted", description: "A batch's job was created (202); it runs after this answer." });

const BatchResultDocumentSchema = BatchDocumentStatusSchema.extend({
  total_chunks: z.number().int().min(0).optional(),
  first_chunk: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: "Completed: where its chunks start in `chunks` (they are `total_chunks` in a row)." }),
  metadata: z.record(z.string(), z.unknown()).optional().meta({ description: "Completed: its document metadata." }),
}).meta({ id: "BatchResultDocument" });

export const BatchResultSchema = z
  .object({
    success: z.literal(true),
    batch: z.literal(true),
    tier: z.enum(TIER_IDS),
    total_chunks: z.number().int().min(0),
    documents: z.array(BatchResultDocumentSchema),
    payment: PaymentSummarySchema,
    job_id: z.string(),
    result_id: z.string(),
    expires_in: z.string().optional(),
    chunks: z.array(z.record(z.string(), z.unknown())).meta({
      description:
        "Every completed document's chunks in request order. `raw` chunks carry `document_index` (and `document`, its filename); vector-store records name their document in their metadata (`document_id`, `filename`).",
    }),
  })
  .meta({ id: "BatchResult", description: "A batch job's combined result." });
