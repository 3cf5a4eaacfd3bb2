/** The chunking operations: a tier's upload endpoint and `POST /chunk` for a URL, with their payment notes and error answers. */

import { z } from "zod";
import { paymentOption } from "@/lib/service-info/discovery";
import type { ZodOpenApiOperationObject } from "zod-openapi";
import {
  ChunkingResultSchema,
  JobAcceptedSchema,
  StoredResultSummarySchema,
  FILE_OR_UPLOAD,
  URL_OR_UPLOAD,
  UploadRequestSchema,
  UrlChunkRequestSchema,
} from "@/lib/api-schema";
import type { Config } from "@/lib/ground/config";
import type { ErrorCodeEntry, Scope } from "@/lib/ground/error-codes";
import { INLINE_CHUNK_LIMIT } from "@/lib/ground/limits";
import { lifetimeText, megabytes } from "@/lib/ground/wording";
import { TIERS, TIER_IDS, type Tier, isPaid, priceUsd } from "@/lib/tiers";
import {
  rateLimitHeaders,
  paymentResponseHeader,
  idempotencyHeader,
  paymentHeaders,
  json,
  optionsAsEnforced,
  curl,
  curlUpload,
  pascal,
  TAGS,
  errorResponses,
} from "./responses";

export function uploadOperation(
  tier: Tier,
  path: string,
  config: Config,
  apiBase: string,
  catalogue: ErrorCodeEntry[],
): ZodOpenApiOperationObject {
  const canonical = tier.endpoints[0];
  const paid = isPaid(tier);
  const async = tier.mode === "async";
  const scopes: Scope[] = ["upload", "uploadId", "options", "store", "idempotency", async ? "detect" : "document"];
  if (paid) scopes.push("paid", "x402", "chain");
  else scopes.push("freeQuota");
  if (tier.embedder) scopes.push("embeddings");
  if (tier.model) scopes.push("aiConfig", ...(async ? [] : (["aiCall"] as const)));
  const price = paid
    ? `$${priceUsd(tier)} USDC per request (${tier.priceBaseUnits} base units).`
    : `Free, ${config.freePagesPerDay} pages per UTC day per client.`;
  const answer = async
    ? "Answers at once with a job: poll its `status_url` every second or two until `completed`, then GET its `download_url`. Extraction and model errors show in the job's `error` (and release the payment)."
    : `Answers with the chunks inline, or with ${INLINE_CHUNK_LIMIT} chunks or more a summary and a \`download_url\` (kept ${lifetimeText(config.resultTtlSeconds)}). With \`async=true\` it answers at once with a job instead, as ai-pro does: for scans of more than ${config.ocr.syncMaxPages} pages (up to ${config.ocr.jobMaxPages}).`;
  return {
    operationId: `chunk${pascal(path.replace("/chunk/", ""))}`,
    tags: [TAGS.chunking],
    summary: `Chunk an upload: ${tier.id} tier${path === canonical ? "" : ` (alias of ${canonical})`}`,
    description: [
      tier.method,
      `Good for: ${tier.goodFor}`,
      price,
      paid
        ? "Without payment the answer is 402 with the payment requirements; pay, then repeat the same request with `X-PAYMENT`."
        : "",
      answer,
      `Uploads up to ${megabytes(config.limits.maxUploadBytes)}.`,
    ]
      .filter(Boolean)
      .join("\n\n"),
    "x-chunkwise-tier": tier.id,
    ...(paid ? { "x-payment-info": paymentInfo(config, [tier]) } : {}),
    security: [],
    requestParams: { header: z.object({ ...(paid ? paymentHeaders : {}), ...idempotencyHeader }) },
    requestBody: {
      required: true,
      content: {
        "multipart/form-data": {
          schema: UploadRequestSchema.extend(optionsAsEnforced(config.chunking)).meta(FILE_OR_UPLOAD),
        },
      },
    },
    responses: {
      200: async
        ? { description: "The job was created.", ...json(JobAcceptedSchema), headers: z.object(paymentResponseHeader) }
        : {
            description: "The chunking result; with `async=true`, the job.",
            ...json(z.union([ChunkingResultSchema, StoredResultSummarySchema, JobAcceptedSchema])),
            headers: z.object(paid ? paymentResponseHeader : rateLimitHeaders),
          },
      ...errorResponses(catalogue, scopes),
    },
    "x-codeSamples": [curlUpload(`${apiBase}${path}`, ["-F file=@report.pdf", "-F max_tokens=512"], paid)],
  };
}

/**
 * `x-payment-info` of a paid operation in the shape x402scan and agentcash discovery read (their
 * specification, `@agentcash/discovery`): a `fixed` price in USD for one tier, a `dynamic` range for an
 * operation that serves several (from 0 where the free tier is one of them), and the protocol with our
 * offer's terms. `tiers` gives each tier's price in USDC base units, what the 402 asks for; the 402 adds the
 * per-request reference and the fee payer.
 */
export function paymentInfo(config: Config, tiers: Tier[], servesFree = false) {
  const [first] = tiers.map((tier) => paymentOption(config, tier, undefined));
  const usd = tiers.map((tier) => tier.priceBaseUnits / 1e6);
  const decimal = (amount: number) => amount.toFixed(6);
  return {
    price:
      tiers.length === 1 && !servesFree
        ? { mode: "fixed", currency: "USD", amount: decimal(usd[0]!) }
        : {
            mode: "dynamic",
            currency: "USD",
            min: decimal(servesFree ? 0 : Math.min(...usd)),
            max: decimal(Math.max(...usd)),
          },
    protocols: [
      {
        x402: {
          versions: [1, 2],
          scheme: "exact",
          network: first!.network,
          network_v1: first!.network_v1,
          asset: first!.asset,
          payTo: first!.payTo,
        },
      },
    ],
    tiers: Object.fromEntries(
      tiers.map((tier) => [tier.id, { amount: String(tier.priceBaseUnits), usd: priceUsd(tier), currency: "USDC" }]),
    ),
  };
}

export const paidTierList = () => TIER_IDS.map((id) => TIERS[id]).filter(isPaid);

export function urlOperation(config: Config, apiBase: string, catalogue: ErrorCodeEntry[]): ZodOpenApiOperationObject {
  return {
    operationId: "chunkUrl",
    "x-payment-info": paymentInfo(config, paidTierList(), true),
    tags: [TAGS.chunking],
    summary: "Chunk a document at a URL (any tier)",
    description: [
      "The service fetches the document (`http` or `https`, every hop resolved and refused unless public, at most " +
        `${config.urlFetch.maxRedirects} redirects) and chunks it with \`tier\`. The free tier needs no payment; the paid ones answer 402 first, like the upload endpoints.`,
      "The agent flow: send the request without payment, read the 402 body, transfer `maxAmountRequired` USDC to `payTo` with `extra.reference` in a Memo, repeat the same request with `X-PAYMENT: <signature>`, and GET `download_url` when the result was stored.",
      "Instead of `url`, `upload_id` names a document uploaded in two steps (`POST /uploads`); a payment binds to its bytes' SHA-256.",
    ].join("\n\n"),
    security: [],
    requestParams: { header: z.object({ ...paymentHeaders, ...idempotencyHeader }) },
    requestBody: {
      required: true,
      ...json(UrlChunkRequestSchema.safeExtend(optionsAsEnforced(config.chunking)).meta(URL_OR_UPLOAD)),
    },
    responses: {
      200: {
        description: "The chunking result, or for `ai-pro` and with `async: true` the job.",
        ...json(z.union([ChunkingResultSchema, StoredResultSummarySchema, JobAcceptedSchema])),
        headers: z.object({
          ...paymentResponseHeader,
          ...Object.fromEntries(Object.entries(rateLimitHeaders).map(([name, schema]) => [name, schema.optional()])),
        }),
      },
      ...errorResponses(catalogue, [
        "idempotency",
        "json",
        "url",
        "uploadId",
        "options",
        "document",
        "freeQuota",
        "paid",
        "x402",
        "embeddings",
        "aiConfig",
        "aiCall",
        "store",
        "chain",
      ]),
    },
    "x-codeSamples": [
      curl([
        "curl",
        "-H 'content-type: application/json'",
        `-d '{"url": "https://example.com/paper.pdf", "tier": "free"}'`,
        `${apiBase}/chunk`,
      ]),
      curl([
        "curl",
        "-H 'content-type: application/json'",
        "-H 'X-PAYMENT: <transaction signature>'",
        `-d '{"url": "https://example.com/paper.pdf", "tier": "structure"}'`,
        `${apiBase}/chunk`,
      ]),
    ],
  };
}
