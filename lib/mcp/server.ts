import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from "@x402/core/http";
import { z } from "zod";
import { apiInfo } from "@/lib/service-info/api-info";
import {
  type ChunkDocumentArgs,
  ChunkDocumentArgsSchema,
  ChunkDocumentsArgsSchema,
  CreateUploadRequestSchema,
  JobIdSchema,
} from "@/lib/api-schema";
import { tooManyRequests } from "@/lib/quota/client-slots";
import { ApiError } from "@/lib/ground/errors";
import { answerOnce, type IdempotentAsk } from "@/lib/idempotency/answer-once";
import { checkedKey } from "@/lib/idempotency/key";
import { jobResult, jobStatus } from "@/lib/jobs/status";
import type { PaymentHeader } from "@/lib/payments/payment-header";
import { type ChunkResponse, type DocumentInput, runChunkRequest } from "@/lib/pipeline";
import { runBatchRequest } from "@/lib/batch/batch-request";
import type { Services } from "@/lib/services/types";
import packageJson from "@/package.json";

/**
 * The MCP server at `/api/mcp`: the chunking API as tools for agents in MCP
 * clients. Stateless (one server per HTTP request), so it runs as a
 * serverless function. Paid tiers follow x402's MCP transport: an unpaid
 * call answers `isError` with the v2 `PaymentRequired` as structured
 * content; the client calls again with the payment in
 * `_meta["x402/payment"]` and gets the settlement in
 * `_meta["x402/payment-response"]`. Everything goes through the same
 * pipeline, quota, payment rules and ledger as HTTP.
 */

export interface McpCaller {
  /** The client key (lib/http/client-address.ts), for the free quota and unpaid references. */
  client: string;
  /** `<origin>/api`. */
  apiBase: string;
}

const PAYMENT_META = "x402/payment";
const PAYMENT_RESPONSE_META = "x402/payment-response";

const asText = (value: unknown) => JSON.stringify(value, null, 2);

const success = (body: Record<string, unknown>, meta?: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: asText(body) }],
  structuredContent: body,
  ...(meta ? { _meta: meta } : {}),
});

/** An ApiError as a tool error: a 402 carries the v2 `PaymentRequired`, anything else the API's error body. */
function failure(error: unknown): CallToolResult {
  if (!(error instanceof ApiError)) throw error;
  const required = error.status === 402 ? error.headers?.["PAYMENT-REQUIRED"] : undefined;
  const body = required ? decodePaymentRequiredHeader(required) : (error.body ?? error.standardBody());
  return { isError: true, content: [{ type: "text", text: asText(body) }], structuredContent: body };
}

const MAX_BASE64_CHARS = (bytes: number) => Math.ceil(bytes / 3) * 4 + 4;

function documentInput(args: ChunkDocumentArgs, maxUploadBytes: number): DocumentInput {
  const given = [args.url, args.text, args.file_base64, args.upload_id].filter((v) => v !== undefined).length;
  if (given !== 1) throw new ApiError("invalid_request", "Give exactly one of url, text, file_base64 or upload_id.");
  if (args.url !== undefined) return { kind: "url", url: args.url };
  if (args.upload_id !== undefined) return { kind: "uploaded", uploadId: args.upload_id };
  if (args.text !== undefined)
    return { kind: "upload", bytes: new TextEncoder().encode(args.text), filename: args.filename ?? "document.md" };
  const base64 = args.file_base64!;
  if (base64.length > MAX_BASE64_CHARS(maxUploadBytes))
    throw new ApiError("file_too_large", `The file is over ${maxUploadBytes} bytes.`);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) throw new ApiError("invalid_request", "file_base64 is not base64.");
  if (!args.filename) throw new ApiError("invalid_request", "file_base64 needs its filename.");
  return { kind: "upload", bytes: new Uint8Array(Buffer.from(base64, "base64")), filename: args.filename };
}

/** The x402 payload an MCP client puts in `_meta`, as the header the HTTP path reads. */
function paymentOf(meta: Record<string, unknown> | undefined): PaymentHeader | undefined {
  const payload = meta?.[PAYMENT_META];
  if (payload === undefined) return undefined;
  if (typeof payload !== "object" || payload === null)
    throw new ApiError("payment_invalid", `_meta["${PAYMENT_META}"] must be an x402 v2 payment payload object.`);
  return {
    name: "PAYMENT-SIGNATURE",
    value: encodePaymentSignatureHeader(payload as Parameters<typeof encodePaymentSignatureHeader>[0]),
  };
}

export function createMcpServer(services: Services, caller: McpCaller): McpServer {
  const server = new McpServer({ name: "chunkwise", version: packageJson.version });

  /**
   * A chunking call: under one of the client's places for requests in progress (as an HTTP request takes one,
   * lib/http/chunk-handlers.ts; the instance's place is taken in the pipeline, right before the work), answered
   * once per idempotency key, with the x402 settlement in `_meta`.
   */
  async function paidCall(
    idempotencyKey: string | undefined,
    ask: Omit<IdempotentAsk, "key">,
    run: () => Promise<ChunkResponse>,
  ): Promise<CallToolResult> {
    const key = idempotencyKey === undefined ? undefined : checkedKey(idempotencyKey, "idempotency_key");
    const slots = services.clientRequests;
    const { body, headers } = await slots.holding(
      caller.client,
      () => tooManyRequests(slots.limit),
      () => answerOnce(services, { ...ask, key }, run),
    );
    const settlement = headers["PAYMENT-RESPONSE"];
    return success(body, settlement ? { [PAYMENT_RESPONSE_META]: decodePaymentResponseHeader(settlement) } : undefined);
  }

  server.registerTool(
    "chunk_document",
    {
      title: "Chunk a document",
      description:
        "Split a document (a URL, text, or a base64 file: PDF, scanned PDF or image of text (read by OCR), DOCX, PPTX and ODP (slides, speaker notes unless include_notes is false), XLSX, ODS, ODT, RTF, EPUB (page_start = chapter), e-mail EML/MSG (headers and attachment names on every chunk), CSV/TSV (one table per sheet), HTML, Markdown, text) into chunks for retrieval and LLM context windows. Tiers: free (recursive), structure (code, tables, lists kept whole; default), semantic, ai, ai-pro (always a job; any tier is one with async: true, as long scans should be). Paid tiers are paid in USDC on Solana through x402: an unpaid call returns the payment requirements. A file too large to send inline (base64 in a tool call, or over the host's request body limit: Vercel 4.5 MB): call create_upload, send the bytes where it answers (HTTP PUT of the raw bytes to target.url), then call this tool with upload_id. On ai and ai-pro, context: true adds a model-written sentence situating each chunk in its document to embed_text. idempotency_key: the same key and request answer the stored result again, without a second charge.",
      inputSchema: ChunkDocumentArgsSchema,
    },
    async (args, extra) => {
      try {
        const {
          url: _url,
          text: _text,
          file_base64: _file,
          upload_id: _upload,
          filename: _name,
          idempotency_key: idempotencyKey,
          tier,
          ...options
        } = args;
        const input = documentInput(args, services.config.limits.maxUploadBytes);
        const ask = { tier, options, client: caller.client, payment: paymentOf(extra._meta) };
        return await paidCall(idempotencyKey, { ...ask, input }, () =>
          runChunkRequest(services, {
            ...ask,
            input,
            apiBase: caller.apiBase,
            resourcePath: "/mcp",
            resourceKind: "mcp",
          }),
        );
      } catch (error) {
        return failure(error);
      }
    },
  );

  server.registerTool(
    "chunk_documents",
    {
      title: "Chunk several documents",
      description:
        "Chunk a batch of documents (each a URL, or text with its filename) in one job, paid once: each document is checked first (fetched, type detected, pages counted) and only those that pass are charged, the tier's price each. The answer lists every document's state and the job_id; poll get_job (per-document progress), then get_result (every chunk names its document). Paid tiers are paid through x402: an unpaid call returns the payment requirements for the whole batch. idempotency_key works as on chunk_document.",
      inputSchema: ChunkDocumentsArgsSchema,
    },
    async (args, extra) => {
      try {
        const { documents, tier, idempotency_key: idempotencyKey, ...options } = args;
        const inputs = documents.map((document): DocumentInput =>
          "url" in document
            ? { kind: "url", url: document.url }
            : { kind: "upload", bytes: new TextEncoder().encode(document.text), filename: document.filename },
        );
        const ask = { tier, options, client: caller.client, payment: paymentOf(extra._meta) };
        return await paidCall(idempotencyKey, { ...ask, input: inputs }, () =>
          runBatchRequest(services, {
            ...ask,
            documents: inputs,
            apiBase: caller.apiBase,
            resourcePath: "/mcp",
            resourceKind: "batch-mcp",
          }),
        );
      } catch (error) {
        return failure(error);
      }
    },
  );

  server.registerTool(
    "create_upload",
    {
      title: "Start a two-step upload",
      description:
        "For a large file (up to the server's max_bytes, 25 MB by default): declares it and answers an upload_id and where to send the bytes. target.kind 'put': HTTP PUT the raw bytes to target.url in one request (exactly `size` bytes). target.kind 'blob': upload with @vercel/blob/client's upload(target.pathname, file, {access: target.access, handleUploadUrl: target.handle_upload_url, clientPayload: upload_id}). Then call chunk_document with upload_id (any tier; paid tiers bind the payment to the bytes' SHA-256). Uploads expire with results.",
      inputSchema: CreateUploadRequestSchema,
    },
    async (args) => {
      try {
        return success({ ...(await services.uploads.create(args, caller.client, caller.apiBase)) });
      } catch (error) {
        return failure(error);
      }
    },
  );

  server.registerTool(
    "list_tiers",
    {
      title: "List the tiers",
      description: "The tiers with their method, price in USDC, mode and whether this server can run them now.",
      inputSchema: z.object({}),
    },
    async () => {
      const info = apiInfo(services.config, caller.apiBase, { feePayer: await services.payments.feePayer() });
      return success({ tiers: info.tiers, payment: info.payment });
    },
  );

  const jobArgs = z.object({ job_id: JobIdSchema });
  server.registerTool(
    "get_job",
    {
      title: "A job's status",
      description:
        "Status and progress of a job started by chunk_document (ai-pro, or any tier with async=true); poll every second or two.",
      inputSchema: jobArgs,
    },
    async ({ job_id }) => {
      try {
        return success({ ...(await jobStatus(services, job_id)) });
      } catch (error) {
        return failure(error);
      }
    },
  );

  server.registerTool(
    "get_result",
    {
      title: "A job's result",
      description: "The chunks of a completed job.",
      inputSchema: jobArgs,
    },
    async ({ job_id }) => {
      try {
        return success(JSON.parse(await jobResult(services, job_id)) as Record<string, unknown>);
      } catch (error) {
        return failure(error);
      }
    },
  );

  return server;
}
