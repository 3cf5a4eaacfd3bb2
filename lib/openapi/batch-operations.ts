/** `POST /batch/{tier}`: one operation per tier, priced per accepted document (x402scan reads a dynamic price). */

import { z } from "zod";
import type { ZodOpenApiOperationObject } from "zod-openapi";
import { BatchAcceptedSchema, BatchRequestSchema, BatchUploadRequestSchema } from "@/lib/api-schema";
import type { Config } from "@/lib/ground/config";
import type { ErrorCodeEntry, Scope } from "@/lib/ground/error-codes";
import { megabytes } from "@/lib/ground/wording";
import { type Tier, isPaid, priceUsd } from "@/lib/tiers";
import { paymentInfo } from "./chunk-operations";
import {
  TAGS,
  curlUpload,
  idempotencyHeader,
  errorResponses,
  json,
  paymentHeaders,
  paymentResponseHeader,
  pascal,
  rateLimitHeaders,
} from "./responses";

export function batchOperation(
  tier: Tier,
  config: Config,
  apiBase: string,
  catalogue: ErrorCodeEntry[],
): ZodOpenApiOperationObject {
  const paid = isPaid(tier);
  const max = config.limits.maxBatchDocuments;
  const scopes: Scope[] = ["upload", "json", "url", "uploadId", "options", "detect", "store", "job", "idempotency"];
  if (paid) scopes.push("paid", "x402", "chain");
  else scopes.push("freeQuota");
  if (tier.model) scopes.push("aiConfig");
  const single = paymentInfo(config, [tier]);
  const decimal = (amount: number) => amount.toFixed(6);
  return {
    operationId: `batch${pascal(tier.id)}`,
    tags: [TAGS.chunking],
    summary: `Chunk several documents in one job: ${tier.id} tier`,
    description: [
      `Up to ${max} documents (BATCH_MAX_DOCUMENTS), ${megabytes(config.limits.maxUploadBytes)} in all: multipart \`file\` parts, or JSON \`{documents: [{url} | {text, filename} | {upload_id}], ...options}\`.`,
      "Each document is checked first, free (read or fetched, type detected, pages counted): one that fails is listed with its error and not charged. " +
        (paid
          ? `The price is the accepted documents times the tier's ($${priceUsd(tier)} USDC each), paid once: the 402 asks for it, bound to those documents.`
          : `The free pages of every accepted document are taken at once (${config.freePagesPerDay} a day per client), or none.`),
      "Answers 202 with a job: its status lists each document (`pending`, `completed`, `failed`, `rejected`); its result has every chunk, each naming its document. A document that fails in the job is marked `failed` and its share is not refunded; if none completes, the job fails and releases the payment.",
      "None accepted: 400 `invalid_request` with each document's error in `documents`.",
    ].join("\n\n"),
    "x-chunkwise-tier": tier.id,
    ...(paid
      ? {
          "x-payment-info": {
            ...single,
            price: {
              mode: "dynamic",
              currency: "USD",
              min: decimal(tier.priceBaseUnits / 1e6),
              max: decimal((tier.priceBaseUnits * max) / 1e6),
            },
          },
        }
      : {}),
    requestParams: { header: z.object({ ...(paid ? paymentHeaders : {}), ...idempotencyHeader }) },
    security: [],
    requestBody: {
      required: true,
      content: {
        "application/json": { schema: BatchRequestSchema },
        "multipart/form-data": { schema: BatchUploadRequestSchema },
      },
    },
    responses: {
      202: {
        description: "The batch's job was created.",
        ...json(BatchAcceptedSchema),
        headers: z.object(paid ? paymentResponseHeader : rateLimitHeaders),
      },
      ...errorResponses(catalogue, scopes),
    },
    "x-codeSamples": [curlUpload(`${apiBase}/batch/${tier.id}`, ["-F file=@a.pdf", "-F file=@b.docx"], paid)],
  };
}
