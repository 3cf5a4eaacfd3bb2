import { z } from "zod";
import {
  ChunkDocumentArgsSchema,
  UploadRequestSchema,
  UrlChunkRequestSchema,
  type X402Discovery,
} from "@/lib/api-schema";
import type { Config } from "@/lib/ground/config";
import { paymentRequirement, x402Network } from "@/lib/payments/requirements";
import { caip2Network } from "@/lib/payments/x402/v2";
import { TIER_IDS, TIERS, isPaid, priceUsd, type Tier } from "@/lib/tiers";

/**
 * What agents and crawlers read before they call: `/.well-known/x402` (the
 * paid resources with their price and how to pay) and `/llms.txt` (the
 * service in a page of Markdown). Both come from the one tier table and the
 * config, as `GET /api` does, so a price is written in one place.
 */

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });

/** How to pay for one tier: the offer of its 402, without the per-request reference. */
export function paymentOption(config: Config, tier: Tier, feePayer: string | undefined) {
  const requirement = paymentRequirement(config, tier, "", feePayer ? { feePayer } : {});
  return {
    scheme: "exact" as const,
    network: caip2Network(config.network),
    network_v1: x402Network(config.network),
    amount: requirement.maxAmountRequired,
    price_usd: priceUsd(tier),
    asset: requirement.asset,
    payTo: requirement.payTo,
    maxTimeoutSeconds: requirement.maxTimeoutSeconds,
    extra: { name: "USDC" as const, decimals: 6 as const, ...(feePayer ? { feePayer } : {}) },
  };
}

const paidTiers = () => TIER_IDS.map((id) => TIERS[id]).filter(isPaid);

export function x402Discovery(config: Config, apiBase: string, feePayer: string | undefined): X402Discovery {
  const origin = apiBase.replace(/\/api$/, "");
  const resources = paidTiers().flatMap((tier) => {
    const accepts = [paymentOption(config, tier, feePayer)];
    const common = {
      method: "POST" as const,
      tier: tier.id,
      description: tier.method,
      mimeType: "application/json" as const,
    };
    return [
      ...tier.endpoints.map((path) => ({
        ...common,
        resource: `${apiBase}${path}`,
        type: "http" as const,
        input: { body: "multipart/form-data" as const, schema: jsonSchema(UploadRequestSchema) },
        accepts,
      })),
      {
        ...common,
        resource: `${apiBase}/chunk`,
        type: "http" as const,
        input: { body: "application/json" as const, schema: jsonSchema(UrlChunkRequestSchema) },
        accepts,
      },
      {
        ...common,
        resource: `${apiBase}/mcp`,
        type: "mcp" as const,
        input: { body: "mcp-tool" as const, tool: "chunk_document", schema: jsonSchema(ChunkDocumentArgsSchema) },
        accepts,
      },
    ];
  });
  return {
    x402Version: 2,
    service: {
      name: "Chunkwise",
      description:
        "Document chunking for RAG: PDF (scanned too, by OCR), images of text, DOCX, PPTX, ODP, XLSX, ODS, CSV, HTML, Markdown and text into retrieval-ready chunks.",
      openapi: `${apiBase}/openapi.json`,
      llms_txt: `${origin}/llms.txt`,
      mcp: `${apiBase}/mcp`,
    },
    resources,
  };
}

export function llmsTxt(config: Config, apiBase: string): string {
  const origin = apiBase.replace(/\/api$/, "");
  const network = `${x402Network(config.network)} (CAIP-2 \`${caip2Network(config.network)}\`)`;
  const tiers = TIER_IDS.map((id) => {
    const tier = TIERS[id];
    const price = isPaid(tier) ? `$${priceUsd(tier)} USDC per request` : `free, ${config.freePagesPerDay} pages a day`;
    return `- **${id}** (${price}${tier.mode === "async" ? ", async job" : ""}): ${tier.method} Endpoints: ${tier.endpoints.map((p) => `\`POST ${apiBase}${p}\``).join(", ")}.`;
  });
  return `# Chunkwise

> Splits documents (PDF, scanned PDF, PNG/JPEG/TIFF/WebP image, DOCX, PPTX, ODP, XLSX, ODS, CSV/TSV, HTML, Markdown, plain text; uploaded or fetched from a URL) into chunks for retrieval pipelines and LLM context windows. Sizes are counted in o200k_base tokens. Paid tiers are paid per request in USDC on Solana through HTTP 402 (x402).

## Tiers

${tiers.join("\n")}

## Endpoints

- \`POST ${apiBase}/chunk/<tier>\`: multipart \`file\` (or \`upload_id\`), optional \`max_tokens\`, \`overlap_tokens\`, \`output_format\` (raw, pinecone, weaviate, chroma, qdrant).
- \`POST ${apiBase}/chunk\`: JSON \`{url or upload_id, tier, max_tokens, overlap_tokens, output_format}\`.
- \`POST ${apiBase}/uploads\`: JSON \`{filename, content_type, size, sha256?}\` starts a two-step upload (see below).
- \`GET ${apiBase}/job/{job_id}/status\` and \`/result\`: jobs (ai-pro, or any tier run with \`async=true\`, as long scans should be).
- \`GET ${apiBase}/results/{result_id}\`: results of 100 chunks or more.
- \`GET ${apiBase}\`: tiers, prices, limits and how to pay, as JSON.

## Large files: two-step uploads

A request body may be refused by the host before the service sees it (on Vercel, over 4.5 MB${config.functionBodyLimitBytes ? `; this server refuses bodies over ${config.functionBodyLimitBytes} bytes` : ""}). For a larger file (up to ${config.limits.maxUploadBytes} bytes):

1. \`POST ${apiBase}/uploads\` with JSON \`{filename, content_type, size, sha256?}\`; the answer has \`upload_id\` and \`target\`.
2. ${config.uploads.target.kind === "blob" ? "This server's target is Vercel Blob (`target.kind` `blob`): upload with `upload(target.pathname, file, {access: target.access, handleUploadUrl: target.handle_upload_url, clientPayload: upload_id})` from `@vercel/blob/client`." : "This server's target is itself (`target.kind` `put`): `PUT` the raw bytes, exactly `size` of them, to `target.url` in one request."}
3. Chunk with \`upload_id\` instead of \`file\` (multipart field) or \`url\` (JSON field), on any tier. A payment binds to the bytes' SHA-256, as for a file sent inline.

An upload expires with results (${Math.round(config.resultTtlSeconds / 60)} minutes); an unknown or expired \`upload_id\` answers 404 \`expired_or_unknown\`.

## How to pay

Network: ${network}; asset: USDC (mint \`${config.usdcMint}\`); pay to \`${config.payTo}\`. Send the request without payment and read the 402:

- x402 v2: the \`PAYMENT-REQUIRED\` header; pay with \`@x402/fetch\` (scheme exact), which sends \`PAYMENT-SIGNATURE\` and reads \`PAYMENT-RESPONSE\`.
- x402 v1: the body's \`accepts\`; \`x402-fetch\` sends \`X-PAYMENT\` and reads \`X-PAYMENT-RESPONSE\`.
- Any wallet: transfer the price to \`payTo\` with \`extra.reference\` in a Memo, then repeat the request with \`X-PAYMENT: <transaction signature>\`.

One payment pays for one request (one document or URL, one tier, one set of options).

## MCP

MCP server (Streamable HTTP): \`${apiBase}/mcp\`, tools \`chunk_document\`, \`create_upload\` (a large file: get an upload target, send the bytes, then \`chunk_document\` with \`upload_id\`), \`list_tiers\`, \`get_job\`, \`get_result\`; paid tiers through x402's MCP transport (\`_meta["x402/payment"]\`).

## Docs

- [API reference](${origin}/docs)
- [OpenAPI document](${apiBase}/openapi.json)
- [x402 discovery](${origin}/.well-known/x402)
`;
}
