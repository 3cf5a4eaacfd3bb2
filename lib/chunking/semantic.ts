/**
 * The semantic tier's splitter: chunks end where the topic changes.
 *
 * 1. Units. The text is cut into sentences (`sentence-spans.ts`). A sentence
 *    of fewer than `minUnitTokens` tokens (a heading, a list item, "Dr. "
 *    cut off by the segmenter) joins the next one — or the previous one when
 *    it ends its paragraph — since a few words make a poor vector. A
 *    sentence over `maxTokens` is cut by the recursive splitter, and its
 *    pieces become units with no boundary preference between them.
 * 2. Vectors. All units are embedded in one `embed` call (the embedder
 *    batches).
 * 3. Topic shifts. For every gap between units, the cosine similarity of
 *    the blocks of units on either side and its TextTiling depth
 *    (`topic-shifts.ts`). The strength of a gap is its depth plus
 *    `levelWeight` × (the document's mean similarity − its similarity): a
 *    valley counts, and so does a gap where the two sides have less in
 *    common than neighbours in this document usually do.
 * 4. Threshold, relative to the document: a gap is worth cutting at by how
 *    far its strength exceeds mean + `cutoff` × standard deviation of the
 *    strengths of the document's valleys (local minima of similarity), so
 *    the same rule holds whatever the embedder's scale of similarities and
 *    however homogeneous the document is. Paragraph breaks and line breaks
 *    are likelier places for a topic to change: they are credited with
 *    `paragraphBonus` / `lineBonus` standard deviations.
 * 5. Segmentation. The cuts are chosen by dynamic programming
 *    (`best-segmentation.ts`): the most total (strength − threshold) over the
 *    cuts, less a penalty for each chunk under the soft minimum size
 *    (`minChunkFraction` of `maxTokens`, at most `minChunkCap` tokens),
 *    subject to the hard limit: every chunk has at most `maxTokens` tokens,
 *    exactly counted. A stretch too long for one chunk is therefore cut at
 *    its weakest links, and at plain sentence boundaries when the
 *    similarities say nothing.
 * 6. Small chunks. A chunk still under `smallFraction` of the soft minimum
 *    (a lone heading, a list item) joins the neighbour it is more similar
 *    to, where the two fit (`merge-small.ts`).
 *
 * Chunks are ranges of the text, trimmed of surrounding whitespace: `text`
 * is `source.slice(start, end)`, nothing is rewritten, and the only
 * characters in no chunk are whitespace between chunks.
 *
 * Overlap: each chunk after the first starts with the last whole sentences
 * (units) of the previous chunk's own text, totalling at most
 * `overlapTokens` and never the whole previous chunk; when not even one
 * sentence fits, its last words. The overlap is shortened or dropped where
 * it would push the chunk past `maxTokens`: boundaries are chosen first,
 * overlap is what room is left.
 */
import type { Embedder } from "@/lib/embeddings/types";
import { TokenIndex } from "@/lib/tokens";
import { bestSegmentation } from "./best-segmentation";
import { mergeSmallSegments } from "./merge-small";
import { splitRecursive } from "./recursive";
import { sentenceSpans } from "./sentence-spans";
import { topicShifts } from "./topic-shifts";
import type { Span, SplitOptions } from "./types";

export interface SemanticTuning {
  /** Tokens in each block compared on either side of a gap. */
  blockTokens: number;
  maxBlockUnits: number;
  /** Cut where strength > mean + cutoff × sd of the valleys' strengths. */
  cutoff: number;
  /** Credit, in standard deviations of strength, of a gap at a blank line / a line break. */
  paragraphBonus: number;
  lineBonus: number;
  /** Sentences shorter than this join a neighbour before embedding. */
  minUnitTokens: number;
  /** Soft minimum chunk size: this fraction of maxTokens, at most `minChunkCap` tokens. */
  minChunkFraction: number;
  minChunkCap: number;
  /** Penalty, in standard deviations of strength, of an empty chunk; linear down to none at the minimum size. */
  shortPenalty: number;
  /** Chunks under this fraction of the soft minimum join their more similar neighbour after segmentation, where the two fit. */
  smallFraction: number;
  /** Weight of how far a gap's similarity lies below the document's mean similarity, added to its depth. */
  levelWeight: number;
}

/**
 * Chosen by coordinate search on topic-segmentation sets built like Choi's
 * (runs of sentences or paragraphs from different documents, concatenated):
 * WikiText articles, npm READMEs, Vim's and Python's documentation, licences
 * and chat logs; sections of 40 to 700 tokens; budgets of 200 to 800 tokens;
 * scored by Pk and WindowDiff, then checked on sets drawn with another seed.
 */
export const DEFAULT_TUNING: SemanticTuning = {
  blockTokens: 150,
  maxBlockUnits: 8,
  cutoff: 1,
  paragraphBonus: 1,
  lineBonus: 0.5,
  minUnitTokens: 8,
  minChunkFraction: 0.4,
  minChunkCap: 160,
  shortPenalty: 0.5,
  levelWeight: 8,
  smallFraction: 0.25,
};

/** Characters of a unit given to the embedder: the start of a huge unit says enough about its topic, and stays inside every model's input limit. */
const EMBED_CHARS = 6000;
/** Least standard deviation of strength used as a scale, so that a document of near-identical sentences has no spurious cuts. */
const MIN_DEPTH_SCALE = 0.02;
/** Gain of a cut inside one sentence too long for a chunk: taken only where no other cut will do. */
const INSIDE_SENTENCE = -1e6;

const MIN_MAX_TOKENS = 4;

interface Unit {
  start: number;
  end: number;
  tokens: number;
  /** The unit continues a sentence that was too long for a chunk. */
  continues: boolean;
}

const GAP_INLINE = 0;
const GAP_LINE = 1;
const GAP_PARAGRAPH = 2;

function gapKind(text: string, from: number, to: number): number {
  const newline = text.indexOf("\n", from);
  if (newline < 0 || newline >= to) return GAP_INLINE;
  return text.indexOf("\n", newline + 1) >= 0 && text.indexOf("\n", newline + 1) < to ? GAP_PARAGRAPH : GAP_LINE;
}

const ENDS_SENTENCE = /[.!?。！？…]["'”’)\]]*$/;

function buildUnits(text: string, index: TokenIndex, maxTokens: number, minUnitTokens: number): Unit[] {
  const sentences = sentenceSpans(text);
  const units: Unit[] = [];
  let pending = -1; // start of short sentences waiting to join the next one
  let pendingEnd = -1;
  for (let k = 0; k < sentences.length; k++) {
    const sentence = sentences[k]!;
    let start = pending >= 0 ? pending : sentence.start;
    let tokens = index.count(start, sentence.end);
    if (tokens > maxTokens && pending >= 0) {
      units.push({ start: pending, end: pendingEnd, tokens: index.count(pending, pendingEnd), continues: false });
      start = sentence.start;
      tokens = index.count(start, sentence.end);
    }
    pending = -1;
    if (tokens > maxTokens) {
      const pieces = splitRecursive(text.slice(start, sentence.end), { maxTokens, overlapTokens: 0 });
      pieces.forEach((piece, i) =>
        units.push({ start: start + piece.start, end: start + piece.end, tokens: piece.tokenCount, continues: i > 0 }),
      );
      continue;
    }
    const next = sentences[k + 1];
    if (tokens < minUnitTokens && next) {
      const previous = units[units.length - 1];
      const endsParagraph = gapKind(text, sentence.end, next.start) !== GAP_INLINE;
      const inParagraph = previous !== undefined && gapKind(text, previous.end, start) === GAP_INLINE;
      if (
        endsParagraph &&
        inParagraph &&
        ENDS_SENTENCE.test(text.slice(Math.max(start, sentence.end - 8), sentence.end))
      ) {
        const joined = index.count(previous.start, sentence.end);
        if (joined <= maxTokens) {
          previous.end = sentence.end;
          previous.tokens = joined;
          continue;
        }
      }
      if (index.count(start, next.end) <= maxTokens) {
        pending = start;
        pendingEnd = sentence.end;
        continue;
      }
    }
    units.push({ start, end: sentence.end, tokens, continues: false });
  }
  return units;
}

/** maxEnd[i]: the units i .. maxEnd[i] - 1 fit in one chunk, by exact count (two pointers: about 2n counts). */
function fittingEnds(units: Unit[], index: TokenIndex, maxTokens: number): Int32Array {
  const n = units.length;
  const maxEnd = new Int32Array(n);
  let end = 1;
  for (let i = 0; i < n; i++) {
    if (end <= i) end = i + 1;
    while (end < n && index.count(units[i]!.start, units[end]!.end) <= maxTokens) end++;
    maxEnd[i] = end;
  }
  return maxEnd;
}

function meanAndDeviation(values: number[]): { mean: number; deviation: number } {
  if (values.length === 0) return { mean: 0, deviation: 0 };
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) * (b - mean), 0) / values.length;
  return { mean, deviation: Math.sqrt(variance) };
}

/** What cutting at each gap is worth: strength above the document's threshold (steps 3 and 4). */
function gapGains(
  text: string,
  units: Unit[],
  vectors: Float32Array[],
  tuning: SemanticTuning,
): { gain: Float64Array; scale: number } {
  const n = units.length;
  const shifts = topicShifts(
    vectors,
    units.map((u) => u.tokens),
    { blockTokens: tuning.blockTokens, maxBlockUnits: tuning.maxBlockUnits },
  );
  let meanSimilarity = 0;
  for (let g = 1; g < n; g++) meanSimilarity += shifts.similarity[g]! / (n - 1);
  const strength = new Float64Array(n);
  for (let g = 1; g < n; g++)
    strength[g] = shifts.depth[g]! + tuning.levelWeight * (meanSimilarity - shifts.similarity[g]!);
  const valleys: number[] = [];
  for (let g = 1; g < n; g++) if (shifts.valley[g] && !units[g]!.continues) valleys.push(strength[g]!);
  const { mean, deviation } = meanAndDeviation(valleys);
  const scale = Math.max(deviation, MIN_DEPTH_SCALE);
  const threshold = mean + tuning.cutoff * scale;
  const gain = new Float64Array(n);
  for (let g = 1; g < n; g++) {
    if (units[g]!.continues) {
      gain[g] = INSIDE_SENTENCE;
      continue;
    }
    const kind = gapKind(text, units[g - 1]!.end, units[g]!.start);
    const bonus = kind === GAP_PARAGRAPH ? tuning.paragraphBonus : kind === GAP_LINE ? tuning.lineBonus : 0;
    gain[g] = strength[g]! - threshold + bonus * scale;
  }
  return { gain, scale };
}

function embedUnits(embedder: Embedder, text: string, units: Unit[]): Promise<Float32Array[]> {
  return embedder.embed(
    units.map((u) => {
      let end = Math.min(u.end, u.start + EMBED_CHARS);
      if (end < u.end && isHighSurrogate(text.charCodeAt(end - 1))) end--; // never half a code point
      return text.slice(u.start, end);
    }),
  );
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

/** Start of the overlap carried into a chunk from the previous one [prevStart, prevEnd): whole units, else words; -1 for none. */
function overlapStart(
  text: string,
  index: TokenIndex,
  units: Unit[],
  first: number,
  last: number,
  chunkEnd: number,
  options: SplitOptions,
): number {
  const room = (start: number) =>
    index.count(start, units[last]!.end) <= options.overlapTokens && index.count(start, chunkEnd) <= options.maxTokens;
  let start = -1;
  for (let u = last; u > first && room(units[u]!.start); u--) start = units[u]!.start;
  if (start >= 0) return start;
  // Not one whole unit: the last unit's last words, the earliest word start that fits.
  const unit = units[last]!;
  const wordStarts: number[] = [];
  for (let p = unit.start + 1; p < unit.end; p++) {
    const c = text.charCodeAt(p - 1);
    if ((c === 32 || c === 10 || c === 9) && text.charCodeAt(p) > 32) wordStarts.push(p);
  }
  let lo = 0;
  let hi = wordStarts.length; // the first fitting index is in [lo, hi]; fitting is monotone in p
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (room(wordStarts[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo < wordStarts.length ? wordStarts[lo]! : -1;
}

export async function splitSemantic(
  text: string,
  options: SplitOptions,
  embedder: Embedder,
  tuning: SemanticTuning = DEFAULT_TUNING,
): Promise<Span[]> {
  const { maxTokens, overlapTokens } = options;
  if (!Number.isInteger(maxTokens) || maxTokens < MIN_MAX_TOKENS)
    throw new RangeError(`maxTokens must be an integer of at least ${MIN_MAX_TOKENS}`);
  if (!Number.isInteger(overlapTokens) || overlapTokens < 0 || overlapTokens >= maxTokens)
    throw new RangeError("overlapTokens must be an integer from 0 to maxTokens - 1");
  const index = new TokenIndex(text);
  const units = buildUnits(text, index, maxTokens, tuning.minUnitTokens);
  if (units.length === 0) return [];

  let starts = [0];
  if (units.length > 1) {
    const vectors = await embedUnits(embedder, text, units);
    if (vectors.length !== units.length)
      throw new Error(`embedder ${embedder.id} returned ${vectors.length} vectors for ${units.length} texts`);
    const { gain, scale } = gapGains(text, units, vectors, tuning);
    const tokensBefore = new Float64Array(units.length + 1);
    units.forEach((u, i) => (tokensBefore[i + 1] = tokensBefore[i]! + u.tokens));
    const maxEnd = fittingEnds(units, index, maxTokens);
    const minTokens = Math.min(tuning.minChunkFraction * maxTokens, tuning.minChunkCap);
    starts = bestSegmentation({
      units: units.length,
      gain,
      maxEnd,
      tokensBefore,
      minTokens,
      shortPenalty: tuning.shortPenalty * scale,
    });
    starts = mergeSmallSegments({
      starts,
      units: units.length,
      vectors,
      tokensBefore,
      maxEnd,
      minTokens: minTokens * tuning.smallFraction,
    });
  }

  const spans: Span[] = [];
  for (let s = 0; s < starts.length; s++) {
    const first = starts[s]!;
    const last = (starts[s + 1] ?? units.length) - 1;
    const end = units[last]!.end;
    let start = units[first]!.start;
    if (s > 0 && overlapTokens > 0) {
      const overlap = overlapStart(text, index, units, starts[s - 1]!, first - 1, end, options);
      if (overlap >= 0) start = overlap;
    }
    const tokenCount = index.count(start, end);
    // Counts of joined ranges are not quite monotone in BPE; a chunk the fit check let through over the limit is cut again.
    if (tokenCount > maxTokens) {
      for (const piece of splitRecursive(text.slice(units[first]!.start, end), { maxTokens, overlapTokens: 0 }))
        spans.push({
          start: units[first]!.start + piece.start,
          end: units[first]!.start + piece.end,
          tokenCount: piece.tokenCount,
        });
      continue;
    }
    spans.push({ start, end, tokenCount });
  }
  return spans;
}
