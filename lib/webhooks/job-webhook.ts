import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import type { JobWebhookStatus } from "@/lib/api-schema";

/**
 * A job's webhook as its record holds it: where to POST the job's end, the
 * job's own signing secret, and how the tries went. The secret lives only
 * here and in the 202 answer that accepted the job: a status body shows the
 * delivery state, never the URL's secret or the secret itself.
 */
export const JobWebhookSchema = z.object({
  url: z.string(),
  /** Standard Webhooks' form, `whsec_<base64 of 32 random bytes>`. */
  secret: z.string(),
  state: z.enum(["pending", "delivered", "exhausted"]),
  /** Tries made (or under way). */
  attempts: z.number().int().nonnegative(),
  /** WEBHOOK_MAX_ATTEMPTS when the job was accepted. */
  max_attempts: z.number().int().min(1),
  /** The receiver's HTTP status on the last try that got one. */
  last_status: z.number().int().optional(),
  /** Why the last try failed, when it did: `timeout`, `http_status`, `redirect`, `url_forbidden`, ... */
  last_error: z.string().optional(),
  /** Epoch milliseconds the try under way was claimed, until its outcome is written. */
  attempt_started_at: z.number().optional(),
  /** Epoch milliseconds of the next try, while one is scheduled. */
  next_attempt_at: z.number().optional(),
});
export type JobWebhook = z.infer<typeof JobWebhookSchema>;

const SECRET_BYTES = 32;

/** A new job's webhook, with its own secret: a client without an account verifies with what the 202 answer gave it. */
export function newJobWebhook(url: string, maxAttempts: number): JobWebhook {
  const secret = `whsec_${randomBytes(SECRET_BYTES).toString("base64")}`;
  return { url, secret, state: "pending", attempts: 0, max_attempts: maxAttempts };
}

/**
 * The `webhook-id` of a job's delivery: the same on every try, so a receiver can drop duplicates. Derived from the
 * job id rather than showing it: a header may be logged where the body (which carries the job id) is not.
 */
export const webhookId = (jobId: string) => `msg_${createHash("sha256").update(jobId).digest("hex").slice(0, 32)}`;

/** What a status body says of the webhook. */
export function webhookStatus(webhook: JobWebhook): JobWebhookStatus {
  return {
    state: webhook.state,
    attempts: webhook.attempts,
    max_attempts: webhook.max_attempts,
    ...(webhook.last_status === undefined ? {} : { last_status: webhook.last_status }),
    ...(webhook.last_error === undefined ? {} : { last_error: webhook.last_error }),
    ...(webhook.next_attempt_at === undefined
      ? {}
      : { next_attempt_at: new Date(webhook.next_attempt_at).toISOString() }),
  };
}
