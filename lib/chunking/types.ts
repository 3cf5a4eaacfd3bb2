import type { ModelClients } from "@/lib/ai/model-client";
import type { Entity } from "@/lib/ai/prompts";
import type { Embedder } from "@/lib/embeddings/types";

/**
 * A chunk as a range of the extracted text. Its text is `source.slice(start, end)`
 * unless the method rewrites it (`text`), as the structure tier does when it
 * re-fences a split code block or repeats a table's header row.
 */
export interface Span {
  start: number;
  end: number;
  tokenCount: number;
  text?: string;
  /** The path of section titles above the chunk (structure tier and up). */
  headings?: string[];
}

export interface SplitOptions {
  maxTokens: number;
  overlapTokens: number;
}

/** What a method may use besides the text: side effects arrive here, chosen at start-up. */
export interface MethodContext {
  embedder: Embedder;
  /** The AI tiers' models; a tier whose model is absent is not configured. */
  models?: ModelClients;
  /** Model calls at once (AI tiers). */
  modelConcurrency?: number;
  progress?: ModelProgress;
  signal?: AbortSignal;
}

/** What an async job shows of the model calls made for it. */
export interface ModelProgress {
  /** A boundary window answered: windows done, windows in all. */
  boundaries: (done: number, total: number) => void;
  /** An enrichment call answered: chunks annotated, chunks in all, calls done, calls in all (the document summary's included). */
  summaries: (chunksDone: number, chunksTotal: number, callsDone: number, callsTotal: number) => void;
  /** The document summary's call is next. */
  documentSummary: () => void;
}

/** What a method found besides the spans, reported in the result's metadata (the AI tiers: model, windows, fallbacks). */
export type MethodDetails = Record<string, unknown>;

/**
 * A line of the chunk on its page as shown: left, top, right, bottom, as shares (0-1) of the page's width and height
 * from its top left corner. A type alias, not an interface, so it fits the store clients' index-signature types.
 */
export type ChunkBox = {
  page: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
};

export interface ChunkMetadata {
  chunk_index: number;
  char_count: number;
  start: number;
  end: number;
  token_count: number;
  page_start?: number;
  page_end?: number;
  /** PDFs and images: one box per line the chunk covers. */
  boxes?: ChunkBox[];
  /** Lines read by OCR: Tesseract's confidence in their words, 0-100, weighted by the characters the chunk holds. */
  ocr_confidence?: number;
  headings?: string[];
  /** ai-pro: what the chunk says, in a sentence or two. */
  summary?: string;
  /** ai-pro: the named entities it mentions. */
  entities?: Entity[];
}

export interface Chunk {
  text: string;
  metadata: ChunkMetadata;
}
