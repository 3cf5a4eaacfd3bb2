import { z } from "zod";
import { logFault } from "@/lib/observability/events";

/**
 * When a job's webhook is tried: the first try as soon as the job ends, each retry after its backoff. Behind this
 * interface so the engine that drives jobs can carry the retries (a QStash message with a delay, deduplicated by
 * `deliveryKey`); the in-process scheduler here is the embedded default.
 */

/**
 * One try of a job's webhook: all a scheduler carries (an engine's message body, parsed with this schema where it
 * is received). The secret and URL stay in the job record.
 */
export const WebhookDeliverySchema = z.object({
  job_id: z.string().max(200),
  /** 1 for the first try. */
  attempt: z.number().int().min(1).max(100),
  /** The exact JSON that is signed and sent: the job's status body when it ended. */
  payload: z.string().max(64 * 1024),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

export interface WebhookScheduler {
  /** Runs the try after `delayMs`; false when it could not be scheduled (a bound reached, the engine refused it). */
  later: (delivery: WebhookDelivery, delayMs: number) => Promise<boolean>;
}

/** One key per try, for an engine's deduplication: the same try delivered twice is made once. */
export const deliveryKey = (delivery: WebhookDelivery) => `webhook-${delivery.job_id}-${delivery.attempt}`;

/**
 * Timers in this process, at most `maxPending` tries waiting or running at once. A try due later than the
 * process lives is lost with it (the job's status then shows a `pending` try that never comes): what binding the
 * scheduler to a durable engine fixes.
 */
export class InProcessWebhookScheduler implements WebhookScheduler {
  #pending = 0;
  #idle: (() => void)[] = [];

  constructor(
    private readonly options: {
      deliver: (delivery: WebhookDelivery) => Promise<unknown>;
      /** Runs work beyond the response (`Services.schedule`: `waitUntil` on Vercel). */
      schedule: (work: () => Promise<void>) => void;
      maxPending: number;
    },
  ) {}

  later(delivery: WebhookDelivery, delayMs: number): Promise<boolean> {
    if (this.#pending >= this.options.maxPending) return Promise.resolve(false);
    this.#pending++;
    const run = () =>
      this.options.schedule(() =>
        this.options
          .deliver(delivery)
          .then(() => undefined)
          .catch((error: unknown) => logFault("A webhook try failed", error, { job_id: delivery.job_id }))
          .finally(() => this.#done()),
      );
    if (delayMs <= 0) run();
    // Unref'd: a waiting retry alone does not keep the process up.
    else setTimeout(run, delayMs).unref();
    return Promise.resolve(true);
  }

  /** Tries waiting or running. */
  get pending(): number {
    return this.#pending;
  }

  /** Resolves once no try is waiting or running (a retry scheduled meanwhile counts). */
  idle(): Promise<void> {
    if (this.#pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #done(): void {
    this.#pending--;
    if (this.#pending === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }
}
