import type { Engine } from "@/lib/jobs/engine";
import { type WebhookDelivery, type WebhookScheduler, deliveryKey } from "./scheduler";
import { logFault } from "@/lib/observability/events";

/**
 * Webhook tries as steps of the engine that drives jobs (QStash when configured): a retry waits in QStash's
 * delayed message, not in a timer of a function that may be gone, and a try delivered twice is made once (the
 * step's deduplication id, then the try's claim in the job record).
 */
export class EngineWebhookScheduler implements WebhookScheduler {
  constructor(private readonly engine: Pick<Engine, "publish">) {}

  async later(delivery: WebhookDelivery, delayMs: number): Promise<boolean> {
    try {
      await this.engine.publish(
        { kind: "webhook", delivery },
        { deduplicationId: deliveryKey(delivery), ...(delayMs > 0 ? { delayMs } : {}) },
      );
      return true;
    } catch (error) {
      logFault("Publishing a webhook try failed", error, { job_id: delivery.job_id });
      return false;
    }
  }
}
