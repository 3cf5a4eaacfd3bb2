import { Client } from "@upstash/qstash";
import { z } from "zod";
import type { Config } from "@/lib/ground/config";
import { WebhookDeliverySchema } from "@/lib/webhooks/scheduler";
import { logFault } from "@/lib/observability/events";

/**
 * What drives work that outlives a response, one step at a time: an async job's slices and its webhook's tries.
 * Two engines, chosen from the config:
 * - QStash: each step is a message published to `PUBLIC_BASE_URL/api/jobs/step`, delivered signed, retried with
 *   backoff by QStash when the function fails or is cut off, deduplicated by its id (a job's id and cursor);
 * - in-process (the embedded default): the step runs in this process, detached from the request, after the ones
 *   before it; the next slice is published by the one before, so a job's slices run one after another.
 * A step delivered twice does nothing twice: its handler checks the cursor in the store (lib/jobs/slices.ts).
 */

/** One step of work; its handlers are in lib/jobs/steps.ts. */
export const Step = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("job-slice"), job_id: z.string().max(100), cursor: z.number().int().min(0) }),
  z.object({ kind: z.literal("webhook"), delivery: WebhookDeliverySchema }),
]);
export type Step = z.infer<typeof Step>;

/**
 * What running a step came to, which QStash reads from the status: `done` (or `stale`: the step was already done or
 * its job is gone) ends the message; `busy` (another worker holds the step) and `killed` (the host's limit cut the
 * slice) ask for a later delivery.
 */
export type StepOutcome = "done" | "stale" | "busy" | "killed";

interface PublishOptions {
  /** The same id published twice is delivered once (QStash's deduplication; a set of recent ids in process). */
  deduplicationId: string;
  delayMs?: number;
}

export interface Engine {
  readonly kind: Config["jobs"]["engine"]["kind"];
  publish: (step: Step, options: PublishOptions) => Promise<void>;
}

class QStashEngine implements Engine {
  readonly kind = "qstash";
  readonly #client: Client;

  constructor(private readonly settings: Extract<Config["jobs"]["engine"], { kind: "qstash" }>) {
    this.#client = new Client({
      token: settings.token,
      ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    });
  }

  async publish(step: Step, options: PublishOptions): Promise<void> {
    await this.#client.publishJSON({
      url: this.settings.stepUrl,
      body: step,
      deduplicationId: options.deduplicationId,
      retries: this.settings.retries,
      ...(options.delayMs ? { delay: Math.ceil(options.delayMs / 1000) } : {}),
    });
  }
}

/** Deduplication ids remembered in process: enough for the steps of every job a process runs at once. */
const REMEMBERED_IDS = 10_000;

class InProcessEngine implements Engine {
  readonly kind = "in-process";
  readonly #seen = new Set<string>();

  constructor(
    /** Runs work after the response (services.schedule: `waitUntil` on Vercel, detached elsewhere). */
    private readonly schedule: (work: () => Promise<void>) => void,
    /** The step handlers, imported on first use: who only publishes (a status poll) never loads the pipeline. */
    private readonly handlers: () => Promise<(step: Step) => Promise<StepOutcome>>,
  ) {}

  async publish(step: Step, options: PublishOptions): Promise<void> {
    if (this.#seen.has(options.deduplicationId)) return;
    this.#seen.add(options.deduplicationId);
    // A Set iterates in insertion order: the oldest id goes first.
    if (this.#seen.size > REMEMBERED_IDS) this.#seen.delete(this.#seen.values().next().value!);
    this.schedule(async () => {
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      try {
        await (
          await this.handlers()
        )(step);
      } catch (error) {
        // Nobody awaits a detached step: its job is taken over by a later poll once its lease lapses.
        logFault(`A ${step.kind} step failed`, error);
      }
    });
  }
}

export function createEngine(
  config: Config["jobs"],
  schedule: (work: () => Promise<void>) => void,
  handlers: () => Promise<(step: Step) => Promise<StepOutcome>>,
): Engine {
  return config.engine.kind === "qstash" ? new QStashEngine(config.engine) : new InProcessEngine(schedule, handlers);
}
