/** Every path of the API with its operations, in the order the reference shows them. */

import { batchOperation } from "./batch-operations";
import { z } from "zod";
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from "zod-openapi";
import {
  ApiInfoSchema,
  CreateUploadRequestSchema,
  UploadCreatedSchema,
  UploadIdSchema,
  UploadStoredSchema,
  FaucetAnswerSchema,
  FaucetRequestSchema,
  FreeQuotaSchema,
  HealthSchema,
  JobIdSchema,
  JobStatusSchema,
  OpenApiDocumentSchema,
  ResultIdSchema,
  StoredResultSchema,
} from "@/lib/api-schema";
import type { Config } from "@/lib/ground/config";
import type { ErrorCodeEntry } from "@/lib/ground/error-codes";
import { INLINE_CHUNK_LIMIT } from "@/lib/ground/limits";
import { lifetimeText } from "@/lib/ground/wording";
import { TIERS, TIER_IDS } from "@/lib/tiers";
import { uploadOperation, paymentInfo, paidTierList, urlOperation } from "./chunk-operations";
import { TAGS, curl, errorResponses, json, rateLimitHeaders } from "./responses";

/**
 * Every operation declares its `security`: `[]` on all of them, since nothing needs a key and payment is declared
 * apart, by `x-payment-info`. Crawlers probe operations with no declaration to classify them.
 */
export function paths(config: Config, apiBase: string, catalogue: ErrorCodeEntry[]): ZodOpenApiPathsObject {
  const all = operations(config, apiBase, catalogue);
  for (const item of Object.values(all))
    for (const operation of Object.values(item as Record<string, ZodOpenApiOperationObject>)) operation.security ??= [];
  return all;
}

function operations(config: Config, apiBase: string, catalogue: ErrorCodeEntry[]): ZodOpenApiPathsObject {
  const get = (operation: Omit<ZodOpenApiOperationObject, "x-codeSamples">, path: string) => ({
    get: { ...operation, "x-codeSamples": [curl(["curl", `${apiBase}${path}`])] },
  });
  const uploads = Object.fromEntries(
    TIER_IDS.flatMap((id) =>
      TIERS[id].endpoints.map((path) => [path, { post: uploadOperation(TIERS[id], path, config, apiBase, catalogue) }]),
    ),
  );
  const batches = Object.fromEntries(
    TIER_IDS.map((id) => [`/batch/${id}`, { post: batchOperation(TIERS[id], config, apiBase, catalogue) }]),
  );
  const lifetime = lifetimeText(config.resultTtlSeconds);
  return {
    "/": get(
      {
        operationId: "getApiInfo",
        tags: [TAGS.service],
        summary: "Tiers, prices, limits and how to pay",
        description:
          "Name, version, network, the USDC mint and `payTo`, each tier with its price, endpoints and availability on this server, defaults, limits, output formats and how payment works.",
        responses: {
          200: { description: "The API's description.", ...json(ApiInfoSchema) },
          ...errorResponses(catalogue, []),
        },
      },
      "",
    ),
    "/health": get(
      {
        operationId: "getHealth",
        tags: [TAGS.service],
        summary: "Health check",
        description: "`healthy` when the store and the Solana RPC answer; otherwise 503 `degraded` with each check.",
        responses: {
          200: { description: "Healthy.", ...json(HealthSchema) },
          503: { description: "Degraded: the store or the Solana RPC does not answer.", ...json(HealthSchema) },
        },
      },
      "/health",
    ),
    "/mcp": {
      post: {
        operationId: "mcp",
        // Not `x-payment-info`: the HTTP request itself is never a 402 (payment travels inside the JSON-RPC call,
        // x402's MCP transport), so a crawler probing for one would mark the route broken.
        "x-mcp-payment-info": paymentInfo(config, paidTierList(), true),
        tags: [TAGS.service],
        summary: "MCP server (Streamable HTTP)",
        description:
          'JSON-RPC for MCP clients, stateless: tools `chunk_document`, `list_tiers`, `get_job`, `get_result`. Paid tiers through x402\'s MCP transport: an unpaid call is a tool error carrying the v2 `PaymentRequired`; call again with the payment payload in `_meta["x402/payment"]`. Point an MCP client at this URL.',
        requestBody: {
          required: true,
          content: { "application/json": { schema: z.looseObject({ jsonrpc: z.literal("2.0"), method: z.string() }) } },
        },
        responses: {
          200: { description: "The JSON-RPC answer.", ...json(z.looseObject({ jsonrpc: z.literal("2.0") })) },
        },
      },
    },
    "/quota": get(
      {
        operationId: "getFreeQuota",
        tags: [TAGS.service],
        summary: "Free pages left today",
        description: "The calling client's free-tier allowance for the UTC day, read without taking any.",
        responses: {
          200: { description: "The allowance.", ...json(FreeQuotaSchema), headers: z.object(rateLimitHeaders) },
          ...errorResponses(catalogue, ["store"]),
        },
      },
      "/quota",
    ),
    "/openapi.json": get(
      {
        operationId: "getOpenApiDocument",
        tags: [TAGS.service],
        summary: "This document",
        description: "The OpenAPI 3.1 description of this API, with this server's URL, limits and defaults.",
        responses: {
          200: { description: "The OpenAPI document.", ...json(OpenApiDocumentSchema) },
          ...errorResponses(catalogue, []),
        },
      },
      "/openapi.json",
    ),
    ...uploads,
    ...batches,
    "/chunk": { post: urlOperation(config, apiBase, catalogue) },
    "/uploads": {
      post: {
        operationId: "createUpload",
        tags: [TAGS.chunking],
        summary: "Start a two-step upload (files over the host's body limit)",
        description: [
          `A host may refuse a request body before the service sees it (Vercel: over 4.5 MB${config.functionBodyLimitBytes ? `; this server: over ${config.functionBodyLimitBytes} bytes` : ""}), so a larger file (up to ${config.limits.maxUploadBytes} bytes) goes in two steps. Declare it here; the answer's \`target\` says where its bytes go:`,
          "- `put`: `PUT` the raw bytes (exactly `size`) to `target.url` in one request (this server stores them, checked against `size` and `sha256`).",
          "- `blob`: Vercel Blob's client upload: `upload(target.pathname, file, {access: target.access, handleUploadUrl: target.handle_upload_url, clientPayload: upload_id})` from `@vercel/blob/client`; the token it gets allows that one pathname, the declared content type and size, for at most 10 minutes.",
          `Then chunk with \`upload_id\` instead of \`file\` (multipart) or \`url\` (JSON), on any tier, as often as needed until it expires (${lifetime}).`,
        ].join("\n\n"),
        requestBody: { required: true, ...json(CreateUploadRequestSchema) },
        responses: {
          201: { description: "Declared: send the bytes to `target`.", ...json(UploadCreatedSchema) },
          ...errorResponses(catalogue, ["json", "uploads"]),
        },
        "x-codeSamples": [
          curl([
            "curl",
            "-H 'content-type: application/json'",
            `-d '{"filename": "report.pdf", "content_type": "application/pdf", "size": 10485760}'`,
            `${apiBase}/uploads`,
          ]),
        ],
      },
    },
    "/uploads/blob": {
      post: {
        operationId: "blobUploadHandshake",
        tags: [TAGS.chunking],
        summary: "Vercel Blob client-upload handshake (target `blob`)",
        description:
          "The `handleUploadUrl` of `upload()` from `@vercel/blob/client`, which sends and reads this JSON itself; `clientPayload` must be the `upload_id`. The client token it answers allows the upload's one pathname, declared content type and size, for at most 10 minutes. 404 where this server takes uploads itself.",
        requestBody: {
          required: true,
          ...json(z.looseObject({ type: z.enum(["blob.generate-client-token", "blob.upload-completed"]) })),
        },
        responses: {
          200: {
            description: "The client token (or the completion's acknowledgement).",
            ...json(z.looseObject({ type: z.string() })),
          },
          ...errorResponses(catalogue, ["json", "uploadId", "faucet"]),
        },
      },
    },
    "/uploads/{upload_id}": {
      put: {
        operationId: "putUploadBytes",
        tags: [TAGS.chunking],
        summary: "Send a two-step upload's bytes (target `put`)",
        description:
          "The raw bytes, exactly the declared `size`, in one request, within the same body deadline as any upload. The type is read from the bytes (refused if no tier reads it). The same bytes again answer the same; other bytes are refused.",
        requestParams: { path: z.object({ upload_id: UploadIdSchema }) },
        requestBody: {
          required: true,
          content: { "application/octet-stream": { schema: z.string().meta({ format: "binary" }) } },
        },
        responses: {
          200: { description: "Stored.", ...json(UploadStoredSchema) },
          ...errorResponses(catalogue, ["uploads", "uploadId", "detect", "store"]),
        },
        "x-codeSamples": [
          curl([
            "curl",
            "-X PUT",
            "--data-binary @report.pdf",
            `${apiBase}/uploads/upl_3f9c0a1b2c3d4e5f60718293a4b5c6d7`,
          ]),
        ],
      },
    },
    "/results/{result_id}": {
      get: {
        operationId: "getResult",
        tags: [TAGS.jobs],
        summary: "A stored result",
        description: `The full result of a large document (${INLINE_CHUNK_LIMIT} chunks or more) or of a completed job, kept ${lifetime}. Free, no payment.`,
        requestParams: { path: z.object({ result_id: ResultIdSchema }) },
        responses: {
          200: { description: "The result with all its chunks.", ...json(StoredResultSchema) },
          ...errorResponses(catalogue, ["result", "store"]),
        },
        "x-codeSamples": [curl(["curl", `${apiBase}/results/standard_3f9c0a1b2c3d4e5f60718293a4b5c6d7`])],
      },
    },
    "/job/{job_id}/status": {
      get: {
        operationId: "getJobStatus",
        tags: [TAGS.jobs],
        summary: "A job's progress (ai-pro, or any tier run with async=true)",
        description: `Poll every second or two. \`processing\` → \`completed\` (with \`result_id\` and \`download_url\`) or \`failed\` (with \`error\`; the payment is released, so the same \`X-PAYMENT\` buys a new job; a free job gives back its pages). While OCR reads a scan, \`message\` says which page (\`Read page 12 of 40 by OCR\`). Jobs expire ${lifetime} after creation.`,
        requestParams: { path: z.object({ job_id: JobIdSchema }) },
        responses: {
          200: { description: "The job.", ...json(JobStatusSchema) },
          ...errorResponses(catalogue, ["job", "store"]),
        },
        "x-codeSamples": [curl(["curl", `${apiBase}/job/ai-pro_3f9c0a1b2c3d4e5f60718293a4b5c6d7/status`])],
      },
    },
    "/job/{job_id}/result": {
      get: {
        operationId: "getJobResult",
        tags: [TAGS.jobs],
        summary: "A completed job's result",
        description:
          "The result, as the synchronous request would have answered it with all its chunks (ai-pro's enriched: per-chunk `summary` and `entities`, `document_summary`). 409 until the job has completed.",
        requestParams: { path: z.object({ job_id: JobIdSchema }) },
        responses: {
          200: { description: "The result with all its chunks.", ...json(StoredResultSchema) },
          ...errorResponses(catalogue, ["job", "jobResult", "store"]),
        },
        "x-codeSamples": [curl(["curl", `${apiBase}/job/ai-pro_3f9c0a1b2c3d4e5f60718293a4b5c6d7/result`])],
      },
    },
    "/metrics": {
      get: {
        operationId: "getMetrics",
        tags: [TAGS.service],
        summary: "Operators' metrics (Prometheus)",
        description:
          "This instance's metrics in Prometheus's text format, for its operator: send `Authorization: Bearer <METRICS_TOKEN>`. 404 when the server has no METRICS_TOKEN. Each instance counts its own (requests by route, tier and status, latency, the CPU line, pages read and OCR'd, jobs, payments and USDC settled).",
        responses: {
          200: {
            description: "Prometheus text format 0.0.4.",
            content: { "text/plain": { schema: z.string() } },
          },
          ...errorResponses(catalogue, ["metrics"]),
        },
        "x-codeSamples": [curl(["curl", "-H 'authorization: Bearer <METRICS_TOKEN>'", `${apiBase}/metrics`])],
      },
    },
    ...(config.network === "solana-localnet"
      ? {
          "/dev/faucet": {
            post: {
              operationId: "postFaucet",
              tags: [TAGS.local],
              summary: "Fund a test wallet",
              description:
                "Local mode only (404 on any other network): sends SOL and test USDC on the local chain, so any paid tier can be tried with no real money.",
              requestBody: {
                required: true,
                ...json(
                  FaucetRequestSchema.extend({
                    address: FaucetRequestSchema.shape.address.meta({
                      description: "A base58 Solana address.",
                      example: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
                    }),
                  }),
                ),
              },
              responses: {
                200: { description: "Funded.", ...json(FaucetAnswerSchema) },
                ...errorResponses(catalogue, ["json", "faucet", "chain"]),
              },
              "x-codeSamples": [
                curl([
                  "curl",
                  "-H 'content-type: application/json'",
                  `-d '{"address": "<base58 address>"}'`,
                  `${apiBase}/dev/faucet`,
                ]),
              ],
            },
          },
        }
      : {}),
  };
}
