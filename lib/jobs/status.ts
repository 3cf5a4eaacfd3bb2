/**
 * A job as its client sees it (status, result), and what a status poll does for a job whose worker stopped: it
 * moves the cursor past the lost slice and publishes the next one through the engine, so the job resumes from
 * what is stored, never from page 1. Nothing here loads the pipeline: a status route only publishes.
 */
import type { JobStatus } from "@/lib/api-schema";
import type { ErrorCode } from "@/lib/ground/error-codes";
import { ApiError } from "@/lib/ground/errors";
import type { Services } from "@/lib/services/types";
import { type JobRecord, type JobVersion, isMemberDone, jobExpired, memberStatus } from "./job-store";
import { webhookStatus } from "@/lib/webhooks/job-webhook";
import { jobEvent, logFault, paymentReleased } from "@/lib/observability/events";

export const statusUrl = (record: JobRecord) => `${record.work.api_base}/job/${record.job_id}/status`;

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

export function statusBody(record: JobRecord): JobStatus {
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
  if (record.webhook) body.webhook = webhookStatus(record.webhook);
  if (record.batch) {
    const documents = record.batch.documents;
    body.documents = documents.map(memberStatus);
    body.total = documents.filter((d) => d.status !== "rejected").length;
    body.done = documents.filter(isMemberDone).length;
  }
  return body;
}

/** Publishes the slice the job's cursor is at; a publication lost is made again by a poll once the lease lapses. */
export async function publishSlice(services: Pick<Services, "engine">, record: JobRecord): Promise<void> {
  await services.engine
    .publish(
      { kind: "job-slice", job_id: record.job_id, cursor: record.cursor },
      { deduplicationId: `${record.job_id}-${record.cursor}` },
    )
    .catch((error: unknown) =>
      logFault("Publishing a job's slice failed", error, { job_id: record.job_id, cursor: record.cursor }),
    );
}

/**
 * A job whose lease lapsed: its slice's worker died (a claimed slice) or its delivery was lost (a waiting one). The
 * cursor moves past that slice and the next is published; either counts as an attempt. Returns the job as it now
 * stands (someone else's takeover, if they won).
 */
async function takeOver(services: Services, version: JobVersion): Promise<JobVersion> {
  const { record } = version;
  const workerDied = record.lease_owner !== "";
  // A slice never delivered counts as much as a worker that died: an engine that keeps losing the job's slices
  // must not leave its client polling for the job's whole lifetime.
  if (record.attempts >= services.config.jobs.maxAttempts) return abandon(services, version);
  const taken = await services.jobs.replace(version, {
    ...record,
    cursor: record.cursor + 1,
    attempts: record.attempts + 1,
    lease_owner: "",
    lease_until: Date.now() + services.config.jobs.leaseMs,
    message: workerDied ? "Resuming after its worker stopped" : "Resuming: its next slice was never delivered",
  });
  if (!taken) return (await services.jobs.get(record.job_id)) ?? version;
  jobEvent("taken_over", { job_id: record.job_id, tier: record.work.tier, attempt: taken.record.attempts });
  await publishSlice(services, taken.record);
  return taken;
}

/** A job whose work stopped `maxAttempts` times fails `job_abandoned`, giving everything back. */
export async function abandon(services: Services, version: JobVersion): Promise<JobVersion> {
  const { record } = version;
  const failed = await services.jobs.replace(version, {
    ...record,
    status: "failed",
    message: "Failed",
    error: {
      code: "job_abandoned" satisfies ErrorCode,
      message: `its work stopped ${record.attempts} times without finishing (a worker died, or a slice was never delivered); submit it again${record.work.payment_request ? " with the same X-PAYMENT, which has been released" : ""}`,
    },
  });
  // Its workers died: the service's failure, so its pages go back too.
  if (failed) await giveBack(services, failed.record, { pagesBack: true });
  if (failed) jobEvent("failed", { job_id: record.job_id, tier: record.work.tier, code: "job_abandoned" });
  if (failed) services.webhooks.jobEnded(failed.record, statusBody(failed.record));
  return failed ?? (await services.jobs.get(record.job_id)) ?? version;
}

/**
 * What a failed job gives back: its payment released for a retry; its free pages when the service failed it
 * (`pagesBack`); its client's place.
 */
export async function giveBack(
  services: Pick<Services, "payments" | "quota" | "clientJobs">,
  record: JobRecord,
  failure: { pagesBack: boolean },
): Promise<void> {
  const { payment, payment_request: request, client } = record.work;
  if (payment.transaction && request)
    await services.payments.releasePayment(payment.transaction, request).then(
      () =>
        paymentReleased({ tier: record.work.tier, reason: record.error?.code ?? "job_failed", job_id: record.job_id }),
      (error: unknown) => logFault("Releasing the payment of a failed job failed", error, { job_id: record.job_id }),
    );
  await freeSlot(services, record);
  if (client && record.free_pages && failure.pagesBack)
    await services.quota
      .refund(client, record.free_pages.pages, record.free_pages.taken_at)
      .catch((error: unknown) =>
        logFault("Returning the free pages of a failed job failed", error, { job_id: record.job_id }),
      );
}

export async function freeSlot(services: Pick<Services, "clientJobs">, record: JobRecord): Promise<void> {
  if (record.client_slot)
    await services.clientJobs
      .release(record.client_slot)
      .catch((error: unknown) =>
        logFault("Freeing the client place of a job failed", error, { job_id: record.job_id }),
      );
}
