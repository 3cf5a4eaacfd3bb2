/**
 * A batch's job (lib/jobs/runner.ts runs it as any job's work): its accepted documents chunked one after another,
 * each result stored on its own and the document marked in the job's record as soon as it is done, so a later
 * slice (or a worker taking the job over) goes on from the next one. A document that fails is marked `failed`
 * with its error and the others go on; the job fails only when none completed (then, like any failed job, it
 * releases the payment). The combined result is made once every document is done.
 */
import { answerCache } from "@/lib/ai/answer-cache";
import { modelConcurrency, wrapModelClients } from "@/lib/ai/model-client";
import type { ErrorCode } from "@/lib/ground/error-codes";
import { ApiError } from "@/lib/ground/errors";
import { buildResult, loaded, resultJson } from "@/lib/pipeline/chunk-result";
import { extractForJob } from "@/lib/jobs/job-extraction";
import type { JobHandle } from "@/lib/jobs/job-handle";
import type { JobMemo } from "@/lib/jobs/job-memo";
import {
  type BatchMember,
  type JobRecord,
  isMemberDone,
  jobExpired,
  memberStatus,
  remainingMs,
} from "@/lib/jobs/job-store";
import { type SliceClock, SliceEnd } from "@/lib/jobs/slice-clock";
import { logFault } from "@/lib/observability/events";
import { newResultId } from "@/lib/results";
import type { Services } from "@/lib/services/types";
import { TIERS } from "@/lib/tiers";
import { lifetimeText } from "@/lib/ground/wording";

/** An error as a request's error body: what a rejected or failed document shows. */
export function errorBody(error: unknown): NonNullable<BatchMember["error"]> {
  const known =
    error instanceof ApiError
      ? error
      : new ApiError("internal_error", "Something went wrong on our side while reading this document.");
  return known.standardBody();
}

export async function batchWork(
  services: Services,
  handle: JobHandle,
  clock: SliceClock,
  memo: JobMemo,
): Promise<Record<string, unknown> & { chunksJson: string }> {
  const accepted = (handle.record.batch?.documents ?? []).filter((member) => member.status !== "rejected");
  for (const member of accepted) {
    const current = handle.record.batch!.documents.find((d) => d.index === member.index)!;
    if (current.status !== "pending") continue;
    const done = handle.record.batch!.documents.filter(isMemberDone).length;
    handle.progress(done / accepted.length, `Document ${done + 1} of ${accepted.length}: ${member.filename}`);
    let outcome: Partial<BatchMember>;
    try {
      outcome = { status: "completed", result_id: await chunkMember(services, handle, clock, memo, member) };
    } catch (error) {
      // The slice's time is up, or the job is no longer this worker's: the runner moves on or stops.
      if (error instanceof SliceEnd || handle.lost.signal.aborted) throw error;
      if (!(error instanceof ApiError)) logFault("A batch document failed", error, { job_id: handle.record.job_id });
      outcome = { status: "failed", error: errorBody(error) };
    }
    const written = await handle.write((record) => withMember(record, member.index, outcome));
    if (!written) throw handle.lost.signal.reason ?? new Error("the job was taken over");
  }
  return combine(services, handle.record);
}

function withMember(record: JobRecord, index: number, change: Partial<BatchMember>): JobRecord {
  const documents = record.batch!.documents.map((d) => (d.index === index ? { ...d, ...change } : d));
  return { ...record, batch: { documents } };
}

/** One document extracted (in the jobs' share of the CPU, its OCR pages kept) and chunked; its result's id. */
async function chunkMember(
  services: Services,
  handle: JobHandle,
  clock: SliceClock,
  jobMemo: JobMemo,
  member: BatchMember,
): Promise<string> {
  const { record } = handle;
  const { options, tier } = record.work;
  const memo = jobMemo.member(member.input!);
  const bytes = await services.jobs.upload(record.job_id, member.input);
  if (!bytes) throw jobExpired(record.job_id);
  const doc = loaded({ bytes, filename: member.filename, contentType: member.contentType });
  const cpu = services.cpu.forJobs;
  const extracted = await extractForJob(services, doc, options, memo, clock, (done, total) =>
    handle.progress(handle.record.progress / 100, `${member.filename}: read page ${done} of ${total} by OCR`),
  );
  const { chunksJson, ...result } = await buildResult(doc, extracted, tier, options, {
    embedder: services.embedder,
    models: wrapModelClients(services.models, (model) => memo.model(model, clock)),
    modelConcurrency: modelConcurrency(services.config.ai, TIERS[tier]),
    situating: { ...services.config.ai.context, cache: answerCache(services) },
    signal: handle.lost.signal,
    cpu,
  });
  const resultId = newResultId(TIERS[tier].resultPrefix);
  await services.results.save(resultId, resultJson(result, chunksJson), Math.max(1, remainingMs(record)));
  return resultId;
}

interface MemberResult {
  total_chunks: number;
  metadata: Record<string, unknown>;
  chunks: Record<string, unknown>[];
}

/**
 * The combined result: every document's state, and every completed document's chunks in request order. Raw chunks
 * are the service's own shape and get `document_index` and `document`; a vector store's records are left as its
 * client takes them (their metadata names the document already).
 */
async function combine(
  services: Pick<Services, "results">,
  record: JobRecord,
): Promise<Record<string, unknown> & { chunksJson: string }> {
  const { documents } = record.batch!;
  const completed = documents.filter((d) => d.status === "completed");
  if (completed.length === 0) {
    const first = documents.find((d) => d.status === "failed")?.error;
    throw new ApiError(
      (first?.code ?? "internal_error") as ErrorCode,
      `No document of the batch could be chunked${first ? `; the first failed with: ${first.message}` : ""}.`,
    );
  }
  const raw = record.work.options.outputFormat === "raw";
  const chunks: Record<string, unknown>[] = [];
  const summaries: Record<string, unknown>[] = [];
  for (const member of documents) {
    const { index, filename } = member;
    const summary: Record<string, unknown> = memberStatus(member);
    if (member.status === "completed") {
      const result = JSON.parse(await services.results.load(member.result_id!)) as MemberResult;
      summary.total_chunks = result.total_chunks;
      summary.first_chunk = chunks.length;
      summary.metadata = result.metadata;
      for (const chunk of result.chunks)
        chunks.push(raw ? { ...chunk, document_index: index, document: filename } : chunk);
    }
    summaries.push(summary);
  }
  return {
    success: true,
    batch: true,
    tier: record.work.tier,
    total_chunks: chunks.length,
    documents: summaries,
    payment: record.work.payment,
    expires_in: lifetimeText(Math.max(0, remainingMs(record) / 1000)),
    chunksJson: JSON.stringify(chunks),
  };
}
