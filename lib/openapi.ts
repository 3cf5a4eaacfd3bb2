import { z } from "zod";
import { paymentOption } from "@/lib/discovery";
import {
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
  createDocument,
} from "zod-openapi";
import {
  ApiInfoSchema,
  ChunkOptionsSchema,
  ChunkingResultSchema,
  ErrorBodySchema,
  FaucetAnswerSchema,
  FaucetRequestSchema,
  FreeQuotaSchema,
  HealthSchema,
  JobAcceptedSchema,
  JobIdSchema,
  JobStatusSchema,
  OpenApiDocumentSchema,
  PaymentRequiredSchema,
  ResultIdSchema,
  StoredResultSchema,
  StoredResultSummarySchema,
  UploadRequestSchema,
  UrlChunkRequestSchema,
} from "@/lib/api-schema";
import type { Config } from "@/lib/config";
import { type ErrorCodeEntry, type Scope, STATUS_NAMES, errorCatalogue } from "@/lib/error-codes";
import { INLINE_CHUNK_LIMIT } from "@/lib/pipeline";
import { lifetimeText, megabytes } from "@/lib/wording";
import { TIERS, TIER_IDS, type Tier, isPaid, priceUsd } from "@/lib/tiers";
import packageJson from "@/package.json";

/**
 * The OpenAPI 3.1 document of the API, generated from the zod schemas the
 * routes validate with (lib/api-schema.ts) and answer with,
 * the tier table and this server's config: sizes, limits and the server URL
 * are the ones this instance enforces and answers on.
 */

export type OpenApiDocument = ReturnType<typeof createDocument>;

/** Groups of operations, in the order the reference shows them. */
export const TAGS = {
  chunking: "Chunking",
  jobs: "Jobs & results",
  service: "Service",
  local: "Local mode",
} as const;

const rateLimitHeaders = {
  "X-RateLimit-Limit": z.number().int().meta({ description: "Free pages per UTC day." }),
  "X-RateLimit-Remaining": z.number().int().meta({ description: "Free pages left today." }),
  "X-RateLimit-Reset": z
    .number()
    .int()
    .meta({ description: "Epoch seconds when the allowance renews (next UTC midnight)." }),
};
const retryAfter = { "Retry-After": z.number().int().meta({ description: "Seconds to wait before retrying." }) };
const paymentResponseHeader = {
  "X-PAYMENT-RESPONSE": z.string().optional().meta({
    description:
      "x402 v1 payments (in `X-PAYMENT`) only: base64 JSON `{success, transaction, network, payer}` of the settled payment.",
  }),
  "PAYMENT-RESPONSE": z.string().optional().meta({
    description:
      "x402 v2 payments (in `PAYMENT-SIGNATURE`) only: base64 JSON `{success, transaction, network, payer}`, the network as CAIP-2.",
  }),
};
/** Either header pays: the spec's signature or an x402 v1 payload in X-PAYMENT, an x402 v2 payload in PAYMENT-SIGNATURE. */
const paidSecurity: Record<string, string[]>[] = [{ xPayment: [] }, { paymentSignature: [] }];

/** The error answers of an operation: one response per status, its `code` limited to the codes that can occur. */
function errorResponses(catalogue: ErrorCodeEntry[], scopes: readonly Scope[]): ZodOpenApiResponsesObject {
  const relevant = catalogue.filter((entry) => entry.scopes.some((scope) => scopes.includes(scope) || scope === "any"));
  const responses: ZodOpenApiResponsesObject = {};
  for (const status of [...new Set(relevant.map((entry) => entry.status))].sort()) {
    const entries = relevant.filter((entry) => entry.status === status);
    const codes = entries.map((entry) => entry.code) as [string, ...string[]];
    const base = status === 402 ? PaymentRequiredSchema : ErrorBodySchema;
    const headers =
      status === 429
        ? z.object({ ...retryAfter, ...rateLimitHeaders })
        : status === 409 || status === 503
          ? z.object({ "Retry-After": retryAfter["Retry-After"].optional() })
          : undefined;
    responses[`${status}`] = {
      description: [`${STATUS_NAMES[status]}.`, ...entries.map((entry) => `- \`${entry.code}\`: ${entry.when}`)].join(
        "\n",
      ),
      content: { "application/json": { schema: base.extend({ code: z.enum(codes) }) } },
      ...(headers ? { headers } : {}),
    };
  }
  return responses;
}

const json = (schema: z.ZodType) => ({ content: { "application/json": { schema } } });

/** The request schemas as the routes use them, with this server's size bounds and defaults (checked after parsing, in `resolveOptions`). */
function optionsAsEnforced(chunking: Config["chunking"]) {
  const { max_tokens, overlap_tokens } = ChunkOptionsSchema.shape;
  return {
    max_tokens: max_tokens.meta({
      override: {
        type: "integer",
        minimum: chunking.minMaxTokens,
        maximum: chunking.maxMaxTokens,
        default: chunking.defaultMaxTokens,
      },
    }),
    overlap_tokens: overlap_tokens.meta({
      override: {
        type: "integer",
        minimum: 0,
        maximum: Math.floor(chunking.maxMaxTokens / 2),
        default: chunking.defaultOverlapTokens,
      },
      description: `${overlap_tokens.description} Defaults to ${chunking.defaultOverlapTokens}, or half of \`max_tokens\` when that is less.`,
    }),
  };
}

function curl(parts: string[]): { lang: string; label: string; source: string } {
  return { lang: "Shell", label: "curl", source: parts.join(" \\\n  ") };
}

const pascal = (segment: string) => segment.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());

function uploadOperation(
  tier: Tier,
  path: string,
  config: Config,
  apiBase: string,
  catalogue: ErrorCodeEntry[],
): ZodOpenApiOperationObject {
  const canonical = tier.endpoints[0];
  const paid = isPaid(tier);
  const async = tier.mode === "async";
  const scopes: Scope[] = ["upload", "options", "store", async ? "detect" : "document"];
  if (paid) scopes.push("paid", "x402", "chain");
  else scopes.push("free");
  if (tier.id === "semantic") scopes.push("semantic");
  if (tier.id === "ai" || tier.id === "ai-pro") scopes.push("aiConfig", ...(async ? [] : (["aiCall"] as const)));
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
    ...(paid ? { security: paidSecurity } : {}),
    requestBody: {
      required: true,
      content: { "multipart/form-data": { schema: UploadRequestSchema.extend(optionsAsEnforced(config.chunking)) } },
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
    "x-codeSamples": [
      curl([
        "curl",
        ...(paid ? ["-H 'X-PAYMENT: <transaction signature or x402 payload>'"] : []),
        "-F file=@report.pdf",
        "-F max_tokens=512",
        `${apiBase}${path}`,
      ]),
    ],
  };
}

/**
 * `x-payment-info` of a paid operation, as agent catalogues read it: the
 * x402 `exact` offer of each tier it serves (the 402 adds the per-request
 * reference and the fee payer).
 */
function paymentInfo(config: Config, tiers: Tier[]) {
  const [first] = tiers.map((tier) => paymentOption(config, tier, undefined));
  return {
    scheme: "exact",
    protocols: ["x402"],
    network: first!.network,
    network_v1: first!.network_v1,
    asset: first!.asset,
    payTo: first!.payTo,
    price: Object.fromEntries(
      tiers.map((tier) => [tier.id, { amount: String(tier.priceBaseUnits), usd: priceUsd(tier), currency: "USDC" }]),
    ),
  };
}

const paidTierList = () => TIER_IDS.map((id) => TIERS[id]).filter(isPaid);

function urlOperation(config: Config, apiBase: string, catalogue: ErrorCodeEntry[]): ZodOpenApiOperationObject {
  return {
    operationId: "chunkUrl",
    "x-payment-info": paymentInfo(config, paidTierList()),
    tags: [TAGS.chunking],
    summary: "Chunk a document at a URL (any tier)",
    description: [
      "The service fetches the document (`http` or `https`, every hop resolved and refused unless public, at most " +
        `${config.urlFetch.maxRedirects} redirects) and chunks it with \`tier\`. The free tier needs no payment; the paid ones answer 402 first, like the upload endpoints.`,
      "The agent flow: send the request without payment, read the 402 body, transfer `maxAmountRequired` USDC to `payTo` with `extra.reference` in a Memo, repeat the same request with `X-PAYMENT: <signature>`, and GET `download_url` when the result was stored.",
    ].join("\n\n"),
    security: [{}, ...paidSecurity],
    requestBody: { required: true, ...json(UrlChunkRequestSchema.extend(optionsAsEnforced(config.chunking))) },
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
        "json",
        "url",
        "options",
        "document",
        "free",
        "paid",
        "x402",
        "semantic",
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

function paths(config: Config, apiBase: string, catalogue: ErrorCodeEntry[]): ZodOpenApiPathsObject {
  const get = (operation: Omit<ZodOpenApiOperationObject, "x-codeSamples">, path: string) => ({
    get: { ...operation, "x-codeSamples": [curl(["curl", `${apiBase}${path}`])] },
  });
  const uploads = Object.fromEntries(
    TIER_IDS.flatMap((id) =>
      TIERS[id].endpoints.map((path) => [path, { post: uploadOperation(TIERS[id], path, config, apiBase, catalogue) }]),
    ),
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
        "x-payment-info": paymentInfo(config, paidTierList()),
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
    "/chunk": { post: urlOperation(config, apiBase, catalogue) },
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
        "x-codeSamples": [curl(["curl", `${apiBase}/results/standard_3f9c0a1b2c3d`])],
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
        "x-codeSamples": [curl(["curl", `${apiBase}/job/ai-pro_3f9c0a1b2c3d/status`])],
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
        "x-codeSamples": [curl(["curl", `${apiBase}/job/ai-pro_3f9c0a1b2c3d/result`])],
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

function buildDocument(config: Config, apiBase: string): OpenApiDocument {
  const catalogue = errorCatalogue(config);
  const origin = apiBase.replace(/\/api$/, "");
  return createDocument(
    {
      openapi: "3.1.0",
      info: {
        title: "Chunkwise API",
        version: packageJson.version,
        summary: packageJson.description,
        description:
          "Splits documents (PDF, scanned PDF, image, DOCX, HTML, Markdown, text; uploaded or fetched from a URL) into chunks for retrieval pipelines and LLM context windows. Sizes are counted in `o200k_base` tokens. The paid tiers settle per request in USDC on Solana through HTTP 402: ask, read the 402's payment requirements, pay, repeat with `X-PAYMENT`. Every error but 402 has the body `{success: false, error, code, message}`; branch on `code`.",
      },
      servers: [{ url: apiBase, description: `This server (${config.network})` }],
      externalDocs: { description: "The reference with examples", url: `${origin}/docs` },
      tags: [
        { name: TAGS.chunking, description: "Upload a document to a tier's endpoint, or send a URL." },
        {
          name: TAGS.jobs,
          description:
            "Stored results of large documents, and async jobs (ai-pro's, and any tier's run with async=true).",
        },
        { name: TAGS.service, description: "What the API offers, its health, the free allowance and this document." },
        ...(config.network === "solana-localnet"
          ? [{ name: TAGS.local, description: "The embedded test chain: test USDC, no real money." }]
          : []),
      ],
      paths: paths(config, apiBase, catalogue),
      components: {
        securitySchemes: {
          xPayment: {
            type: "apiKey",
            in: "header",
            name: "X-PAYMENT",
            description:
              "Proof of payment for a paid tier, made before the request. Either the base58 signature of a confirmed USDC transfer of `maxAmountRequired` to `payTo` (the spec's way; put the 402's `extra.reference` in a Memo instruction so it can pay for that request only), or an x402 v1 `exact` payload (base64 JSON, as `x402-fetch` sends it; answered with `X-PAYMENT-RESPONSE`). One payment pays for one request: one document or URL, one tier, one set of options; the same payment with the same request returns the same result again.",
          },
          paymentSignature: {
            type: "apiKey",
            in: "header",
            name: "PAYMENT-SIGNATURE",
            description:
              "An x402 v2 `exact` payment payload (base64 JSON, as `@x402/fetch` 2.x sends it) accepting the offer of the 402's `PAYMENT-REQUIRED` header; answered with `PAYMENT-RESPONSE`. The transfer is settled after the work succeeds: work that fails costs nothing.",
          },
        },
      },
      "x-error-codes": catalogue.map(({ status, code, when }) => ({ status, error: STATUS_NAMES[status], code, when })),
    },
    {
      // zod bounds every `.int()` by the safe-integer range; as documentation that is noise.
      override: ({ jsonSchema }) => {
        if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
        if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      },
    },
  );
}

const cache = new WeakMap<Config, Map<string, OpenApiDocument>>();

/** The document for this config as served at `apiBase`; built once per pair. */
export function openApiDocument(config: Config, apiBase: string): OpenApiDocument {
  let byBase = cache.get(config);
  if (!byBase) cache.set(config, (byBase = new Map<string, OpenApiDocument>()));
  let document = byBase.get(apiBase);
  if (!document) {
    // A Host header is the client's to choose: bound the cache rather than keep one document per name forever.
    if (byBase.size >= 16) byBase.clear();
    byBase.set(apiBase, (document = buildDocument(config, apiBase)));
  }
  return document;
}
