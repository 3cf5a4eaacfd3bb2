import { createHash } from "node:crypto";
import { chunkExtracted, methodFor } from "@/lib/chunking";
import type { Chunk, MethodContext } from "@/lib/chunking/types";
import { enrichChunks } from "@/lib/ai/enrich";
import { isAiTier, requireModel } from "@/lib/ai/model-client";
import { startJob } from "@/lib/jobs/runner";
import { badRequest } from "@/lib/errors";
import { extract } from "@/lib/extract";
import { detect } from "@/lib/extract/detect";
import type { Extracted } from "@/lib/extract/types";
import { type OutputFormat, formatChunks } from "@/lib/formats";
import { rateLimitHeaders } from "@/lib/quota";
import { lifetimeText, newResultId } from "@/lib/results";
import type { Services } from "@/lib/services";
import { TIERS, type Tier, type TierId, isPaid } from "@/lib/tiers";
import type { ChunkOptionsInput } from "@/lib/api-schema";
import type { Config } from "@/lib/config";

/** The one path every chunking request takes: input → payment gate → extract → chunk → format → inline or stored. */

export const INLINE_CHUNK_LIMIT = 100;

export type DocumentInput =
  | { kind: "upload"; bytes: Uint8Array; filename?: string; contentType?: string }
  | { kind: "url"; url: string };

export interface ChunkRequest {
  tier: TierId;
  input: DocumentInput;
  options: ChunkOptionsInput;
  /** Client address, for the free quota. */
  client: string;
  paymentHeader?: string;
  /** `<origin>/api`, for `download_url` and the 402 `resource`. */
  apiBase: string;
  /** The path that was called, for the 402 `resource`. */
  resourcePath: string;
}

export interface ResolvedOptions {
  maxTokens: number;
  overlapTokens: number;
  outputFormat: OutputFormat;
}

export function resolveOptions(input: ChunkOptionsInput, chunking: Config["chunking"]): ResolvedOptions {
  const maxTokens = input.max_tokens ?? chunking.defaultMaxTokens;
  if (maxTokens < chunking.minMaxTokens || maxTokens > chunking.maxMaxTokens)
    throw badRequest("invalid_options", `max_tokens must be between ${chunking.minMaxTokens} and ${chunking.maxMaxTokens}.`);
  const overlapTokens = input.overlap_tokens ?? Math.min(chunking.defaultOverlapTokens, Math.floor(maxTokens / 2));
  if (overlapTokens < 0 || overlapTokens * 2 > maxTokens)
    throw badRequest("invalid_options", "overlap_tokens must be between 0 and half of max_tokens.");
  return { maxTokens, overlapTokens, outputFormat: input.output_format ?? "raw" };
}

export interface ChunkingResult {
  success: true;
  tier: TierId;
  total_chunks: number;
  metadata: { filename: string; content_type: string; size_bytes: number; estimated_pages: number; method: string; embedder?: string; ai?: Record<string, unknown>; max_tokens: number; overlap_tokens: number; output_format: OutputFormat };
  /** ai-pro: the whole document in a few sentences (null when the model's answer was unusable). */
  document_summary?: string | null;
  chunks: unknown[];
  payment: { amount: number; asset: "USDC"; network: string; transaction: string | null };
}

export interface ChunkResponse {
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

export interface Loaded {
  bytes: Uint8Array;
  filename: string;
  contentType?: string;
  documentId: string;
}

/** A document ready for extraction, with a stable id from its bytes (record ids in the vector-store formats derive from it). */
export function loaded(source: { bytes: Uint8Array; filename?: string; contentType?: string }): Loaded {
  return {
    bytes: source.bytes,
    // A display name only: never used as a key or a path.
    filename: source.filename?.slice(0, 255) || "document",
    contentType: source.contentType,
    documentId: createHash("sha256").update(source.bytes).digest("hex").slice(0, 32),
  };
}

async function load(services: Services, input: DocumentInput): Promise<Loaded> {
  return loaded(input.kind === "upload" ? input : await services.fetchUrl(input.url));
}

export function extractDocument(doc: Loaded, limits: Config["limits"]): Promise<Extracted> {
  return extract(doc.bytes, { filename: doc.filename, contentType: doc.contentType }, {
    maxUnpackedBytes: limits.maxUnpackedBytes,
    maxChars: limits.maxCharsPerRequest,
    maxPages: limits.maxPagesPerRequest,
    timeoutMs: limits.extractTimeoutMs,
  });
}

/** Chunking, enrichment (ai-pro) and formatting without HTTP, quota or payment: shared by the pipeline, jobs and the command-line entry. */
export async function buildResult(doc: Loaded, extracted: Extracted, tier: TierId, options: ResolvedOptions, context: MethodContext): Promise<Omit<ChunkingResult, "payment">> {
  const { chunks, details } = await chunkExtracted(extracted, tier, { maxTokens: options.maxTokens, overlapTokens: options.overlapTokens }, context);
  if (chunks.length === 0) throw badRequest("empty_document", "The document contains no text to chunk.");
  const enrichment = tier === "ai-pro" ? await enrich(chunks, context) : undefined;
  return {
    success: true,
    tier,
    total_chunks: chunks.length,
    metadata: {
      filename: doc.filename,
      content_type: extracted.mediaType,
      size_bytes: doc.bytes.length,
      estimated_pages: extracted.pageCount,
      method: methodFor(tier),
      ...(tier === "semantic" ? { embedder: context.embedder.id } : {}),
      ...(details ? { ai: { ...details, ...(enrichment ? { unenriched: enrichment.unenriched } : {}) } } : {}),
      max_tokens: options.maxTokens,
      overlap_tokens: options.overlapTokens,
      output_format: options.outputFormat,
    },
    ...(enrichment ? { document_summary: enrichment.documentSummary } : {}),
    chunks: formatChunks(chunks, options.outputFormat, { documentId: doc.documentId, filename: doc.filename, tier, maxTokens: options.maxTokens, overlapTokens: options.overlapTokens }),
  };
}

/** ai-pro: each chunk's summary and entities into its metadata; the document's summary returned. */
async function enrich(chunks: Chunk[], context: MethodContext) {
  const enrichment = await enrichChunks(chunks, requireModel(context.models, "ai-pro"), { concurrency: context.modelConcurrency ?? 4, progress: context.progress, signal: context.signal });
  enrichment.annotations.forEach((annotation, i) => {
    if (annotation) Object.assign(chunks[i]!.metadata, annotation);
  });
  return enrichment;
}

export async function runChunkRequest(services: Services, request: ChunkRequest): Promise<ChunkResponse> {
  const tier = TIERS[request.tier];
  const options = resolveOptions(request.options, services.config.chunking);
  // A tier this server cannot run, or an upload of a type no tier reads, is refused before any payment is asked for.
  if (isAiTier(tier.id)) requireModel(services.models, tier.id);
  if (request.input.kind === "upload") await detect(request.input.bytes, request.input);
  return isPaid(tier) ? runPaid(services, request, tier, options) : runFree(services, request, tier, options);
}

async function runFree(services: Services, request: ChunkRequest, tier: Tier, options: ResolvedOptions): Promise<ChunkResponse> {
  const { config, quota } = services;
  // Refuse an exhausted client before fetching or parsing anything.
  await quota.assertAvailable(request.client);
  const doc = await load(services, request.input);
  const extracted = await extractDocument(doc, config.limits);
  // The page count is known once extracted; the pages are taken before the chunking work and given back if it fails.
  const reservation = await quota.reserve(request.client, extracted.pageCount);
  try {
    const payment = { amount: 0, asset: "USDC" as const, network: config.network, transaction: null };
    return await respond(services, request, { doc, extracted, tier, options, payment }, rateLimitHeaders(reservation));
  } catch (error) {
    await reservation.refund().catch((refundError: unknown) => console.error("Quota refund failed", refundError));
    throw error;
  }
}

/** What a payment reference binds to: the uploaded bytes' hash, or the URL (known before fetching). */
function documentBinding(input: DocumentInput): string {
  return input.kind === "upload" ? `sha256:${createHash("sha256").update(input.bytes).digest("hex")}` : `url:${input.url}`;
}

async function runPaid(services: Services, request: ChunkRequest, tier: Tier, options: ResolvedOptions): Promise<ChunkResponse> {
  const document = documentBinding(request.input);
  const requestKey = createHash("sha256").update(JSON.stringify([tier.id, document, options])).digest("hex");
  const admission = await services.payments.admit({
    tier,
    document,
    request: requestKey,
    header: request.paymentHeader,
    resource: `${request.apiBase}${request.resourcePath}`,
  });
  if (admission.kind === "replay") return admission.response;

  const { receipt, claim } = admission;
  const payment = { amount: Number(receipt.amount), asset: "USDC" as const, network: services.config.network, transaction: receipt.transaction };
  try {
    if (tier.mode === "async") {
      const body = await startJob(services, { input: request.input, options, apiBase: request.apiBase, payment, paymentRequest: requestKey });
      // The payment bought the job: a retry with it gets this job again; a failed job releases it.
      const response = { body, headers: receipt.headers };
      await claim.complete(response);
      return response;
    }
    const doc = await load(services, request.input);
    const extracted = await extractDocument(doc, services.config.limits);
    const response = await respond(services, request, { doc, extracted, tier, options, payment }, receipt.headers);
    await claim.complete(response);
    return response;
  } catch (error) {
    // The work failed, so the payment bought nothing: free it for a retry.
    await claim.release().catch((releaseError: unknown) => console.error("Payment release failed", releaseError));
    throw error;
  }
}

interface Work {
  doc: Loaded;
  extracted: Extracted;
  tier: Tier;
  options: ResolvedOptions;
  payment: ChunkingResult["payment"];
}

/** Chunks, then answers inline or stores the result behind a `download_url`. */
async function respond(services: Services, request: ChunkRequest, work: Work, headers: Record<string, string>): Promise<ChunkResponse> {
  const { config, results } = services;
  const context = { embedder: services.embedder, models: services.models, modelConcurrency: config.ai.concurrency };
  const result: ChunkingResult = { ...(await buildResult(work.doc, work.extracted, work.tier.id, work.options, context)), payment: work.payment };
  if (result.total_chunks < INLINE_CHUNK_LIMIT) return { body: { ...result }, headers };

  const resultId = newResultId(work.tier.resultPrefix);
  await results.save(resultId, { ...result, result_id: resultId });
  const { chunks: _stored, ...summary } = result;
  return {
    body: { ...summary, result_id: resultId, download_url: `${request.apiBase}/results/${resultId}`, expires_in: lifetimeText(config.resultTtlSeconds) },
    headers,
  };
}
