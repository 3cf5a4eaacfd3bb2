import { Webhook } from "standardwebhooks";
import type { JobStatus } from "@/lib/api-schema";
import type { Config } from "@/lib/ground/config";
import type { JobRecord, JobStore, JobVersion } from "@/lib/jobs/job-store";
import type { WebhookEndpoint } from "./endpoint";
import { type JobWebhook, newJobWebhook, webhookId } from "./job-webhook";
import type { WebhookDelivery, WebhookScheduler } from "./scheduler";
import { logFault } from "@/lib/observability/events";

/**
 * Signed webhooks for jobs (Standard Webhooks, with the `standardwebhooks` package): a job asked with
 * `webhook_url` POSTs its status body to it when it completes or fails, retried with backoff up to
 * WEBHOOK_MAX_ATTEMPTS tries within the job's lifetime. Each try is claimed in the job record first (a
 * compare-and-set on the try count), so a try delivered twice by an engine is made once; its outcome is written
 * back, and the status shows it.
 */

/** Each wait is this many times the one before. */
const RETRY_GROWTH = 5;

/** The wait before try `attempt` (2 or more): base, base×5, base×25, ..., ±20% so receivers that failed together are not retried together. */
function retryDelayMs(attempt: number, baseMs: number, random = Math.random): number {
  return Math.round(baseMs * RETRY_GROWTH ** (attempt - 2) * (0.8 + 0.4 * random()));
}

/** Compare-and-set writes of a webhook's state tried this often against other writers (only duplicate tries write it). */
const WRITE_TRIES = 5;

export class Webhooks {
  constructor(
    private readonly deps: {
      config: Pick<Config, "webhooks">;
      jobs: JobStore;
      endpoint: WebhookEndpoint;
      scheduler: WebhookScheduler;
    },
  ) {}

  /** At acceptance, before any payment or page is taken: a URL no try could reach is refused (400). */
  async accept(url: string): Promise<JobWebhook> {
    await this.deps.endpoint.check(url);
    return newJobWebhook(url, this.deps.config.webhooks.maxAttempts);
  }

  /**
   * The job reached `completed` or `failed` (as `status` shows it): its first try is scheduled, never awaited,
   * so the job's worker is not held by the receiver.
   */
  jobEnded(record: JobRecord, status: JobStatus): void {
    if (!record.webhook) return;
    // The payload is the status the job ended with; its webhook's own state would only describe this delivery.
    const { webhook: _state, ...payload } = status;
    const delivery: WebhookDelivery = { job_id: record.job_id, attempt: 1, payload: JSON.stringify(payload) };
    void this.deps.scheduler
      .later(delivery, 0)
      .then((scheduled) => (scheduled ? undefined : this.#notScheduled(delivery)))
      .catch((error: unknown) => logFault("Scheduling a job's webhook failed", error, { job_id: record.job_id }));
  }

  /**
   * One try; a duplicate, stale or unneeded try does nothing. What an engine's delivery of a try runs: `made`
   * (whatever the receiver answered: the outcome is in the record, the next try scheduled), `skipped` (nothing
   * to do), or `in_progress` (this try is being made elsewhere and may yet be abandoned: an engine should deliver
   * it again later, e.g. answer 503 to QStash).
   */
  async deliver(delivery: WebhookDelivery): Promise<"made" | "skipped" | "in_progress"> {
    const startedAt = Date.now();
    const claimed = await this.#update(delivery.job_id, (webhook, record) =>
      // A job still processing belongs to its worker, whose next write a write here would make fail.
      record.status !== "processing" &&
      webhook.state === "pending" &&
      delivery.attempt <= webhook.max_attempts &&
      (webhook.attempts === delivery.attempt - 1 || this.#abandoned(webhook, delivery, startedAt))
        ? { ...webhook, attempts: delivery.attempt, next_attempt_at: undefined, attempt_started_at: startedAt }
        : null,
    );
    if (!claimed?.webhook) return (await this.#inProgress(delivery)) ? "in_progress" : "skipped";
    const { url, secret, max_attempts: maxAttempts } = claimed.webhook;

    const id = webhookId(delivery.job_id);
    const sentAt = new Date();
    const outcome = await this.deps.endpoint.post(url, delivery.payload, {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign(id, sentAt, delivery.payload),
    });

    const delayMs = retryDelayMs(delivery.attempt + 1, this.deps.config.webhooks.retryBaseMs);
    const retryAt = Date.now() + delayMs;
    const retries = !outcome.ok && delivery.attempt < maxAttempts && retryAt < Date.parse(claimed.expires_at);
    await this.#update(delivery.job_id, (webhook) =>
      webhook.attempts !== delivery.attempt || webhook.attempt_started_at !== startedAt
        ? null
        : {
            ...webhook,
            attempt_started_at: undefined,
            state: outcome.ok ? "delivered" : retries ? "pending" : "exhausted",
            ...(outcome.status === undefined ? {} : { last_status: outcome.status }),
            last_error: outcome.ok ? undefined : outcome.reason,
            next_attempt_at: retries ? retryAt : undefined,
          },
    );
    if (!retries) return "made";
    const next = { ...delivery, attempt: delivery.attempt + 1 };
    if (!(await this.deps.scheduler.later(next, delayMs))) await this.#notScheduled(next);
    return "made";
  }

  async #inProgress(delivery: WebhookDelivery): Promise<boolean> {
    const webhook = (await this.deps.jobs.get(delivery.job_id))?.record.webhook;
    return (
      webhook?.state === "pending" && webhook.attempts === delivery.attempt && webhook.attempt_started_at !== undefined
    );
  }

  /**
   * This very try, claimed by a maker that never wrote its outcome (its process or function died) and long past
   * its deadline: an engine delivering the try again makes it again, where a plain duplicate does nothing.
   */
  #abandoned(webhook: JobWebhook, delivery: WebhookDelivery, now: number): boolean {
    return (
      webhook.attempts === delivery.attempt &&
      webhook.attempt_started_at !== undefined &&
      now - webhook.attempt_started_at > 2 * this.deps.config.webhooks.timeoutMs
    );
  }

  /** A try the scheduler refused: the webhook gives up, and says why. */
  async #notScheduled(delivery: WebhookDelivery): Promise<void> {
    await this.#update(delivery.job_id, (webhook) =>
      webhook.state === "pending" && webhook.attempts === delivery.attempt - 1
        ? { ...webhook, state: "exhausted", last_error: "not_scheduled", next_attempt_at: undefined }
        : null,
    );
  }

  /**
   * Applies `change` to the job's webhook by compare-and-set, reading again when another write came first; null
   * when the job is gone or `change` declines (null).
   */
  async #update(
    jobId: string,
    change: (webhook: JobWebhook, record: JobRecord) => JobWebhook | null,
  ): Promise<JobRecord | null> {
    for (let tries = 0; tries < WRITE_TRIES; tries++) {
      const version: JobVersion | null = await this.deps.jobs.get(jobId);
      const next = version?.record.webhook ? change(version.record.webhook, version.record) : null;
      if (!version || !next) return null;
      const record = { ...version.record, webhook: next };
      if (await this.deps.jobs.replace(version, record)) return record;
    }
    return null;
  }
}
