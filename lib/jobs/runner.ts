/**
 * The life of an async job (ai-pro's, or any tier's asked with `async=true`):
 * accepted, worked on in slices, `completed` or `failed`; visible through its
 * status and result (lib/jobs/status.ts).
 *
 * A job's work is a sequence of slices, each a step the engine delivers
 * (lib/jobs/engine.ts: QStash, or this process) for the job's cursor. A slice
 * claims the job (a compare-and-set on its record, which holds the lease),
 * then does the work from the start, taking what earlier slices stored
 * (lib/jobs/job-memo.ts: a PDF's parsed pages, OCR'd pages, model answers)
 * instead of doing it again, and starts no page or model call that would not end before its
 * deadline (`JOB_SLICE_MS`, lib/jobs/slice-clock.ts). When its time is up it
 * moves the cursor on and publishes the next slice; a worker that dies loses
 * only what its slice had not stored. A stale or duplicate delivery finds the
 * cursor moved, or the slice claimed, and does nothing.
 *
 * The worker renews its lease while it works; a poll after it lapses takes
 * the job over (lib/jobs/status.ts). A job whose workers keep dying fails
 * after `maxAttempts`. A failed job releases its payment, so the client can
 * retry with the same X-PAYMENT; a free job's pages, taken when it was
 * accepted, are given back only when the service failed it.
 *
 * A job holds its client's place among its active jobs (lib/quota/client-slots.ts)
 * from acceptance to its end, and extracts in the jobs' share of the CPU
 * (`CpuPool.jobExtraction`, `forJobs`), so jobs never starve requests.
 */
import { randomUUID } from "node:crypto";
import { answerCache } from "@/lib/ai/answer-cache";
import { DEFAULT_BATCHES } from "@/lib/ai/enrich";
import { modelConcurrency, wrapModelClients } from "@/lib/ai/model-client";
import type { JobAccepted } from "@/lib/api-schema";
import type { ErrorCode } from "@/lib/ground/error-codes";
import { ApiError } from "@/lib/ground/errors";
import type { ModelProgress } from "@/lib/ai/tier-boundaries";
import { buildResult, loaded, type ResolvedOptions, resultJson } from "@/lib/pipeline/chunk-result";
import { newResultId } from "@/lib/results";
import { lifetimeText } from "@/lib/ground/wording";
import type { HeldSlot } from "@/lib/quota/client-slots";
import { type TakenPages, pagesGoBack } from "@/lib/quota/free-quota";
import type { Services } from "@/lib/services/types";
import { JobHandle } from "@/lib/jobs/job-handle";
import { TIERS, type TierId, isPaid } from "@/lib/tiers";
import type { StepOutcome } from "./engine";
import { extractForJob } from "./job-extraction";
import { JobMemo } from "./job-memo";
import { type BatchMember, type JobRecord, type JobVersion, jobExpired, newJobId, remainingMs } from "./job-store";
import { SliceClock, SliceEnd } from "./slice-clock";
import { abandon, freeSlot, giveBack, publishSlice, statusBody, statusUrl } from "./status";
import type { JobWebhook } from "@/lib/webhooks/job-webhook";
import { jobEvent, logFault } from "@/lib/observability/events";
import { batchWork } from "@/lib/batch/batch-job";

export interface NewJob {
  tier: TierId;
  input:
    | { kind: "upload"; bytes: Uint8Array; filename?: string; contentType?: string }
    | { kind: "url"; url: string }
    /** A batch: each document's state, and the accepted ones' bytes, numbered by their `input`. */
    | { kind: "batch"; documents: BatchMember[]; uploads: Uint8Array[] };
  options: ResolvedOptions;
  apiBase: string;
  payment: JobRecord["work"]["payment"];
  /** Paid tiers: the ledger's request key. */
  paymentRequest?: string;
  /** Free tier: whose daily pages the job took. */
  client?: string;
  /** Free tier: the pages taken at acceptance (from the cheap count). */
  freePages?: TakenPages;
  /** The client's place among its active jobs, taken before the job was paid for or its pages taken. */
  slot?: HeldSlot;
  /** Asked with `webhook_url` (lib/webhooks/): POSTed to when the job ends; its secret is answered once, here. */
  webhook?: JobWebhook;
}

/** Records the job and schedules its work; what `POST /chunk/ai-pro` (or any tier with `async=true`) answers. */
export async function startJob(services: Services, job: NewJob): Promise<JobAccepted> {
  const now = Date.now();
  const { input } = job;
  const record: JobRecord = {
    job_id: newJobId(job.tier),
    status: "processing",
    progress: 0,
    message: "Queued",
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + services.config.resultTtlSeconds * 1000).toISOString(),
    attempts: 1,
    cursor: 0,
    // Waiting for its first slice's delivery: a poll after the lease lapses publishes it again.
    lease_owner: "",
    lease_until: now + services.config.jobs.leaseMs,
    work: {
      tier: job.tier,
      input:
        input.kind === "upload"
          ? { kind: "upload", filename: input.filename, contentType: input.contentType }
          : input.kind === "batch"
            ? { kind: "batch" }
            : input,
      options: job.options,
      api_base: job.apiBase,
      payment: job.payment,
      ...(job.paymentRequest === undefined ? {} : { payment_request: job.paymentRequest }),
      ...(job.client === undefined ? {} : { client: job.client }),
    },
    ...(job.freePages ? { free_pages: { pages: job.freePages.pages, taken_at: job.freePages.takenAt } } : {}),
    ...(job.slot ? { client_slot: job.slot } : {}),
    ...(job.webhook ? { webhook: job.webhook } : {}),
    ...(input.kind === "batch" ? { batch: { documents: input.documents } } : {}),
  };
  await services.jobs.create(
    record,
    input.kind === "upload" ? input.bytes : undefined,
    input.kind === "batch" ? input.uploads : undefined,
  );
  await publishSlice(services, record);
  jobEvent("accepted", { job_id: record.job_id, tier: job.tier });
  return {
    success: true,
    async: true,
    job_id: record.job_id,
    status: "processing",
    status_url: statusUrl(record),
    ...(job.webhook ? { webhook_secret: job.webhook.secret } : {}),
  };
}

/** Text one enrichment call takes (about 4 characters a token), for the estimate of calls before the chunks exist. */
const CHARS_PER_ENRICHMENT_CALL = DEFAULT_BATCHES.maxTokens * 4;

/**
 * One slice of a job, delivered for `step.cursor`: stale (the cursor moved on, or the job ended) or busy (another
 * worker holds this slice, its lease alive) it does nothing; otherwise it claims the slice and runs it.
 */
export async function runSlice(services: Services, step: { job_id: string; cursor: number }): Promise<StepOutcome> {
  const version = await services.jobs.get(step.job_id);
  if (!version) return "stale";
  const { record } = version;
  if (record.status !== "processing" || record.cursor !== step.cursor) return "stale";
  const now = Date.now();
  const lapsed = record.lease_until < now;
  const held = record.lease_owner !== "";
  if (held && !lapsed) return "busy";
  // Claimed before, its lease lapsed: that worker died (or was cut off) in this slice.
  if (held && record.attempts >= services.config.jobs.maxAttempts) {
    await abandon(services, version);
    return "done";
  }
  const claimed = await services.jobs.replace(version, {
    ...record,
    attempts: held ? record.attempts + 1 : record.attempts,
    lease_owner: randomUUID(),
    lease_until: now + services.config.jobs.leaseMs,
    ...(held ? { message: "Resuming after its worker stopped" } : {}),
  });
  if (!claimed) return "busy";
  return runClaimed(services, claimed);
}

/**
 * Runs a claimed slice to its end: the job `completed` or `failed`, or its cursor moved and the next slice
 * published. Never throws: it runs after the response, where nobody would catch it. In the test mode
 * `FUNCTION_LIMIT_MS`, a slice still running at that limit is killed as a host would: it answers `killed` at once
 * and nothing it does afterwards is written.
 */
async function runClaimed(services: Services, version: JobVersion): Promise<StepOutcome> {
  const { jobs } = services.config;
  const handle = new JobHandle(services, version);
  const kill = new AbortController();
  const clock = new SliceClock(performance.now() + jobs.sliceMs, kill.signal);
  const memo = new JobMemo(services.store, {
    id: version.record.job_id,
    expiresAt: Date.parse(version.record.expires_at),
    killed: kill.signal,
  });
  const heartbeat = setInterval(
    () => {
      void handle.renew().catch(() => undefined);
      const slot = handle.record.client_slot;
      if (slot) void services.clientJobs.renew(slot).catch(() => undefined);
    },
    Math.max(250, jobs.leaseMs / 3),
  );
  let limit: ReturnType<typeof setTimeout> | undefined;
  const killed = new Promise<StepOutcome>((resolve) => {
    if (jobs.functionLimitMs === undefined) return;
    limit = setTimeout(() => {
      kill.abort();
      handle.lost.abort();
      clearInterval(heartbeat);
      resolve("killed");
    }, jobs.functionLimitMs);
  });
  try {
    return await Promise.race([finishSlice(services, handle, clock, memo), killed]);
  } finally {
    clearInterval(heartbeat);
    clearTimeout(limit);
  }
}

async function finishSlice(
  services: Services,
  handle: JobHandle,
  clock: SliceClock,
  memo: JobMemo,
): Promise<StepOutcome> {
  try {
    const { chunksJson, ...result } = await work(services, handle, clock, memo);
    const resultId = newResultId(TIERS[handle.record.work.tier].resultPrefix);
    if (handle.lost.signal.aborted) return "stale";
    await services.results.save(
      resultId,
      resultJson({ ...result, job_id: handle.record.job_id, result_id: resultId }, chunksJson),
      Math.max(1, remainingMs(handle.record)),
    );
    const completed = await handle.write((r) => ({
      ...r,
      status: "completed",
      progress: 100,
      message: "Completed",
      result_id: resultId,
    }));
    if (completed) await freeSlot(services, handle.record);
    if (completed) jobEvent("completed", { job_id: handle.record.job_id, tier: handle.record.work.tier });
    if (completed) services.webhooks.jobEnded(handle.record, statusBody(handle.record));
    return "done";
  } catch (error) {
    if (handle.lost.signal.aborted) return "stale";
    if (error instanceof SliceEnd) return nextSlice(services, handle, clock);
    const failure: { code: ErrorCode; message: string } =
      error instanceof ApiError
        ? { code: error.code, message: error.message }
        : {
            code: "internal_error",
            message: `Something went wrong on our side. Submit the document again${handle.record.work.payment_request ? " with the same X-PAYMENT, which has been released" : ""}.`,
          };
    if (!(error instanceof ApiError)) logFault("Job failed", error, { job_id: handle.record.job_id });
    // Given back before the job shows `failed`, since a client that sees it may retry with the same payment at once;
    // the renewal first makes sure the job is still this worker's, for a whole lease, and no other worker's to finish.
    if (!(await handle.renew().catch(() => false))) return "stale";
    await giveBack(services, handle.record, { pagesBack: pagesGoBack(error) });
    const failed = await handle
      .write((r) => ({ ...r, status: "failed", message: "Failed", error: failure }))
      .catch(() => false);
    if (failed) jobEvent("failed", { job_id: handle.record.job_id, tier: handle.record.work.tier, code: failure.code });
    if (failed) services.webhooks.jobEnded(handle.record, statusBody(handle.record));
    return "done";
  }
}

/** The slice's time is up: once what it started is stored, the cursor moves on and the next slice is published. */
async function nextSlice(services: Services, handle: JobHandle, clock: SliceClock): Promise<StepOutcome> {
  await clock.drain();
  const moved = await handle
    .write((r) => ({
      ...r,
      cursor: r.cursor + 1,
      lease_owner: "",
      lease_until: Date.now() + services.config.jobs.leaseMs,
    }))
    .catch(() => false);
  if (!moved) return "stale";
  await publishSlice(services, handle.record);
  return "done";
}

/** Extract (OCR included), take the free pages, find boundaries, chunk, enrich: the result without the ids. */
async function work(
  services: Services,
  handle: JobHandle,
  clock: SliceClock,
  memo: JobMemo,
): Promise<Record<string, unknown> & { chunksJson: string }> {
  const { record } = handle;
  const { input, options, tier } = record.work;
  const tierRecord = TIERS[tier];
  if (input.kind === "batch") return batchWork(services, handle, clock, memo);
  handle.progress(0, "Extracting text");
  let doc;
  if (input.kind === "upload") {
    const bytes = await services.jobs.upload(record.job_id);
    if (!bytes) throw jobExpired(record.job_id);
    doc = loaded({ bytes, filename: input.filename, contentType: input.contentType });
  } else {
    doc = loaded(await services.fetchUrl(input.url));
  }
  // Progress is OCR's pages read, when there are any, then the model calls (AI tiers); without either, the
  // chunking is quick. Reading pages is most of a scan's time, model calls most of a text's.
  let ocrShare = 0;
  const cpu = services.cpu.forJobs;
  const extracted = await extractForJob(services, doc, options, memo, clock, (done, total) => {
    ocrShare = tierRecord.model ? 0.5 : 0.9;
    handle.progress((ocrShare * done) / total, `Read page ${done} of ${total} by OCR`);
  });
  if (!isPaid(tierRecord)) await settleFreePages(services, handle, extracted.pageCount);
  handle.progress(ocrShare, "Chunking");

  const afterOcr = (share: number) => ocrShare + (1 - ocrShare) * share;
  // The model calls: boundary windows, enrichment calls (estimated from the text until the chunks exist), and the
  // document summary.
  let boundaryCalls = 0;
  let estimatedEnrichmentCalls = tierRecord.enrich
    ? Math.ceil(extracted.text.length / CHARS_PER_ENRICHMENT_CALL) + 1
    : 0;
  const progress: ModelProgress = {
    boundaries(done, total) {
      boundaryCalls = total;
      handle.progress(afterOcr(done / (total + estimatedEnrichmentCalls)), `Finding boundaries ${done}/${total}`);
    },
    summaries(chunksDone, chunksTotal, callsDone, callsTotal) {
      estimatedEnrichmentCalls = callsTotal;
      handle.progress(
        afterOcr((boundaryCalls + callsDone) / (boundaryCalls + callsTotal)),
        `Summarising ${chunksDone}/${chunksTotal}`,
      );
    },
    contexts(done, total) {
      handle.progress(afterOcr(0.99 * (done / Math.max(1, total))), `Situating chunks: batch ${done}/${total}`);
    },
    documentSummary() {
      handle.progress(
        afterOcr((boundaryCalls + estimatedEnrichmentCalls - 1) / (boundaryCalls + estimatedEnrichmentCalls)),
        "Summarising the document",
      );
    },
  };
  const result = await buildResult(doc, extracted, tier, options, {
    embedder: services.embedder,
    // Each answer stored as it comes: a later slice asks the model only what no slice asked before.
    models: wrapModelClients(services.models, (model) => memo.model(model, clock)),
    modelConcurrency: modelConcurrency(services.config.ai, tierRecord),
    // The memo above keeps a slice from asking a batch again; the cache, another request for the same document.
    situating: { ...services.config.ai.context, cache: answerCache(services) },
    progress,
    signal: handle.lost.signal,
    cpu,
  });
  const { payment } = record.work;
  return { ...result, payment, expires_in: lifetimeText(Math.max(0, remainingMs(record) / 1000)) };
}

/**
 * A free job's pages, taken at acceptance from the cheap count, made the exact count once extracted (HTML and
 * DOCX are counted as one page until then) and noted in the job, so a worker taking it over settles nothing
 * again and a failed job gives back the right number. Over the day's allowance: the job fails with 429's code,
 * the pages of the first count staying taken.
 */
async function settleFreePages(services: Pick<Services, "quota">, handle: JobHandle, exact: number): Promise<void> {
  const { client } = handle.record.work;
  const taken = handle.record.free_pages;
  if (!client || !taken || taken.pages === exact) return;
  await services.quota.settle(client, { pages: taken.pages, takenAt: taken.taken_at }, exact);
  const noted = await handle.write((r) => ({ ...r, free_pages: { pages: exact, taken_at: taken.taken_at } }));
  if (!noted) {
    // Taken over meanwhile: the new worker settles from the count the record still holds.
    await services.quota.settle(client, { pages: exact, takenAt: taken.taken_at }, taken.pages);
    throw handle.lost.signal.reason;
  }
}
