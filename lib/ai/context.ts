/**
 * `context=true` on the AI tiers: a sentence or two per chunk, written by the tier's model, that situates the chunk
 * in its document (Anthropic's contextual retrieval), to be embedded with it.
 *
 * The prompt holds the whole document when it fits `documentTokens`; a longer one is shown as its summary (ai-pro's
 * document summary; on ai, which makes none, the document's opening) and the text just before and after the batch. Chunks go in
 * batches of consecutive chunks, at most `maxCalls` calls a document (the batches grow to fit, up to a size a reply
 * can hold; chunks past the last call keep the deterministic prefix), `concurrency` at a time. A batch whose reply
 * never fits the schema (the client asks once more) leaves its chunks to the deterministic prefix, listed in
 * `fallback`; a provider failure (ApiError 503) fails the request, as the other model steps do.
 */
import pLimit from "p-limit";
import type { Chunk } from "@/lib/chunking/types";
import { countTokens } from "@/lib/tokens";
import type { AnswerCache } from "./answer-cache";
import { type BatchShape, planBatches } from "./enrich";
import { BadReplyError, type ModelClient } from "./model-client";
import { CHUNK_CONTEXT_TASK, type ChunkContexts, chunkContextMessage } from "./prompts";

/** Chunks a call holds at least (fewer calls), and at most (a reply of that many contexts stays well inside a model's output limit). */
const CHUNKS_PER_CALL = { least: 16, most: 32 };
/** Most tokens of chunk text a call shows besides the document. */
const CHUNK_TOKENS_PER_CALL = 8000;
/** A long document's text shown before and after a batch (about 1,000 tokens each). */
const SURROUNDING_CHARS = 4000;
/** On ai, a long document's stand-in for a summary: its opening. */
const OPENING_CHARS = 6000;
/** A context longer than this is cut: it is embedded with every chunk, and must not crowd the chunk out. */
const CONTEXT_MAX_CHARS = 600;

export interface ContextOptions {
  concurrency: number;
  maxCalls: number;
  /** A document of at most this many tokens goes whole into every call. */
  documentTokens: number;
  /** The document's summary when the tier made one (ai-pro). */
  summary?: string | null;
  /** Answers kept across requests; absent: every batch is asked. */
  cache?: AnswerCache;
  progress?: (callsDone: number, callsTotal: number) => void;
  signal?: AbortSignal;
}

export interface Contexts {
  /** One per chunk, null where it keeps the deterministic prefix only. */
  contexts: Array<string | null>;
  fallback: Array<{ chunk_index: number; reason: string }>;
  /** Batches asked of the model (answers from the cache not counted; a bad reply's retry neither). */
  calls: number;
}

/** The batches asked, within `maxCalls`, and the chunks past them. */
export function planContextBatches(
  tokenCounts: readonly number[],
  maxCalls: number,
): { asked: number[][]; over: number[] } {
  const perCall = Math.min(
    CHUNKS_PER_CALL.most,
    Math.max(CHUNKS_PER_CALL.least, Math.ceil(tokenCounts.length / maxCalls)),
  );
  const shape: BatchShape = { maxChunks: perCall, maxTokens: CHUNK_TOKENS_PER_CALL };
  const batches = planBatches(tokenCounts, shape);
  return { asked: batches.slice(0, maxCalls), over: batches.slice(maxCalls).flat() };
}

/** Whether the whole document fits the prompt: counted unless it is far too long to. */
function fitsWhole(text: string, documentTokens: number): boolean {
  // A token is rarely more than ten UTF-16 units; it may be less than one (CJK, emoji), so a short text is counted too.
  if (text.length > documentTokens * 10) return false;
  return countTokens(text) <= documentTokens;
}

export async function situateChunks(
  chunks: readonly Chunk[],
  documentText: string,
  model: ModelClient,
  options: ContextOptions,
): Promise<Contexts> {
  const { asked, over } = planContextBatches(
    chunks.map((c) => c.metadata.token_count),
    options.maxCalls,
  );
  const contexts = new Array<string | null>(chunks.length).fill(null);
  const fallback: Contexts["fallback"] = over.map((i) => ({
    chunk_index: i,
    reason: `past the ${options.maxCalls} model calls a document's contexts may take (AI_CONTEXT_MAX_CALLS)`,
  }));
  const whole = fitsWhole(documentText, options.documentTokens);
  const summary = options.summary || `The document begins:\n${documentText.slice(0, OPENING_CHARS).trim()}`;
  const limit = pLimit(options.concurrency);
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  let calls = 0;
  let done = 0;
  options.progress?.(0, asked.length);

  const situate = async (batch: number[]) => {
    const first = chunks[batch[0]!]!.metadata;
    const last = chunks[batch.at(-1)!]!.metadata;
    const message = chunkContextMessage(
      whole
        ? { whole: documentText }
        : {
            summary,
            // The chunks themselves are shown below: only what lies around them.
            before: documentText.slice(Math.max(0, first.start - SURROUNDING_CHARS), first.start),
            after: documentText.slice(last.end, last.end + SURROUNDING_CHARS),
          },
      batch.map((i) => ({ index: i, text: chunks[i]!.text })),
    );
    try {
      let answer: ChunkContexts;
      if (options.cache) {
        const got = await options.cache.ask(model, CHUNK_CONTEXT_TASK, message, signal);
        answer = got.answer;
        if (!got.cached) calls++;
      } else {
        answer = await model.ask(CHUNK_CONTEXT_TASK, message, signal);
        calls++;
      }
      for (const item of answer.contexts) {
        const context = cleaned(item.context);
        if (batch.includes(item.index) && context && !contexts[item.index]) contexts[item.index] = context;
      }
      for (const i of batch)
        if (!contexts[i]) fallback.push({ chunk_index: i, reason: "the model's answer left this chunk out" });
    } catch (error) {
      if (!(error instanceof BadReplyError)) throw error;
      calls++;
      for (const i of batch) fallback.push({ chunk_index: i, reason: error.message });
    } finally {
      options.progress?.(++done, asked.length);
    }
  };

  try {
    await Promise.all(asked.map((batch) => limit(() => situate(batch))));
  } catch (error) {
    limit.clearQueue();
    stop.abort();
    throw error;
  }
  fallback.sort((a, b) => a.chunk_index - b.chunk_index);
  return { contexts, fallback, calls };
}

/** One line, within `CONTEXT_MAX_CHARS` (cut with "…"); empty when the model wrote nothing. */
function cleaned(context: string): string {
  const flat = context.replace(/\s+/g, " ").trim();
  return flat.length <= CONTEXT_MAX_CHARS ? flat : `${flat.slice(0, CONTEXT_MAX_CHARS - 1).trimEnd()}…`;
}
