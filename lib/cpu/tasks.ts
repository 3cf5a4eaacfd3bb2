import type { MessagePort } from "node:worker_threads";
import { splitDocument } from "@/lib/chunking";
import { loadLanguageDetector } from "@/lib/language/detect";
import type { Chunk, SplitOptions } from "@/lib/chunking/types";
import { createEmbedder } from "@/lib/embeddings";
import type { Embedder } from "@/lib/embeddings/types";
import type { ErrorCode } from "@/lib/ground/error-codes";
import { ApiError } from "@/lib/ground/errors";
import type { Extracted } from "@/lib/extract/types";
import { toPageContent } from "@/lib/extract/pdf";
import type { OcrPage, PageImage, PdfPageItems } from "@/lib/extract/page-items";
import { layoutPages, type PageLayout } from "@/lib/extract/pdf-layout";
import { type DocumentRef, type OutputFormat, formatChunks } from "@/lib/formats";
import type { TierId } from "@/lib/tiers";

/**
 * The CPU work of a request, as tasks a worker thread runs (workers/cpu-worker.mjs
 * loads this module): chunking, output formats and their JSON, PDF layout, OCR.
 * The same functions run in process for the command line. Each task has a
 * port of its own to the main thread: the worker says when it starts (the
 * time limit counts from then, not from queueing) and asks it for embeddings
 * from a remote embedder, whose network calls stay on the main thread.
 */

export interface ChunkTask {
  op: "chunk";
  /** The extracted text as UTF-8, transferred rather than copied. */
  text: Uint8Array;
  document: Omit<Extracted, "text">;
  tier: TierId;
  options: SplitOptions;
  /** The AI tiers: section starts the model found (on the main thread). */
  sectionStarts?: number[];
  /** The semantic tier's embedder: the built-in local one runs here; any other is asked over the port. */
  embedder: { kind: "local" } | { kind: "remote"; id: string };
  /** Given: the chunks come back as the JSON of their records in this format; else as objects (ai-pro enriches them first). */
  format?: { format: OutputFormat; ref: DocumentRef };
}

export interface FormatTask {
  op: "format";
  chunks: Chunk[];
  format: OutputFormat;
  ref: DocumentRef;
}

export interface LayoutTask {
  op: "pdf-layout";
  /** Their typed arrays transferred. */
  pages: PdfPageItems[];
}

export interface OcrTask {
  op: "ocr";
  /** Its image transferred. */
  page: PageImage;
  languages: string[];
}

export type TaskBody = ChunkTask | FormatTask | LayoutTask | OcrTask;
export type CpuTask = TaskBody & { port: MessagePort };

export interface TaskResults {
  chunk: { count: number; chunks?: Chunk[]; json?: string };
  format: { json: string };
  "pdf-layout": { pages: PageLayout[] };
  ocr: OcrPage;
}

/** An ApiError crosses threads as this (a structured clone keeps only an error's message and name). */
export interface SentApiError {
  code: ErrorCode;
  message: string;
  headers: Record<string, string>;
}

export type TaskOutcome<T> = { ok: true; value: T } | { ok: false; error: SentApiError };

export type ToMain = { type: "started" } | { type: "embed"; id: number; texts: string[] };
export type ToWorker =
  { type: "vectors"; id: number; vectors: Float32Array[] } | { type: "embed-failed"; id: number; error: SentApiError };

export const sendApiError = (error: ApiError): SentApiError => ({
  code: error.code,
  message: error.message,
  headers: error.headers,
});

export const receiveApiError = (error: SentApiError) =>
  new ApiError(error.code, error.message, { headers: error.headers });

/** The main thread's embedder, asked over the task's port. */
class PortEmbedder implements Embedder {
  #next = 0;
  readonly #waiting = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();

  constructor(
    readonly id: string,
    private readonly port: MessagePort,
  ) {
    port.on("message", (message: ToWorker) => {
      const waiting = this.#waiting.get(message.id);
      this.#waiting.delete(message.id);
      if (message.type === "vectors") waiting?.resolve(message.vectors);
      else waiting?.reject(receiveApiError(message.error));
    });
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.port.postMessage({ type: "embed", id, texts } satisfies ToMain);
    });
  }
}

let localEmbedder: Embedder | undefined;

/**
 * OCR's module, loaded by the first OCR task: the main thread imports this module too (the command line runs these
 * tasks in its own thread), and a route that never reads a scan must not load tesseract.js (its function ships none).
 */
const loadRecognize = async () => (await import("@/lib/extract/ocr/recognize")).recognize;

async function chunk(task: ChunkTask, port: MessagePort): Promise<TaskResults["chunk"]> {
  const embedder =
    task.embedder.kind === "local"
      ? (localEmbedder ??= createEmbedder({ kind: "local" }))
      : new PortEmbedder(task.embedder.id, port);
  const text = new TextDecoder().decode(task.text);
  const chunks = await splitDocument({ ...task.document, text }, task.tier, task.options, {
    embedder,
    sectionStarts: task.sectionStarts,
  });
  if (!task.format) return { count: chunks.length, chunks };
  return { count: chunks.length, json: JSON.stringify(formatChunks(chunks, task.format.format, task.format.ref)) };
}

async function run(task: CpuTask): Promise<TaskResults[keyof TaskResults]> {
  switch (task.op) {
    case "chunk":
      return chunk(task, task.port);
    case "format":
      return { json: JSON.stringify(formatChunks(task.chunks, task.format, task.ref)) };
    case "pdf-layout":
      return { pages: layoutPages(task.pages.map(toPageContent)) };
    case "ocr":
      return (await loadRecognize())(task.page, task.languages);
  }
}

/** Runs one task; a refusal of the document (an ApiError) is an answer, anything else a fault that rejects. */
/**
 * What a worker loads before it takes its first task: the language detector's
 * data (~2 s), which every chunk task needs, so its loading never counts
 * against a task's time limit (a replaced worker's first task included).
 */
export async function prepareWorker(): Promise<void> {
  await loadLanguageDetector();
}

export async function runTask(task: CpuTask): Promise<TaskOutcome<TaskResults[keyof TaskResults]>> {
  task.port.postMessage({ type: "started" } satisfies ToMain);
  try {
    return { ok: true, value: await run(task) };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, error: sendApiError(error) };
    throw error;
  } finally {
    task.port.close();
  }
}
