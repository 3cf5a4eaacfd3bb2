/**
 * The ai-pro tier's enrichment: a summary and the named entities of every
 * chunk, then a summary of the whole document from the chunks' summaries.
 *
 * Chunks go to the model in batches of consecutive chunks (fewer, larger
 * calls: a 200-page document is a few dozen calls, not hundreds), at most
 * `concurrency` at a time. A batch whose answers never fit the schema leaves
 * its chunks without enrichment, listed in `unenriched`, rather than failing
 * the job; a provider failure (ApiError 503) fails it.
 */
import pLimit from "p-limit";
import type { ModelProgress } from "@/lib/ai/tier-boundaries";
import type { Entity } from "@/lib/api-schema";
import type { Chunk } from "@/lib/chunking/types";
import { BadReplyError, type ModelClient } from "./model-client";
import {
  CHUNK_ENRICHMENT_TASK,
  DOCUMENT_SUMMARY_TASK,
  chunkEnrichmentMessage,
  documentSummaryMessage,
} from "./prompts";

export interface BatchShape {
  maxChunks: number;
  /** Most tokens of chunk text per call. */
  maxTokens: number;
}

export const DEFAULT_BATCHES: BatchShape = { maxChunks: 12, maxTokens: 6000 };

/** Characters of section summaries the document summary is made from; beyond it they are sampled evenly. */
const SUMMARY_INPUT_CHARS = 40_000;

interface ChunkAnnotation {
  summary: string;
  entities: Entity[];
}

export interface Enrichment {
  /** One per chunk, null where the model's answer was unusable. */
  annotations: Array<ChunkAnnotation | null>;
  documentSummary: string | null;
  /** Indices of chunks left without enrichment, and why. */
  unenriched: Array<{ chunk_index: number; reason: string }>;
  calls: number;
}

/** Batches of consecutive chunk indices, each within the shape (a chunk alone always makes a batch). */
export function planBatches(tokenCounts: readonly number[], shape: BatchShape = DEFAULT_BATCHES): number[][] {
  const batches: number[][] = [];
  let batch: number[] = [];
  let tokens = 0;
  tokenCounts.forEach((count, index) => {
    if (batch.length > 0 && (batch.length >= shape.maxChunks || tokens + count > shape.maxTokens)) {
      batches.push(batch);
      batch = [];
      tokens = 0;
    }
    batch.push(index);
    tokens += count;
  });
  if (batch.length > 0) batches.push(batch);
  return batches;
}

export interface EnrichOptions {
  concurrency: number;
  shape?: BatchShape;
  progress?: Pick<ModelProgress, "summaries" | "documentSummary">;
  signal?: AbortSignal;
}

export async function enrichChunks(
  chunks: readonly Chunk[],
  model: ModelClient,
  options: EnrichOptions,
): Promise<Enrichment> {
  const batches = planBatches(
    chunks.map((c) => c.metadata.token_count),
    options.shape,
  );
  const annotations = new Array<ChunkAnnotation | null>(chunks.length).fill(null);
  const unenriched: Enrichment["unenriched"] = [];
  const limit = pLimit(options.concurrency);
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  let chunksDone = 0;
  let calls = 0;
  const callsTotal = batches.length + 1;
  options.progress?.summaries(0, chunks.length, 0, callsTotal);

  const annotate = async (batch: number[]) => {
    try {
      const answer = await model.ask(
        CHUNK_ENRICHMENT_TASK,
        chunkEnrichmentMessage(batch.map((i) => ({ index: i, text: chunks[i]!.text }))),
        signal,
      );
      for (const item of answer.chunks) {
        if (batch.includes(item.index) && !annotations[item.index])
          annotations[item.index] = { summary: item.summary.trim(), entities: dedupe(item.entities) };
      }
      for (const i of batch)
        if (!annotations[i]) unenriched.push({ chunk_index: i, reason: "the model's answer left this chunk out" });
    } catch (error) {
      if (!(error instanceof BadReplyError)) throw error;
      for (const i of batch) unenriched.push({ chunk_index: i, reason: error.message });
    } finally {
      chunksDone += batch.length;
      options.progress?.summaries(chunksDone, chunks.length, ++calls, callsTotal);
    }
  };

  try {
    await Promise.all(batches.map((batch) => limit(() => annotate(batch))));
  } catch (error) {
    limit.clearQueue();
    stop.abort();
    throw error;
  }

  const summaries = annotations.flatMap((a) => (a?.summary ? [a.summary] : []));
  let documentSummary: string | null = null;
  if (summaries.length > 0) {
    options.progress?.documentSummary();
    try {
      documentSummary = (
        await model.ask(
          DOCUMENT_SUMMARY_TASK,
          documentSummaryMessage(sampled(summaries, SUMMARY_INPUT_CHARS)),
          options.signal,
        )
      ).summary.trim();
    } catch (error) {
      if (!(error instanceof BadReplyError)) throw error;
    }
  }
  unenriched.sort((a, b) => a.chunk_index - b.chunk_index);
  return { annotations, documentSummary, unenriched, calls: batches.length + (summaries.length > 0 ? 1 : 0) };
}

/** Each entity once (same text and type, compared case-insensitively), empty texts dropped. */
function dedupe(entities: Entity[]): Entity[] {
  const seen = new Set<string>();
  return entities
    .filter((e) => {
      const text = e.text.trim();
      const key = `${e.type}\u0000${text.toLowerCase()}`;
      if (!text || seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map((e) => ({ text: e.text.trim(), type: e.type }));
}

/** Summaries within a character budget: all of them, or an even sample in document order. */
function sampled(summaries: string[], budget: number): string[] {
  const total = summaries.reduce((n, s) => n + s.length + 4, 0);
  if (total <= budget) return summaries;
  const keep = Math.max(1, Math.floor(summaries.length * (budget / total)));
  return Array.from({ length: keep }, (_, k) => summaries[Math.floor((k * summaries.length) / keep)]!);
}
