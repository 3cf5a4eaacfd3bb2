import path from "node:path";
import { MessageChannel, type MessagePort, type Transferable } from "node:worker_threads";
import pLimit, { type LimitFunction } from "p-limit";
import { Piscina } from "piscina";
import type { SplitOptions } from "@/lib/chunking/types";
import type { Config } from "@/lib/ground/config";
import { embedderId } from "@/lib/embeddings";
import type { Embedder } from "@/lib/embeddings/types";
import { ApiError } from "@/lib/ground/errors";
import { failures } from "@/lib/extract/failures";
import { logFault } from "@/lib/observability/events";
import { countBusy, watchCpuPool } from "@/lib/observability/metrics";
import type { ExtractSteps } from "@/lib/extract/steps";
import type { Extracted } from "@/lib/extract/types";
import type { DocumentRef, OutputFormat } from "@/lib/formats";
import type { TierId } from "@/lib/tiers";
import {
  type TaskBody,
  type TaskOutcome,
  type TaskResults,
  type ToMain,
  type ToWorker,
  receiveApiError,
  runTask,
  sendApiError,
} from "./tasks";

/**
 * Where the CPU work of requests runs: chunking (every tier's split), output
 * formats and their JSON, PDF layout, OCR. In the service that is a pool of worker
 * threads, one per core, so the event loop is left with I/O and a large
 * document delays nobody else's request; the command line runs the same
 * tasks in its own thread.
 */
export interface CpuRunner {
  run: <Op extends TaskBody["op"]>(
    task: Extract<TaskBody, { op: Op }>,
    options?: { transfer?: Transferable[]; embedder?: Embedder },
  ) => Promise<TaskResults[Op]>;
}

/**
 * The worker thread's module. A production build runs the one `npm run build` compiled (scripts/compile-node.ts;
 * next.config.ts inlines its folder), so no TypeScript is compiled at run time and no compiler is shipped; dev, tests
 * and scripts load the sources through tsx (workers/cpu-worker.mjs). Resolved from the working directory, not
 * import.meta.url: Next.js bundles lib/ and must neither bundle nor relocate the worker (the extraction worker does
 * the same). Piscina starts it, from node_modules.
 */
const WORKER_FILE =
  process.env.NODE_ENV === "production" && process.env.CHUNKWISE_COMPILED_DIR
    ? path.join(process.cwd(), process.env.CHUNKWISE_COMPILED_DIR, "cpu-worker.mjs")
    : path.join(process.cwd(), "workers/cpu-worker.mjs");

const busy = (capacity: number) =>
  new ApiError(
    "busy",
    `This instance is busy: ${capacity} documents are being processed or waiting. Retry in a few seconds; nothing was charged (a payment stays usable, no free pages were counted).`,
    { headers: { "Retry-After": "2" } },
  );

const processingFailed = (cause: unknown) =>
  new ApiError(
    "processing_failed",
    "Processing this document failed on our side. Try again; a paid request's payment stays usable, a free one's pages were given back.",
    { cause },
  );

/** What the main thread does on a task's messages: the worker started, it waits for embeddings, it has them. */
interface TaskEvents {
  started: () => void;
  waiting: () => void;
  answered: () => void;
}

const IGNORED: TaskEvents = { started: () => undefined, waiting: () => undefined, answered: () => undefined };

/** The main thread's side of a task's port: the worker's start and its requests for embeddings. */
function serve(port: MessagePort, embedder: Embedder | undefined, events: TaskEvents): void {
  port.on("message", (message: ToMain) => {
    if (message.type === "started") return events.started();
    events.waiting();
    void embed(port, embedder, message.id, message.texts).finally(events.answered);
  });
}

async function embed(port: MessagePort, embedder: Embedder | undefined, id: number, texts: string[]): Promise<void> {
  try {
    if (!embedder) throw new Error("a task asked for embeddings without an embedder");
    // Copied, not transferred: an embedder may keep the vectors it returns.
    port.postMessage({ type: "vectors", id, vectors: await embedder.embed(texts) } satisfies ToWorker);
  } catch (error) {
    if (!(error instanceof ApiError)) logFault("Embedding for a worker failed", error);
    const failure = error instanceof ApiError ? error : processingFailed(error);
    port.postMessage({ type: "embed-failed", id, error: sendApiError(failure) } satisfies ToWorker);
  }
}

/**
 * A task's time limit: it runs from the task's start on a worker and stands still while the worker waits for
 * the main thread's embeddings (a provider's time has limits of its own, EMBEDDINGS_TIMEOUT_MS and retries).
 */
class TaskClock implements TaskEvents {
  #leftMs: number;
  #since = 0;
  #timer: NodeJS.Timeout | undefined;
  #waits = 0;
  #stopped = false;

  constructor(
    limitMs: number,
    private readonly expire: () => void,
  ) {
    this.#leftMs = limitMs;
  }

  readonly started = () => this.#run();

  readonly waiting = () => {
    if (this.#waits++ > 0 || !this.#timer) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#leftMs -= performance.now() - this.#since;
  };

  readonly answered = () => {
    if (--this.#waits === 0) this.#run();
  };

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #run(): void {
    if (this.#stopped) return;
    this.#since = performance.now();
    this.#timer = setTimeout(this.expire, Math.max(0, this.#leftMs));
  }
}

function settle<T>(outcome: TaskOutcome<T>): T {
  if (!outcome.ok) throw receiveApiError(outcome.error);
  return outcome.value;
}

/** The same tasks in this thread (the command line, scripts): no time or memory limit of their own. */
export const inThisThread: CpuRunner = {
  async run(task, options = {}) {
    const { port1, port2 } = new MessageChannel();
    serve(port1, options.embedder, IGNORED);
    try {
      return settle(await runTask({ ...task, port: port2 })) as TaskResults[typeof task.op];
    } finally {
      port1.close();
    }
  },
};

/** Without `jobThreads`, jobs get half the threads (at least one), as the config's default. */
export type CpuSettings = Omit<Config["cpu"], "jobThreads"> & { jobThreads?: number };

/** Weight 110 against the main thread's 1024 (nice 0) under Linux's scheduler. */
const WORKER_NICE = 10;

/**
 * A pool of worker threads with a bounded line in front of it. `admit` is
 * asked right before a request's work (its body read, its payment verified
 * or its free pages taken), so a refusal (503 `busy`) costs the client
 * nothing and nothing a client is slow at holds a place. A task that throws gets its error back; one whose worker
 * runs out of its heap or passes the time limit loses its worker, which the
 * pool replaces, and gets a 400 `document_too_complex`.
 */
export class CpuPool implements CpuRunner {
  /**
   * Started by the first task, not with the services: a function that never runs one (health, OpenAPI, job status)
   * starts no thread, and ships no worker to start.
   */
  #pool: Piscina | undefined;
  readonly #start: () => Piscina;
  readonly #timeoutMs: number;
  /** Requests admitted and not yet answered: running on a worker, waiting for one, or doing I/O between tasks. */
  #admitted = 0;
  readonly capacity: number;
  /** Async jobs' share of the threads: their tasks, and their extractions (whose parser workers sit outside the pool). */
  readonly #jobTasks: LimitFunction;
  readonly #jobExtractions: LimitFunction;
  /**
   * The pool as async jobs use it: at most `jobThreads` of their tasks on the threads at once, so a job's OCR
   * (two pages at a time) never fills every thread and synchronous requests always find one.
   */
  readonly forJobs: CpuRunner;
  readonly #unwatch: () => void;

  constructor(settings: CpuSettings, workerFile = WORKER_FILE) {
    this.#start = () => {
      const pool = new Piscina({
        filename: workerFile,
        minThreads: settings.threads,
        maxThreads: settings.threads,
        // Tasks await their port (embeddings): the worker's event loop must keep running between messages.
        atomics: "disabled",
        resourceLimits: { maxOldGenerationSizeMb: settings.heapMb },
        // A worker from the sources loads TypeScript itself (tsx); the parent's loader flags (a test runner's) would only slow it.
        execArgv: [],
        // Below the main thread (Linux thread priorities, through @napi-rs/nice): when the cores are busy, the
        // event loop still gets its turn, so small requests and health checks are answered while documents are chunked.
        niceIncrement: WORKER_NICE,
      });
      // A worker that fails holding no task (it dies after its task ended, or runs out of memory while a timed-out
      // task's worker is being terminated) is replaced by piscina, which reports it here; unheard, it would end the process.
      pool.on("error", (error: unknown) => logFault("A CPU worker failed between tasks", error));
      return pool;
    };
    this.#timeoutMs = settings.taskTimeoutMs;
    this.capacity = settings.threads + settings.queue;
    const jobThreads = settings.jobThreads ?? Math.max(1, Math.floor(settings.threads / 2));
    this.#jobTasks = pLimit(jobThreads);
    this.#jobExtractions = pLimit(jobThreads);
    this.forJobs = { run: (task, options) => this.#jobTasks(() => this.run(task, options)) };
    this.#unwatch = watchCpuPool(this);
  }

  /**
   * Runs a job's extraction when fewer than `jobThreads` others are extracting: each holds one of the parser
   * workers (lib/extract/worker.ts) for its whole OCR, so unbounded jobs would leave requests none. Jobs wait
   * here in line; requests never do.
   */
  jobExtraction<T>(work: () => Promise<T>): Promise<T> {
    return this.#jobExtractions(work);
  }

  /** A place for one request; the returned function gives it back (once, however often it is called). */
  admit(): () => void {
    if (this.#admitted >= this.capacity) {
      countBusy();
      throw busy(this.capacity);
    }
    this.#admitted++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#admitted--;
    };
  }

  /** Runs `work` holding a place (503 `busy` when none is free). */
  async admitted<T>(work: () => Promise<T>): Promise<T> {
    const release = this.admit();
    try {
      return await work();
    } finally {
      release();
    }
  }

  async run<Op extends TaskBody["op"]>(
    task: Extract<TaskBody, { op: Op }>,
    options: { transfer?: Transferable[]; embedder?: Embedder } = {},
  ): Promise<TaskResults[Op]> {
    const { port1, port2 } = new MessageChannel();
    const stop = new AbortController();
    const clock = new TaskClock(this.#timeoutMs, () => stop.abort());
    serve(port1, options.embedder, clock);
    try {
      const outcome = (await (this.#pool ??= this.#start()).run(
        { ...task, port: port2 },
        { transferList: [port2, ...(options.transfer ?? [])], signal: stop.signal },
      )) as TaskOutcome<TaskResults[Op]>;
      return settle(outcome);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (stop.signal.aborted) throw failures.tooComplex("time");
      if ((error as { code?: unknown } | null)?.code === "ERR_WORKER_OUT_OF_MEMORY")
        throw failures.tooComplex("memory");
      logFault("A CPU task failed", error);
      throw processingFailed(error);
    } finally {
      clock.stop();
      port1.close();
    }
  }

  /** What the pool holds now: its workers' thread ids, tasks waiting, requests admitted. */
  stats(): { threadIds: number[]; queued: number; admitted: number } {
    return {
      threadIds: this.#pool?.threads.map((worker) => worker.threadId) ?? [],
      queued: this.#pool?.queueSize ?? 0,
      admitted: this.#admitted,
    };
  }

  async close(): Promise<void> {
    this.#unwatch();
    await this.#pool?.destroy();
  }
}

const encoder = new TextEncoder();

/** The semantic tier's embedder as a worker sees it: the built-in local one is made there; any other stays here. */
const embedderSpec = (embedder: Embedder) =>
  embedder.id === embedderId({ kind: "local" })
    ? ({ kind: "local" } as const)
    : { kind: "remote" as const, id: embedder.id };

/** A document's chunks: as objects, or (with `format`) as the JSON of their records. */
export function chunkOnCpu(
  cpu: CpuRunner,
  extracted: Extracted,
  tier: TierId,
  options: SplitOptions,
  embedder: Embedder,
  more: { sectionStarts?: number[]; format?: { format: OutputFormat; ref: DocumentRef } } = {},
): Promise<TaskResults["chunk"]> {
  const { text: source, ...document } = extracted;
  // Encoded once and moved: the worker gets the buffer itself, not a copy of it.
  const text = encoder.encode(source);
  return cpu.run(
    { op: "chunk", text, document, tier, options, embedder: embedderSpec(embedder), ...more },
    { transfer: [text.buffer], embedder },
  );
}

/** Extraction's layout and OCR on `cpu`, the page items' arrays and the page images moved there. */
export const extractStepsOnCpu = (cpu: CpuRunner, languages: string[]): ExtractSteps => ({
  async layout(pages) {
    const buffers = new Set(
      pages.flatMap((page) => [
        page.geometry.buffer,
        page.font.buffer,
        ...(page.confidence ? [page.confidence.buffer] : []),
      ]),
    );
    return (await cpu.run({ op: "pdf-layout", pages }, { transfer: [...buffers] as ArrayBuffer[] })).pages;
  },
  ocr: (page) => cpu.run({ op: "ocr", page, languages }, { transfer: [page.image.buffer as ArrayBuffer] }),
});
