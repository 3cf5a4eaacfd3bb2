/**
 * The stand-in's switchboard: the settings that inject faults, and the
 * counters tests read back. One instance per server, changed in process by
 * `ModelStandin.control()` or over HTTP by `POST /control`.
 *
 * The `*Next` settings are queues of faults: each completion request takes
 * at most one, in the order hang, fail, rate limit, broken JSON, schema
 * break, and decrements its count.
 */
import { z } from "zod";

const count = z.number().int().nonnegative();

export const StandinSettings = z.object({
  /** Every completion waits this long before answering (or failing); a client that leaves ends the wait. */
  delayMs: count.max(600_000),
  /** Every /v1 request answers 503. */
  down: z.boolean(),
  /** The next N completion requests answer 500. */
  failNext: count,
  /** The next N completion requests answer 429 with `Retry-After: retryAfterSeconds`. */
  rateLimitNext: count,
  retryAfterSeconds: count.max(86_400),
  /** The next N completion requests answer 200 with content that is not JSON. */
  brokenJsonNext: count,
  /** The next N completion requests answer 200 with JSON that breaks the task's schema. */
  schemaBreakNext: count,
  /** The next N completion requests are never answered; they end when the client gives up. */
  hangNext: count,
});
export type StandinSettings = z.infer<typeof StandinSettings>;

/** What `control()` and `POST /control` take: any of the settings, merged into the current ones. */
export const StandinSettingsUpdate = StandinSettings.partial().strict();
export type StandinSettingsUpdate = z.infer<typeof StandinSettingsUpdate>;

export const FAULTS = ["down", "server_error", "rate_limit", "broken_json", "schema_break", "hang"] as const;
export type Fault = (typeof FAULTS)[number];

export interface StandinCounters {
  /** Every request under /v1, answered or not. */
  requests: number;
  completions: number;
  embeddings: number;
  /** Completions by `response_format.json_schema.name`. */
  bySchema: Record<string, number>;
  /** Completions and embeddings by the `model` asked for. */
  byModel: Record<string, number>;
  /** Faults served, whether queued by the settings or asked for by a marker in the content. */
  faults: Record<Fault, number>;
  /** Requests refused as malformed (400, 404, 405, 413). */
  badRequests: number;
  /** Requests whose client went away while they were delayed or hanging. */
  aborted: number;
  /** Requests under /v1 being served right now, and the most there have been at once (a client's concurrency, seen from here). */
  inFlight: number;
  maxInFlight: number;
}

/** Which queued count each fault is taken from. */
const QUEUES = [
  ["hangNext", "hang"],
  ["failNext", "server_error"],
  ["rateLimitNext", "rate_limit"],
  ["brokenJsonNext", "broken_json"],
  ["schemaBreakNext", "schema_break"],
] as const satisfies ReadonlyArray<readonly [keyof StandinSettings, Fault]>;

/** Faults a completion can be given: all but `down`, which refuses every request before it is read. */
export type CompletionFault = (typeof QUEUES)[number][1];

const noFaults = (): Record<Fault, number> => Object.fromEntries(FAULTS.map((f) => [f, 0])) as Record<Fault, number>;

function zeroCounters(): StandinCounters {
  return {
    requests: 0,
    completions: 0,
    embeddings: 0,
    bySchema: {},
    byModel: {},
    faults: noFaults(),
    badRequests: 0,
    aborted: 0,
    inFlight: 0,
    maxInFlight: 0,
  };
}

export class StandinControls {
  private current: StandinSettings;
  private counts = zeroCounters();

  /** `initial` is also what `reset()` goes back to. */
  constructor(private readonly initial: StandinSettings) {
    this.current = { ...initial };
  }

  settings(): StandinSettings {
    return { ...this.current };
  }

  counters(): StandinCounters {
    return structuredClone(this.counts);
  }

  /** Merges `update` into the settings; throws a ZodError on an unknown or invalid setting. */
  update(update: StandinSettingsUpdate): StandinSettings {
    this.current = { ...this.current, ...StandinSettingsUpdate.parse(update) };
    return this.settings();
  }

  /** Counters to zero, settings (queued faults included) back to those the server started with. */
  reset(): void {
    this.current = { ...this.initial };
    this.counts = zeroCounters();
  }

  /** A request under /v1 begins; the returned function ends it. */
  countRequest(): () => void {
    this.counts.requests++;
    this.counts.inFlight++;
    this.counts.maxInFlight = Math.max(this.counts.maxInFlight, this.counts.inFlight);
    const counts = this.counts;
    return () => void counts.inFlight--;
  }

  countCompletion(schema: string, model: string): void {
    this.counts.completions++;
    this.counts.bySchema[schema] = (this.counts.bySchema[schema] ?? 0) + 1;
    this.countModel(model);
  }

  countEmbeddings(model: string): void {
    this.counts.embeddings++;
    this.countModel(model);
  }

  countFault(fault: Fault): void {
    this.counts.faults[fault]++;
  }

  countBadRequest(): void {
    this.counts.badRequests++;
  }

  countAborted(): void {
    this.counts.aborted++;
  }

  /** The queued fault the next completion is due, taken off its queue; undefined when none is queued. */
  takeQueuedFault(): CompletionFault | undefined {
    for (const [queue, fault] of QUEUES) {
      if (this.current[queue] > 0) {
        this.current[queue]--;
        return fault;
      }
    }
    return undefined;
  }

  private countModel(model: string): void {
    this.counts.byModel[model] = (this.counts.byModel[model] ?? 0) + 1;
  }
}
