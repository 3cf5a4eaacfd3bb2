import { sha256Hex } from "@/lib/ground/sha256";
import { createHash } from "node:crypto";
import { answerCache } from "@/lib/ai/answer-cache";
import { modelConcurrency, requireModel } from "@/lib/ai/model-client";
import {
  type Loaded,
  type ResolvedOptions,
  buildResult,
  extractDocument,
  loaded,
  refuseContextWithoutModel,
  resolveOptions,
  resultJson,
  withOcrLanguages,
} from "@/lib/pipeline/chunk-result";
import { ApiError } from "@/lib/ground/errors";
import { paymentRequired } from "@/lib/payments/payment-required";
import { type Detected, detect } from "@/lib/extract/detect";
import type { Extracted } from "@/lib/extract/types";
import { mainThreadTurn } from "@/lib/ground/main-thread-turns";
import { startJob } from "@/lib/jobs/runner";
import { type HeldSlot, tooManyJobs } from "@/lib/quota/client-slots";
import { estimatePages } from "@/lib/extract/page-count";
import { type Reservation, pagesGoBack, rateLimitHeaders } from "@/lib/quota/free-quota";
import { newResultId } from "@/lib/results";
import { lifetimeText } from "@/lib/ground/wording";
import type { PaymentHeader } from "@/lib/payments/payment-header";
import type { ResourceKind } from "@/lib/payments/x402/v2";
import type { Services } from "@/lib/services/types";
import { TIERS, type Tier, type TierId, isPaid } from "@/lib/tiers";
import type { ChunkOptions, ChunkingResult } from "@/lib/api-schema";
import type { JobWebhook } from "@/lib/webhooks/job-webhook";
import {
  logFault,
  paymentReleased,
  paymentReplayed,
  paymentSettled,
  paymentVerified,
} from "@/lib/observability/events";
import { noteTier } from "@/lib/observability/request-scope";
import { INLINE_CHUNK_LIMIT } from "@/lib/ground/limits";

/**
 * The one path every chunking request takes: input → quota or payment gate → extract → chunk → format →
 * inline, stored, or a job (ai-pro, or any tier with `async=true`). The instance's place (`CpuPool.admitted`,
 * 503 `busy`) is taken right before the work, after the payment is verified or the free pages are taken; a job
 * takes none (jobs extract in their own share), but its client's place among its active jobs.
 */

/** A file sent with the request, a URL to fetch, or a two-step upload named by its id (read before anything else). */
export type DocumentInput =
  | { kind: "upload"; bytes: Uint8Array; filename?: string; contentType?: string }
  | { kind: "url"; url: string }
  | { kind: "uploaded"; uploadId: string };

/** The request's input with its document read, if it names one by `upload_id`. */
type ReadInput = Exclude<DocumentInput, { kind: "uploaded" }>;

export interface ChunkRequest<Input extends DocumentInput = DocumentInput> {
  tier: TierId;
  input: Input;
  options: ChunkOptions;
  /** Client address, for the free quota. */
  client: string;
  payment?: PaymentHeader;
  /** `<origin>/api`, for `download_url` and the 402 `resource`. */
  apiBase: string;
  /** The path that was called, for the 402 `resource`. */
  resourcePath: string;
  /** How it was called, for the 402's discovery metadata; by default the HTTP endpoint of the input's kind. */
  resourceKind?: ResourceKind;
}

export interface ChunkResponse {
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** A request with what its upload was found to be before payment or quota (so its bytes are decoded and hashed once). */
interface Checked extends ChunkRequest<ReadInput> {
  detected?: Detected;
  /** A job asked with `webhook_url`: its URL checked, its secret made. */
  webhook?: JobWebhook;
}

/** The document, loaded and extracted; the extraction takes a main-thread turn of its own. */
async function prepare(
  services: Pick<Services, "config" | "cpu" | "fetchUrl">,
  request: Checked,
  options: ResolvedOptions,
): Promise<{ doc: Loaded; extracted: Extracted }> {
  const doc = await load(services, request);
  await mainThreadTurn();
  return {
    doc,
    extracted: await extractDocument(doc, withOcrLanguages(services.config, options), services.cpu, undefined, options),
  };
}

export async function runChunkRequest(services: Services, request: ChunkRequest): Promise<ChunkResponse> {
  const tier = TIERS[request.tier];
  noteTier(tier.id);
  const options = resolveOptions(request.options, services.config.chunking);
  refuseContextWithoutModel(tier, options);
  // A tier this server cannot run, or an upload of a type no tier reads, is refused before any payment is asked for.
  if (tier.model) requireModel(services.models, tier);
  // A two-step upload is read first and from then on is an upload like any other: the same checks, the same binding.
  const input: ReadInput =
    request.input.kind === "uploaded"
      ? { kind: "upload", ...(await services.uploads.read(request.input.uploadId)) }
      : request.input;
  const checked: Checked = { ...request, input, webhook: await acceptWebhook(services, tier, request) };
  if (input.kind === "upload") {
    // Decoding an upload reads all of it: on a main-thread turn of its own, like the extraction.
    await mainThreadTurn();
    checked.detected = await detect(input.bytes, input, services.config.limits.maxCharsPerRequest);
  }
  return isPaid(tier) ? runPaid(services, checked, tier, options) : runFree(services, checked, tier, options);
}

async function runFree(
  services: Services,
  request: Checked,
  tier: Tier,
  options: ResolvedOptions,
): Promise<ChunkResponse> {
  const { config, quota } = services;
  // Refuse an exhausted client before fetching or parsing anything.
  await quota.assertAvailable(request.client);
  const payment = { amount: 0, asset: "USDC" as const, network: config.network, transaction: null };
  if (runsAsJob(tier, request)) {
    // A job's place and its pages are taken when it is accepted: a client with two pages left cannot queue six.
    return acceptJob(services, request.client, async (slot) => {
      const doc = await load(services, request);
      const reservation = await takeCountedPages(services, request.client, doc);
      try {
        const body = await startJob(services, {
          tier: tier.id,
          // A URL is fetched here, to count its pages; the job reads the bytes fetched.
          input: { kind: "upload", bytes: doc.bytes, filename: doc.filename, contentType: doc.contentType },
          options,
          apiBase: request.apiBase,
          payment,
          client: request.client,
          freePages: reservation,
          slot,
          webhook: request.webhook,
        });
        return { body, headers: rateLimitHeaders(reservation) };
      } catch (error) {
        await reservation.refund().catch((refundError: unknown) => logFault("Quota refund failed", refundError));
        throw error;
      }
    });
  }
  const doc = await load(services, request);
  // The pages are taken from a cheap count before extraction or OCR, and settled to the exact count after it.
  const reservation = await takeCountedPages(services, request.client, doc);
  try {
    const answer = await services.cpu.admitted(async () => {
      await mainThreadTurn();
      const extracted = await extractDocument(doc, withOcrLanguages(config, options), services.cpu, undefined, options);
      await reservation.settle(extracted.pageCount);
      return chunk(services, request, { doc, extracted, tier, options });
    });
    return await answer.make(payment, rateLimitHeaders(reservation));
  } catch (error) {
    if (pagesGoBack(error))
      await reservation.refund().catch((refundError: unknown) => logFault("Quota refund failed", refundError));
    throw error;
  }
}

/**
 * The free pages of `doc`, counted cheaply (lib/extract/page-count.ts) and taken. A document the count already
 * refuses as the client's fault (damaged, encrypted, too many pages) costs one page, as far as the day has one:
 * opening it was work, and resending it must not be free.
 */
async function takeCountedPages(services: Services, client: string, doc: Loaded): Promise<Reservation> {
  const { limits } = services.config;
  let pages: number;
  try {
    // A fetched document is detected here (an upload was before the quota): once, kept for the extraction.
    doc.detected ??= await detect(doc.bytes, doc, limits.maxCharsPerRequest);
    pages = await estimatePages(doc.bytes, doc.detected, {
      maxPages: limits.maxPagesPerRequest,
      timeoutMs: limits.extractTimeoutMs,
    });
  } catch (error) {
    if (!pagesGoBack(error)) await services.quota.reserve(client, 1).catch(() => undefined);
    throw error;
  }
  return services.quota.reserve(client, pages);
}

/**
 * Runs `accept` holding a new place among the client's active jobs (429 `too_many_jobs` when it has none left),
 * before any payment is settled or page taken. The accepted job keeps the place (it is in the job's record);
 * a refusal frees it.
 */
export async function acceptJob<T>(
  services: Services,
  client: string,
  accept: (slot: HeldSlot) => Promise<T>,
): Promise<T> {
  const slot = await services.clientJobs.take(client);
  if (!slot) throw tooManyJobs(services.clientJobs.limit);
  try {
    return await accept(slot);
  } catch (error) {
    await services.clientJobs.release(slot).catch(() => undefined);
    throw error;
  }
}

/** The document of a request: its upload (detected already), or its URL fetched. */
async function load(services: Pick<Services, "fetchUrl">, request: Checked): Promise<Loaded> {
  const { input } = request;
  return input.kind === "upload" ? loaded(input, request) : loaded(await services.fetchUrl(input.url));
}

/**
 * A request's `webhook_url`, checked before any payment or page is taken. Refused on a synchronous request rather
 * than making it a job: the client chose an answer with the chunks in it, and a job is another answer (and
 * another purchase); its webhook would only repeat what the response already said.
 */
async function acceptWebhook(
  services: Pick<Services, "webhooks">,
  tier: Tier,
  request: ChunkRequest,
): Promise<JobWebhook | undefined> {
  const url = request.options.webhook_url;
  if (url === undefined) return undefined;
  if (!runsAsJob(tier, request))
    throw new ApiError(
      "invalid_options",
      `webhook_url is for jobs: the ${tier.id} tier answers this request with its chunks. Add async=true to run it as a job whose end is POSTed to webhook_url.`,
    );
  return services.webhooks.accept(url);
}

/** ai-pro always runs as a job; any tier does when asked with `async=true`. */
const runsAsJob = (tier: Tier, request: ChunkRequest) => tier.mode === "async" || request.options.async === true;

/** What a payment reference binds to: the uploaded bytes' hash, or the URL (known before fetching). */
function documentBinding(request: Checked): string {
  const { input } = request;
  return input.kind === "upload" ? `sha256:${sha256Hex(input.bytes)}` : `url:${input.url}`;
}

async function runPaid(
  services: Services,
  request: Checked,
  tier: Tier,
  options: ResolvedOptions,
): Promise<ChunkResponse> {
  const document = documentBinding(request);
  const asJob = runsAsJob(tier, request);
  // The same document, tier and options asked as a job is another purchase than asked synchronously (ai-pro always is one).
  const requestKey = createHash("sha256")
    .update(JSON.stringify([tier.id, document, options, ...(asJob && tier.mode === "sync" ? ["async"] : [])]))
    .digest("hex");
  const admission = await services.payments.admit({
    client: request.client,
    tier,
    document,
    request: requestKey,
    payment: request.payment,
    resource: `${request.apiBase}${request.resourcePath}`,
    resourceKind: request.resourceKind ?? (request.input.kind === "url" ? "json" : "form-data"),
  });
  if (admission.kind === "refused") throw paymentRequired(admission);
  if (admission.kind === "replay") {
    paymentReplayed({ tier: tier.id });
    return admission.response;
  }

  const { receipt, claim } = admission;
  const payer = { tier: tier.id, payer: receipt.payer, header: request.payment?.name };
  paymentVerified({ ...payer, amount: receipt.amount });
  const settle = async () => {
    const settled = await admission.settle();
    if (settled.kind === "refused") throw paymentRequired(settled);
    paymentSettled({ ...payer, amount: settled.receipt.amount, transaction: settled.receipt.transaction });
    return settled.receipt;
  };
  const paymentOf = (paid: typeof receipt) => ({
    amount: Number(paid.amount),
    asset: "USDC" as const,
    network: services.config.network,
    transaction: paid.transaction,
  });
  let computed: ChunkResponse | undefined;
  try {
    if (asJob) {
      // A job is bought when it is accepted: its client's place first, then the money moves; a failed job
      // releases the payment.
      return await acceptJob(services, request.client, async (slot) => {
        const settled = await settle();
        const body = await startJob(services, {
          tier: tier.id,
          input: request.input,
          options,
          apiBase: request.apiBase,
          payment: paymentOf(settled),
          paymentRequest: requestKey,
          slot,
          webhook: request.webhook,
        });
        const response = { body, headers: settled.headers };
        await claim.complete(response);
        return response;
      });
    }
    // Work that an earlier payment bought but could not settle is answered at once.
    const kept = await services.computedResults.find(requestKey);
    const answerNow = async (): Promise<Answer> =>
      kept
        ? { inline: true, make: async (payment, headers) => ({ body: { ...kept.body, payment }, headers }) }
        : // The instance's place is taken only now, with the payment verified: chain polling holds none.
          await services.cpu.admitted(() => work(services, request, tier, options));
    let settled: typeof receipt;
    let answer: Answer;
    if (admission.settleFirst) {
      // Work that costs money, or a payer that let a payment fail after its work: the money moves first, and failed work releases the payment for a retry.
      settled = await settle();
      answer = await answerNow();
    } else {
      answer = await answerNow();
      try {
        settled = await settle();
      } catch (error) {
        // An answer given inline is kept for the next payment of this request; a stored one would name this payment.
        if (answer.inline) computed = await answer.make(paymentOf(receipt), receipt.headers);
        throw error;
      }
    }
    // Only now is the transaction known on every path (a facilitator names it when it settles).
    const response = await answer.make(paymentOf(settled), settled.headers);
    await claim.complete(response);
    await services.computedResults.forget(requestKey);
    return response;
  } catch (error) {
    // The work failed or the money did not move, so the payment bought nothing: free it for a retry.
    await claim.release().then(
      () => paymentReleased({ tier: tier.id, reason: error instanceof ApiError ? error.code : "internal_error" }),
      (releaseError: unknown) => logFault("Payment release failed", releaseError),
    );
    if (computed) await services.computedResults.keep(requestKey, computed);
    throw error;
  }
}

/** A chunked document waiting for its answer: inline, or stored behind a `download_url`, with the payment it carries. */
interface Answer {
  /** Answered with the chunks in the body (else stored, which writes the result). */
  inline: boolean;
  make: (payment: ChunkingResult["payment"], headers: Record<string, string>) => Promise<ChunkResponse>;
}

async function work(services: Services, request: Checked, tier: Tier, options: ResolvedOptions): Promise<Answer> {
  return chunk(services, request, { ...(await prepare(services, request, options)), tier, options });
}

interface Work {
  doc: Loaded;
  extracted: Extracted;
  tier: Tier;
  options: ResolvedOptions;
}

/** Chunks; the answer, inline or stored behind a `download_url`, is made once the payment is known. */
async function chunk(
  services: Pick<Services, "config" | "cpu" | "embedder" | "models" | "results" | "store">,
  request: ChunkRequest,
  work: Work,
): Promise<Answer> {
  const { config, results } = services;
  const context = {
    embedder: services.embedder,
    models: services.models,
    modelConcurrency: modelConcurrency(config.ai, work.tier),
    situating: { ...config.ai.context, cache: answerCache(services) },
    cpu: services.cpu,
  };
  const { chunksJson, ...summary } = await buildResult(work.doc, work.extracted, work.tier.id, work.options, context);
  // Few chunks: parsed back for the answer (small); many: stored as the worker wrote them.
  if (summary.total_chunks < INLINE_CHUNK_LIMIT) {
    const chunks = JSON.parse(chunksJson) as ChunkingResult["chunks"];
    return {
      inline: true,
      make: async (payment, headers) => {
        const result: ChunkingResult = { ...summary, chunks, payment };
        return { body: { ...result }, headers };
      },
    };
  }
  const make: Answer["make"] = async (payment, headers) => {
    const resultId = newResultId(work.tier.resultPrefix);
    const stored = { ...summary, payment, result_id: resultId };
    await results.save(resultId, resultJson(stored, chunksJson));
    return {
      body: {
        ...stored,
        download_url: `${request.apiBase}/results/${resultId}`,
        expires_in: lifetimeText(config.resultTtlSeconds),
      },
      headers,
    };
  };
  return { inline: false, make };
}
