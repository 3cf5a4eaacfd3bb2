/**
 * The life of an async job (ai-pro's, or any tier's asked with `async=true`):
 * accepted, worked on under a lease, `completed` or `failed`; visible
 * through its status and result.
 *
 * The worker renews its lease while it works (a third of the lease at a
 * time) and writes progress as model calls finish. A worker that dies stops
 * renewing; the next status poll after the lease lapses takes the job over
 * (a compare-and-set, so one poller wins) and starts it again. A job whose
 * workers keep dying fails after `maxAttempts`. A failed job releases its
 * payment, so the client can retry with the same X-PAYMENT; a free job's
 * pages, taken when it was accepted, are given back only when the service
 * failed it (not for the client's damaged document).
 *
 * A job holds its client's place among its active jobs (lib/client-slots.ts)
 * from acceptance to its end, and extracts in the jobs' share of the CPU
 * (`CpuPool.jobExtraction`, `forJobs`), so jobs never starve requests.
 */
import { randomUUID } from "node:crypto";
import { DEFAULT_BATCHES } from "@/lib/ai/enrich";
import { isAiTier } from "@/lib/ai/model-client";
import type { JobAccepted, JobStatus } from "@/lib/api-schema";
import type { ErrorCode } from "@/lib/error-codes";
import { ApiError } from "@/lib/errors";
import type { ModelProgress } from "@/lib/ai/model-boundaries";
import {
  buildResult,
  extractDocument,
  loaded,
  type ResolvedOptions,
  resultJson,
  withOcrLanguages,
} from "@/lib/chunk-result";
import { newResultId } from "@/lib/results";
import { lifetimeText } from "@/lib/wording";
import type { HeldSlot } from "@/lib/client-slots";
import { type TakenPages, pagesGoBack } from "@/lib/quota";
import type { Services } from "@/lib/services";
import { JobHandle } from "@/lib/jobs/job-handle";
import { TIERS, type TierId } from "@/lib/tiers";
import { type JobRecord, type JobVersion, jobExpired, newJobId, remainingMs } from "./job-store";

export interface NewJob {
  tier: TierId;
  input: { kind: "upload"; bytes: Uint8Array; filename?: string; contentType?: string } | { kind: "url"; url: string };
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
}

/** Records the job and schedules its work; what `POST /chunk/ai-pro` (or any tier with `async=true`) answers. */
export async function startJob(services: Services, job: NewJob): Promise<JobAccepted> {
  const now = Date.now();
  const owner = randomUUID();
  const { input } = job;
  const record: JobRecord = {
    job_id: newJobId(job.tier),
    status: "processing",
    progress: 0,
    message: "Queued",
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + services.config.resultTtlSeconds * 1000).toISOString(),
    attempts: 1,
    lease_owner: owner,
    lease_until: now + services.config.jobs.leaseMs,
    work: {
      tier: job.tier,
      input:
        input.kind === "upload" ? { kind: "upload", filename: input.filename, contentType: input.contentType } : input,
      options: job.options,
      api_base: job.apiBase,
      payment: job.payment,
      ...(job.paymentRequest === undefined ? {} : { payment_request: job.paymentRequest }),
      ...(job.client === undefined ? {} : { client: job.client }),
    },
    ...(job.freePages ? { free_pages: { pages: job.freePages.pages, taken_at: job.freePages.takenAt } } : {}),
    ...(job.slot ? { client_slot: job.slot } : {}),
  };
  const version = await services.jobs.create(record, input.kind === "upload" ? input.bytes : undefined);
  services.schedule(() => runJob(services, version));
  return { success: true, async: true, job_id: record.job_id, status: "processing", status_url: statusUrl(record) };
}

const statusUrl = (record: JobRecord) => `${record.work.api_base}/job/${record.job_id}/status`;

/** The job as `GET /job/{id}/status` shows it; a job whose worker's lease lapsed is taken over first. */
export async function jobStatus(services: Services, id: string): Promise<JobStatus> {
  let version = await services.jobs.get(id);
  if (!version) throw jobExpired(id);
  if (version.record.status === "processing" && version.record.lease_until < Date.now())
    version = await takeOver(services, version);
  return statusBody(version.record);
}

/** The full result of a completed job, as its JSON. */
export async function jobResult(services: Pick<Services, "jobs" | "results">, id: string): Promise<string> {
  const version = await services.jobs.get(id);
  if (!version) throw jobExpired(id);
  const { record } = version;
  if (record.status === "processing")
    throw new ApiError(
      "job_not_finished",
      `Job ${id} is still processing (${record.progress}%: ${record.message}). Poll ${statusUrl(record)} every second or two.`,
      { headers: { "Retry-After": "2" } },
    );
  if (record.status === "failed")
    throw new ApiError("job_failed", `Job ${id} failed: ${record.error?.message ?? "unknown error"}`);
  return services.results.load(record.result_id!);
}

function statusBody(record: JobRecord): JobStatus {
  const body: JobStatus = {
    success: true,
    job_id: record.job_id,
    status: record.status,
    progress: record.progress,
    message: record.message,
    created_at: record.created_at,
    expires_at: record.expires_at,
  };
  if (record.result_id) {
    body.result_id = record.result_id;
    body.download_url = `${record.work.api_base}/results/${record.result_id}`;
  }
  if (record.error) body.error = record.error;
  return body;
}

/** A new worker for a job whose lease lapsed; returns the job as it now stands (someone else's takeover, if they won). */
async function takeOver(services: Services, version: JobVersion): Promise<JobVersion> {
  const { record } = version;
  const now = Date.now();
  if (record.attempts >= services.config.jobs.maxAttempts) {
    const failed = await services.jobs.replace(version, {
      ...record,
      status: "failed",
      message: "Failed",
      error: {
        code: "job_abandoned" satisfies ErrorCode,
        message: `its worker stopped ${record.attempts} times without finishing; submit it again${record.work.payment_request ? " with the same X-PAYMENT, which has been released" : ""}`,
      },
    });
    // Its workers died: the service's failure, so its pages go back too.
    if (failed) await giveBack(services, failed.record, { pagesBack: true });
    return failed ?? (await services.jobs.get(record.job_id)) ?? version;
  }
  const taken = await services.jobs.replace(version, {
    ...record,
    attempts: record.attempts + 1,
    lease_owner: randomUUID(),
    lease_until: now + services.config.jobs.leaseMs,
    message: "Restarting after its worker stopped",
  });
  if (!taken) return (await services.jobs.get(record.job_id)) ?? version;
  services.schedule(() => runJob(services, taken));
  return taken;
}

/**
 * What a failed job gives back: its payment released for a retry; its free pages when the service failed it
 * (`pagesBack`); its client's place.
 */
async function giveBack(
  services: Pick<Services, "payments" | "quota" | "clientJobs">,
  record: JobRecord,
  failure: { pagesBack: boolean },
): Promise<void> {
  const { payment, payment_request: request, client } = record.work;
  if (payment.transaction && request)
    await services.payments
      .releasePayment(payment.transaction, request)
      .catch((error: unknown) => console.error(`Releasing the payment of failed job ${record.job_id} failed`, error));
  await freeSlot(services, record);
  if (client && record.free_pages && failure.pagesBack)
    await services.quota
      .refund(client, record.free_pages.pages, record.free_pages.taken_at)
      .catch((error: unknown) =>
        console.error(`Returning the free pages of failed job ${record.job_id} failed`, error),
      );
}

async function freeSlot(services: Pick<Services, "clientJobs">, record: JobRecord): Promise<void> {
  if (record.client_slot)
    await services.clientJobs
      .release(record.client_slot)
      .catch((error: unknown) => console.error(`Freeing the client place of job ${record.job_id} failed`, error));
}

/** Text one enrichment call takes (about 4 characters a token), for the estimate of calls before the chunks exist. */
const CHARS_PER_ENRICHMENT_CALL = DEFAULT_BATCHES.maxTokens * 4;

/** Runs the job to `completed` or `failed`. Never throws: it runs after the response, where nobody would catch it. */
export async function runJob(services: Services, version: JobVersion): Promise<void> {
  const handle = new JobHandle(services, version);
  const heartbeat = setInterval(
    () => {
      void handle.renew().catch(() => undefined);
      const slot = handle.record.client_slot;
      if (slot) void services.clientJobs.renew(slot).catch(() => undefined);
    },
    Math.max(250, services.config.jobs.leaseMs / 3),
  );
  try {
    const { chunksJson, ...result } = await work(services, handle);
    const resultId = newResultId(TIERS[handle.record.work.tier].resultPrefix);
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
  } catch (error) {
    if (handle.lost.signal.aborted) return;
    const failure: { code: ErrorCode; message: string } =
      error instanceof ApiError
        ? { code: error.code, message: error.message }
        : {
            code: "internal_error",
            message: `Something went wrong on our side. Submit the document again${handle.record.work.payment_request ? " with the same X-PAYMENT, which has been released" : ""}.`,
          };
    if (!(error instanceof ApiError)) console.error(`Job ${handle.record.job_id} failed:`, error);
    // Given back before the job shows `failed`, since a client that sees it may retry with the same payment at once;
    // the renewal first makes sure the job is still this worker's, for a whole lease, and no other worker's to finish.
    if (!(await handle.renew().catch(() => false))) return;
    await giveBack(services, handle.record, { pagesBack: pagesGoBack(error) });
    await handle.write((r) => ({ ...r, status: "failed", message: "Failed", error: failure })).catch(() => false);
  } finally {
    clearInterval(heartbeat);
  }
}

/** Extract (OCR included), take the free pages, find boundaries, chunk, enrich: the result without the ids. */
async function work(services: Services, handle: JobHandle): Promise<Record<string, unknown> & { chunksJson: string }> {
  const { record } = handle;
  const { input, options, tier } = record.work;
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
  const extracted = await services.cpu.jobExtraction(() =>
    extractDocument(doc, withOcrLanguages(services.config, options), cpu, {
      onPageRead(done, total) {
        ocrShare = isAiTier(tier) ? 0.5 : 0.9;
        handle.progress((ocrShare * done) / total, `Read page ${done} of ${total} by OCR`);
      },
    }),
  );
  if (tier === "free") await settleFreePages(services, handle, extracted.pageCount);
  handle.progress(ocrShare, "Chunking");

  const afterOcr = (share: number) => ocrShare + (1 - ocrShare) * share;
  // The model calls: boundary windows, enrichment calls (estimated from the text until the chunks exist), and the
  // document summary.
  let boundaryCalls = 0;
  let estimatedEnrichmentCalls =
    tier === "ai-pro" ? Math.ceil(extracted.text.length / CHARS_PER_ENRICHMENT_CALL) + 1 : 0;
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
    documentSummary() {
      handle.progress(
        afterOcr((boundaryCalls + estimatedEnrichmentCalls - 1) / (boundaryCalls + estimatedEnrichmentCalls)),
        "Summarising the document",
      );
    },
  };
  const result = await buildResult(doc, extracted, tier, options, {
    embedder: services.embedder,
    models: services.models,
    modelConcurrency: tier === "ai-pro" ? services.config.ai.proConcurrency : services.config.ai.concurrency,
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
