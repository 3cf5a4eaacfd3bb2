/** The parts operations share: error answers by scope, rate-limit and payment headers, the options as this server enforces them, curl samples. */

import { z } from "zod";
import type { ZodOpenApiResponsesObject } from "zod-openapi";
import { ChunkOptionsSchema, ErrorBodySchema, PaymentRequiredSchema } from "@/lib/api-schema";
import type { Config } from "@/lib/ground/config";
import { type ErrorCodeEntry, type Scope, STATUS_NAMES } from "@/lib/ground/error-codes";

/** Groups of operations, in the order the reference shows them. */
export const TAGS = {
  chunking: "Chunking",
  jobs: "Jobs & results",
  service: "Service",
  local: "Local mode",
} as const;

export const rateLimitHeaders = {
  "X-RateLimit-Limit": z.number().int().meta({ description: "Free pages per UTC day." }),
  "X-RateLimit-Remaining": z.number().int().meta({ description: "Free pages left today." }),
  "X-RateLimit-Reset": z
    .number()
    .int()
    .meta({ description: "Epoch seconds when the allowance renews (next UTC midnight)." }),
};
const retryAfter = { "Retry-After": z.number().int().meta({ description: "Seconds to wait before retrying." }) };
export const paymentResponseHeader = {
  "X-PAYMENT-RESPONSE": z.string().optional().meta({
    description:
      "x402 v1 payments (in `X-PAYMENT`) only: base64 JSON `{success, transaction, network, payer}` of the settled payment.",
  }),
  "PAYMENT-RESPONSE": z.string().optional().meta({
    description:
      "x402 v2 payments (in `PAYMENT-SIGNATURE`) only: base64 JSON `{success, transaction, network, payer}`, the network as CAIP-2.",
  }),
};
/**
 * How a paid operation is paid: either header, sent again with the same request after the 402. They are header
 * parameters, not `security`, because payment is not authentication: discovery crawlers (x402scan, agentcash)
 * read `security: []` plus `x-payment-info` as "paid, no key", and a security scheme as "needs an API key".
 */
export const paymentHeaders = {
  "X-PAYMENT": z.string().optional().meta({
    description:
      "Proof of payment made after the 402: the base58 signature of a confirmed USDC transfer of `maxAmountRequired` to `payTo` (the spec's way; put the 402's `extra.reference` in a Memo), or an x402 v1 `exact` payload (base64 JSON, as `x402-fetch` sends it; answered with `X-PAYMENT-RESPONSE`). One payment pays for one request: one document or URL, one tier, one set of options.",
  }),
  "PAYMENT-SIGNATURE": z.string().optional().meta({
    description:
      "An x402 v2 `exact` payment payload (base64 JSON, as `@x402/fetch` 2.x sends it) accepting the offer of the 402's `PAYMENT-REQUIRED` header; answered with `PAYMENT-RESPONSE`. Settled after the work succeeds.",
  }),
};

/** The IETF draft's idempotency key, on every chunking operation, free ones included. */
export const idempotencyHeader = {
  "Idempotency-Key": z.string().optional().meta({
    description:
      "A key of the client's choosing (16 to 128 letters, digits, `-`, `_`; a UUID fits). The same request again with the same key gets the first answer (a job: the same job) without a second charge or quota count; another request with it answers 409 `idempotency_key_reused`; while the first still runs, 409 `idempotency_key_in_flight`. Kept as long as results; per client address. x402 v2 clients may send it as the `payment-identifier` extension instead.",
  }),
};

/** The error answers of an operation: one response per status, its `code` limited to the codes that can occur. */
export function errorResponses(catalogue: ErrorCodeEntry[], scopes: readonly Scope[]): ZodOpenApiResponsesObject {
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

export const json = (schema: z.ZodType) => ({ content: { "application/json": { schema } } });

/** The request schemas as the routes use them, with this server's size bounds and defaults (checked after parsing, in `resolveOptions`). */
export function optionsAsEnforced(chunking: Config["chunking"]) {
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

export function curl(parts: string[]): { lang: string; label: string; source: string } {
  return { lang: "Shell", label: "curl", source: parts.join(" \\\n  ") };
}

/** A curl sample of a multipart upload of `fields` to `url`, with its payment header when the tier is paid. */
export function curlUpload(url: string, fields: string[], paid: boolean): ReturnType<typeof curl> {
  return curl(["curl", ...(paid ? ["-H 'X-PAYMENT: <transaction signature or x402 payload>'"] : []), ...fields, url]);
}

export const pascal = (segment: string) => segment.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
