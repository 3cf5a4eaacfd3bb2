import path from "node:path";
import { Worker, type WorkerOptions as WorkerOptionsOfNode } from "node:worker_threads";
import pLimit from "p-limit";
import type { NodeHtmlMarkdownOptions } from "node-html-markdown";
import { z } from "zod";
import type { ApiError } from "@/lib/ground/errors";
import { failures } from "@/lib/extract/failures";

/**
 * A worker thread per document, for the parsers that must not run in the
 * server's thread: pdf.js leaves stray unhandled rejections behind on damaged
 * files (they end the worker, not the server), mammoth can run out of memory
 * on a zip bomb (it hits the worker's heap limit, not the process's), and
 * node-html-markdown's time grows faster than its input (the deadline ends
 * it). The worker answers one library call per request; the decisions
 * between calls are made here, in TypeScript.
 */
type WorkerRequest =
  | { op: "pdf-open"; data: Uint8Array }
  | { op: "pdf-items"; pages?: number[] }
  | { op: "pdf-render"; page: number; dpi: number; maxPixels: number }
  | { op: "pdf-page-image"; page: number; dpi: number; maxPixels: number; blur: number }
  | { op: "docx-html"; data: Uint8Array }
  | { op: "markdown"; segments: string[]; options: Partial<NodeHtmlMarkdownOptions> };

/** A library's complaint about the document, as the worker reports it. */
export const DocumentFailure = z.object({
  ok: z.literal(false),
  stage: z.literal("document"),
  name: z.string(),
  message: z.string(),
});
export type DocumentFailure = z.infer<typeof DocumentFailure>;

const LoadFailure = z.object({ ok: z.literal(false), stage: z.literal("load"), message: z.string() });

export interface ExtractWorker {
  /** Sends one request; resolves with the reply matching `schema`, or the library's complaint about the document. */
  call: <T extends { ok: true }>(request: WorkerRequest, schema: z.ZodType<T>) => Promise<T | DocumentFailure>;
}

export interface WorkerOptions {
  /** For the whole session, not per call: the document gets one time budget. */
  timeoutMs: number;
  /** The error for a worker that died without answering; with these parsers that is the document's doing. */
  damaged: () => ApiError;
  heapMb?: number;
}

/**
 * Heap for one document. Real documents need far less (a 200-page PDF stays
 * under 100 MB); the limit makes a hostile one fail fast instead of taking
 * the machine's memory.
 */
const WORKER_HEAP_MB = 512;

// Resolved from the working directory, not import.meta.url: Next.js bundles
// lib/ and must neither bundle nor relocate the worker.
const WORKER_FILE = path.join(process.cwd(), "workers/extract-worker.mjs");

type Stop = { type: "timeout" } | { type: "out_of_memory" } | { type: "crashed"; error: unknown };

/** Rejects the call in flight when the worker can no longer answer. */
class WorkerStopped extends Error {
  constructor(readonly stop: Stop) {
    super(`extract worker stopped: ${stop.type}`, { cause: stop.type === "crashed" ? stop.error : undefined });
  }
}

/**
 * Workers alive at once. Each may take up to WORKER_HEAP_MB; on a two-core
 * machine more would only share the same CPU, so later documents wait their turn.
 */
const MAX_CONCURRENT_WORKERS = 2;
const slots = pLimit(MAX_CONCURRENT_WORKERS);

/** Runs `session` against a fresh worker, then terminates it whatever happened. */
export function withWorker<T>(options: WorkerOptions, session: (worker: ExtractWorker) => Promise<T>): Promise<T> {
  return slots(() => runSession(options, session));
}

function startWorker(heapMb: number): Worker {
  const workerOptions: WorkerOptionsOfNode = {
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
    // Plain JavaScript: whatever loaders the parent runs under (tsx, a test runner) would only slow its start.
    execArgv: [],
  };
  // Turbopack bundles the target of any `new Worker(...)` it sees (its worker_threads support, which ignores
  // turbopackIgnore here), and the bundled copy cannot import the parsers from node_modules: every PDF, DOCX
  // and HTML upload failed on a built server. Constructed through Reflect, the call is not one it recognises.
  return Reflect.construct(Worker, [WORKER_FILE, workerOptions]);
}

/**
 * One worker started ahead of need, its PDF parser loaded, so a document
 * does not wait the ~0.1 s a thread takes to start and load pdf.js: the
 * next session takes it and starts another. Each worker still serves one
 * document and is ended after it. Unreferenced while it waits, so it never
 * keeps a process alive.
 */
let spare: { worker: Worker; ready: boolean; release: () => void } | undefined;

function takeWorker(heapMb: number): Worker {
  const taken = heapMb === WORKER_HEAP_MB && spare?.ready ? spare : undefined;
  if (taken) {
    spare = undefined;
    taken.release();
    taken.worker.ref();
  }
  if (!spare) prepareSpare();
  return taken?.worker ?? startWorker(heapMb);
}

function prepareSpare(): void {
  const worker = startWorker(WORKER_HEAP_MB);
  const discard = () => {
    if (spare === entry) spare = undefined;
    void worker.terminate().catch(() => {});
  };
  const warmed = (reply: unknown) => {
    if ((reply as { ok?: unknown } | null)?.ok === true) entry.ready = true;
    else discard();
  };
  const entry = {
    worker,
    ready: false,
    // Its own listeners only: the worker's internal ones carry its messages.
    release: () => {
      worker.off("message", warmed);
      worker.off("error", discard);
      worker.off("exit", discard);
    },
  };
  spare = entry;
  worker.unref();
  worker.once("message", warmed);
  worker.on("error", discard);
  worker.on("exit", discard);
  worker.postMessage({ op: "warm" });
}

async function runSession<T>(options: WorkerOptions, session: (worker: ExtractWorker) => Promise<T>): Promise<T> {
  const worker = takeWorker(options.heapMb ?? WORKER_HEAP_MB);
  let stop: Stop | undefined;
  let pending: { resolve: (reply: unknown) => void; reject: (error: WorkerStopped) => void } | undefined;
  const halt = (why: Stop) => {
    stop ??= why;
    pending?.reject(new WorkerStopped(stop));
    pending = undefined;
  };
  const timer = setTimeout(() => halt({ type: "timeout" }), options.timeoutMs);
  worker.on("message", (reply: unknown) => {
    pending?.resolve(reply);
    pending = undefined;
  });
  // `on`, not `once`: an "error" event nobody listens to would be thrown in this thread.
  worker.on("error", (error: unknown) => {
    const code = (error as { code?: unknown } | null)?.code;
    halt(code === "ERR_WORKER_OUT_OF_MEMORY" ? { type: "out_of_memory" } : { type: "crashed", error });
  });
  worker.on("exit", (exitCode) =>
    halt({ type: "crashed", error: new Error(`extract worker exited with code ${exitCode}`) }),
  );

  const call: ExtractWorker["call"] = async (request, schema) => {
    if (stop) throw new WorkerStopped(stop);
    const reply = await new Promise<unknown>((resolve, reject) => {
      pending = { resolve, reject };
      const data = "data" in request ? request.data.slice() : undefined;
      // A copy, transferred: the caller keeps its bytes, and the copy is not cloned a second time.
      worker.postMessage(data ? { ...request, data } : request, data ? [data.buffer] : []);
    });
    if (LoadFailure.safeParse(reply).success) throw failures.extractorUnavailable(reply);
    const failure = DocumentFailure.safeParse(reply);
    if (failure.success) return failure.data;
    const parsed = schema.safeParse(reply);
    if (!parsed.success) throw failures.extractorUnavailable(parsed.error);
    return parsed.data;
  };

  try {
    return await session({ call });
  } catch (error) {
    throw error instanceof WorkerStopped ? asApiError(error.stop, options.damaged) : error;
  } finally {
    clearTimeout(timer);
    // Whatever the worker still has pending (pdf.js's stray rejections included) dies with it.
    void worker.terminate().catch(() => {});
  }
}

function asApiError(stop: Stop, damaged: () => ApiError): ApiError {
  switch (stop.type) {
    case "timeout":
      return failures.tooComplex("time");
    case "out_of_memory":
      return failures.tooComplex("memory");
    case "crashed":
      return damaged();
  }
}
