import { RecursiveChunker, SemanticChunker } from "@chonkiejs/core";
import { chunkExtracted } from "@/lib/pipeline/chunk-result";
import { MarkdownTextSplitter, RecursiveCharacterTextSplitter } from "@langchain/textsplitters";
import {
  countTokens as gptCountTokens,
  decode as gptDecode,
  encode as gptEncode,
} from "gpt-tokenizer/encoding/o200k_base";

import type { Embedder } from "@/lib/embeddings/types";
import type { Extracted } from "@/lib/extract/types";
import { TokenIndex, countTokens } from "@/lib/tokens";
import { TIERS, type TierId } from "@/lib/tiers";
import { locateSequential } from "./locate";
import { c99, textTiling } from "./topic-baselines";
import type { Range } from "./metrics";

/** A chunk as the harness measures it: where it lies in the extracted text, and its own size. */
export interface MeasuredChunk extends Range {
  /** o200k tokens of the chunk's text (which a method may have rewritten). */
  tokens: number;
}

export interface Method {
  id: string;
  /** What is actually running, e.g. the method a tier has registered. */
  label: () => string;
  note: string;
  chunk: (extracted: Extracted, maxTokens: number) => Promise<MeasuredChunk[]>;
}

/** Every baseline counts o200k tokens with gpt-tokenizer (exact, special-token strings counted as text, like lib/tokens/). */
const gptCount = (text: string) => gptCountTokens(text, { disallowedSpecial: new Set() });
const gptTokenizer = {
  countTokens: gptCount,
  encode: (text: string) => gptEncode(text, { disallowedSpecial: new Set() }),
  decode: (tokens: number[]) => gptDecode(tokens),
  decodeBatch: (batch: number[][]) => batch.map((tokens) => gptDecode(tokens)),
};

const measured = (text: string, ranges: Range[]): MeasuredChunk[] =>
  ranges.map((r) => ({ ...r, tokens: countTokens(text.slice(r.start, r.end)) }));

/** UTF-8 byte offset → UTF-16 index of the character that byte belongs to (length + 1 entries). */
export function utf8ToUtf16Offsets(text: string): Int32Array {
  const map = new Int32Array(Buffer.byteLength(text, "utf8") + 1);
  let byte = 0;
  for (let i = 0; i < text.length;) {
    const code = text.codePointAt(i)!;
    const bytes = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    for (let b = 0; b < bytes; b++) map[byte + b] = i;
    byte += bytes;
    i += code > 0xffff ? 2 : 1;
  }
  map[byte] = text.length;
  return map;
}

/**
 * Chonkie 0.0.11's WASM splitter returns UTF-8 byte offsets, which Chonkie
 * then uses as string indices: on non-ASCII text its chunk texts are shifted
 * (characters lost or repeated, the tail cut short) and its offsets are, in
 * effect, byte offsets. We measure the boundaries it meant: its offsets read
 * as byte offsets and mapped back to the text (identical for ASCII text).
 * This favours Chonkie over what it returns.
 */
function chonkieRanges(text: string, chunks: ReadonlyArray<{ startIndex: number; endIndex: number }>): MeasuredChunk[] {
  const map = utf8ToUtf16Offsets(text);
  const at = (byte: number) => map[Math.min(Math.max(byte, 0), map.length - 1)]!;
  const ranges = chunks.map((c) => ({ start: at(c.startIndex), end: at(c.endIndex) })).filter((r) => r.end > r.start);
  return measured(text, ranges);
}

function tier(tierId: TierId, embedder: Embedder): Method {
  return {
    id: tierId,
    label: () => `chunkwise ${tierId} (${TIERS[tierId].runningMethod})`,
    note: `the ${tierId} tier through chunkExtracted(), as the API runs it${tierId === "semantic" ? `, embedder ${embedder.id}` : ""}; overlap 0`,
    chunk: (extracted, maxTokens) => tierChunks(extracted, tierId, maxTokens, embedder),
  };
}

/** A tier's chunks through chunkExtracted(), as the API runs it, with no overlap. */
async function tierChunks(
  extracted: Extracted,
  tierId: TierId,
  maxTokens: number,
  embedder: Embedder,
): Promise<MeasuredChunk[]> {
  const { chunks } = await chunkExtracted(extracted, tierId, { maxTokens, overlapTokens: 0 }, { embedder });
  return chunks.map((c) => ({ start: c.metadata.start, end: c.metadata.end, tokens: c.metadata.token_count }));
}

/** Greedy runs of whole o200k pre-tokens up to the budget: a fixed-size token window that ignores all structure. */
export function fixedSizeRanges(text: string, maxTokens: number): Range[] {
  const index = new TokenIndex(text);
  const ranges: Range[] = [];
  let piece = 0;
  while (piece < index.pieces) {
    const first = piece;
    const base = index.tokensBefore(first);
    while (piece < index.pieces && index.tokensBefore(piece + 1) - base <= maxTokens) piece++;
    // One pre-token over budget on its own (a long run of digits or symbols): take it alone.
    if (piece === first) piece++;
    ranges.push({ start: index.pieceStart(first), end: index.pieceStart(piece) });
  }
  return ranges;
}

export function createMethods(embedder: Embedder): Method[] {
  const langchain = (
    id: string,
    name: string,
    Splitter: typeof RecursiveCharacterTextSplitter,
    note: string,
  ): Method => ({
    id,
    label: () => name,
    note,
    async chunk(extracted, maxTokens) {
      const splitter = new Splitter({ chunkSize: maxTokens, chunkOverlap: 0, lengthFunction: gptCount });
      const pieces = await splitter.splitText(extracted.text);
      return measured(extracted.text, locateSequential(extracted.text, pieces));
    },
  });
  const embed = async (texts: string[]) => (await embedder.embed(texts)).map((v) => Array.from(v));
  return [
    tier("free", embedder),
    tier("structure", embedder),
    tier("semantic", embedder),
    langchain(
      "langchain-recursive",
      "LangChain RecursiveCharacterTextSplitter",
      RecursiveCharacterTextSplitter,
      "@langchain/textsplitters, chunkSize = max_tokens, chunkOverlap 0, lengthFunction = gpt-tokenizer o200k countTokens; default separators",
    ),
    langchain(
      "langchain-markdown",
      "LangChain MarkdownTextSplitter",
      MarkdownTextSplitter,
      "@langchain/textsplitters MarkdownTextSplitter (Markdown separators), sized like the recursive one",
    ),
    {
      id: "chonkie-recursive",
      label: () => "Chonkie RecursiveChunker",
      note: "@chonkiejs/core RecursiveChunker, chunkSize = max_tokens, tokenizer = gpt-tokenizer o200k; default rules",
      async chunk(extracted, maxTokens) {
        const chunker = await RecursiveChunker.create({ chunkSize: maxTokens, tokenizer: gptTokenizer });
        return chonkieRanges(extracted.text, await chunker.chunk(extracted.text));
      },
    },
    {
      id: "chonkie-semantic",
      label: () => "Chonkie SemanticChunker",
      note: `@chonkiejs/core SemanticChunker, chunkSize = max_tokens, tokenizer = gpt-tokenizer o200k, embeddings = our embedder (${embedder.id}); defaults otherwise (threshold 0.8, window 3)`,
      async chunk(extracted, maxTokens) {
        const chunker = await SemanticChunker.create({
          embeddings: embed,
          chunkSize: maxTokens,
          tokenizer: gptTokenizer,
        });
        return chonkieRanges(extracted.text, await chunker.chunk(extracted.text));
      },
    },
    {
      id: "fixed",
      label: () => "fixed-size tokens",
      note: "baseline: consecutive windows of max_tokens o200k tokens (whole pre-tokens), no regard for structure or meaning",
      async chunk(extracted, maxTokens) {
        return measured(extracted.text, fixedSizeRanges(extracted.text, maxTokens));
      },
    },
  ];
}

/** A topic segmenter's boundaries as chunks: the text between consecutive boundaries, however long. */
function topicSegmenter(id: string, name: string, note: string, boundaries: (text: string) => number[]): Method {
  return {
    id,
    label: () => name,
    note,
    async chunk(extracted) {
      const { text } = extracted;
      const cuts = [0, ...boundaries(text).filter((b) => b > 0 && b < text.length), text.length];
      return measured(
        text,
        cuts.slice(1).map((end, i) => ({ start: cuts[i]!, end })),
      );
    },
  };
}

/**
 * The semantic tier as it runs on documents of other lengths
 * (lib/chunking/semantic/): the model given every sentence (up to ~40,000
 * characters), every other sentence (to ~80,000), or none (word overlap
 * alone). Forced here by telling the splitter what share of the sample the
 * model reads.
 */
export function createSemanticVariants(embedder: Embedder): Method[] {
  const variant = (id: string, name: string, note: string, share: number): Method => ({
    id,
    label: () => name,
    note,
    chunk: (extracted, maxTokens) =>
      tierChunks(extracted, "semantic", maxTokens, {
        id: embedder.id,
        embed: (texts) => embedder.embed(texts),
        charsPerDocument: share >= 1 ? undefined : Math.max(1, Math.floor(extracted.text.length * share)),
      }),
  });
  return [
    variant(
      "semantic-all",
      "chunkwise semantic, model reads every sentence",
      "the semantic tier as on documents of up to ~40,000 characters: the model's curve from every sentence",
      1,
    ),
    variant(
      "semantic-half",
      "chunkwise semantic, model reads every other sentence",
      "the semantic tier as on documents of ~40,000-80,000 characters: the model's curve from every other sentence",
      0.5,
    ),
    variant(
      "semantic-words",
      "chunkwise semantic, word overlap alone",
      "the semantic tier as on documents past ~80,000 characters: hashed words and n-grams only, the model not asked",
      0,
    ),
  ];
}

/** Classic topic segmenters (eval/topic-baselines.ts), for the segmentation sets only: they know no token budget. */
export function createTopicBaselines(): Method[] {
  return [
    topicSegmenter(
      "texttiling",
      "TextTiling (Hearst 1997)",
      "baseline, written for the evaluation: NLTK's defaults (w 20, k 10, smoothing width 2, cutoff mean - sd/2), English stop words, no stemming; ignores max_tokens",
      (text) => textTiling(text),
    ),
    topicSegmenter(
      "c99",
      "C99 (Choi 2000)",
      "baseline, written for the evaluation: sentence cosine matrix, 11 x 11 rank mask, divisive clustering stopped at mean + 1.2 sd of the density gains, English stop words; ignores max_tokens",
      (text) => c99(text),
    ),
  ];
}
