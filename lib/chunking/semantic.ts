/**
 * The semantic tier's splitter: chunks end where the topic changes.
 *
 * 1. Units. The text is cut into sentences (`sentence-spans.ts`). A sentence
 *    of fewer than `minUnitTokens` tokens (a heading, a list item, "Dr. "
 *    cut off by the segmenter) joins the next one — or the previous one when
 *    it ends its paragraph — since a few words make a poor vector. A
 *    sentence over `maxTokens` is cut by the recursive splitter, and its
 *    pieces become units with no boundary preference between them.
 * 2. Vectors, two per unit: the embedder's (meaning; one `embed` call, the
 *    embedder batches) and hashed words and character n-grams (word
 *    overlap, the lexical cohesion TextTiling and C99 measure).
 * 3. Topic shifts. For every gap between units, the cosine similarity of
 *    the blocks of units on either side, for each kind of vector, mixed in
 *    the share `lexicalWeight`; then its TextTiling depth
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
 *    In Markdown, a code block, table, list or HTML block that fits in
 *    `maxTokens` (else each of its rows or items) is kept whole: a cut inside one is worth
 *    `INSIDE_BLOCK`, taken only where nothing else fits, and no overlap
 *    starts inside one.
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
import { HashedNgramEmbedder } from "@/lib/embeddings/hashed-ngrams";
import type { Embedder } from "@/lib/embeddings/types";
import { TokenIndex } from "@/lib/tokens";
import { bestSegmentation } from "./best-segmentation";
import type { Block } from "./blocks";
import { scanMarkdown } from "./markdown-scan";
import { mergeSmallSegments } from "./merge-small";
import { splitRecursive } from "./recursive";
import { sentenceSpans } from "./sentence-spans";
import { isSpace } from "./whitespace";
import { blockSimilarity, shiftsOf } from "./topic-shifts";
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
  /** Share of word overlap (hashed words and n-grams) in the similarity at a gap, beside the embedder's (0..1). */
  lexicalWeight: number;
}

/**
 * Chosen by coordinate search (scripts/tune-semantic.ts) with the built-in
 * sentence encoder, minimising mean Pk over development samples built like
 * the evaluation's two topic-segmentation sets (mixed-length sections; and
 * Choi's 3-11 sentence segments) but drawn with another seed, at max_tokens
 * 512, 256 and 1024. `npm run eval` reports the sets it was not tuned on.
 */
export const DEFAULT_TUNING: SemanticTuning = {
  blockTokens: 80,
  maxBlockUnits: 8,
  cutoff: 0.75,
  paragraphBonus: 0.5,
  lineBonus: 1,
  minUnitTokens: 4,
  minChunkFraction: 0.5,
  minChunkCap: 160,
  shortPenalty: 0.25,
  levelWeight: 4,
  smallFraction: 0.25,
  lexicalWeight: 0.5,
};

/** Characters of a unit given to the embedder: the start of a huge unit says enough about its topic, and stays inside every model's input limit. */
const EMBED_CHARS = 6000;
/** Least standard deviation of strength used as a scale, so that a document of near-identical sentences has no spurious cuts. */
const MIN_DEPTH_SCALE = 0.02;
/** Gain of a cut inside one sentence too long for a chunk: taken only where no other cut will do. */
const INSIDE_SENTENCE = -1e6;
/** Gain of a cut inside a code block, table or list that fits in a chunk: taken only where nothing else fits. */
const INSIDE_BLOCK = -1e3;

const MIN_MAX_TOKENS = 4;

interface Unit {
  start: number;
  end: number;
  tokens: number;
  /** The unit continues a sentence that was too long for a chunk. */
  continues: boolean;
  /** The unit starts inside a code block, table or list that fits in a chunk: no chunk starts here. */
  inBlock: boolean;
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
      units.push({
        start: pending,
        end: pendingEnd,
        tokens: index.count(pending, pendingEnd),
        continues: false,
        inBlock: false,
      });
      start = sentence.start;
      tokens = index.count(start, sentence.end);
    }
    pending = -1;
    if (tokens > maxTokens) {
      const pieces = splitRecursive(text.slice(start, sentence.end), { maxTokens, overlapTokens: 0 });
      pieces.forEach((piece, i) =>
        units.push({
          start: start + piece.start,
          end: start + piece.end,
          tokens: piece.tokenCount,
          continues: i > 0,
          inBlock: false,
        }),
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
    units.push({ start, end: sentence.end, tokens, continues: false, inBlock: false });
  }
  return units;
}

/**
 * The units with those that start inside a block kept whole marked: Markdown
 * code blocks, tables, lists and HTML blocks that fit in `maxTokens` (the
 * block scan of the structure tier); of one too big, its rows or items that
 * fit; of a block quote, its blocks. A unit that runs out of such a block
 * (a closing fence joined to the next sentence, being short) is cut at the
 * block's end, so the block can end a chunk.
 */
function markWholeBlocks(text: string, units: Unit[], index: TokenIndex, maxTokens: number): Unit[] {
  const ranges: Array<[number, number]> = [];
  const visit = (blocks: readonly Block[]) => {
    for (const block of blocks) {
      const kept = block.type === "code" || block.type === "table" || block.type === "list" || block.type === "html";
      const part = block.type === "listItem" || block.type === "tableRow";
      if ((kept || part) && index.count(block.start, block.end) <= maxTokens) ranges.push([block.start, block.end]);
      else if (block.children.length > 0) visit(block.children);
    }
  };
  visit(scanMarkdown(text));
  if (ranges.length === 0) return units;
  ranges.sort((a, b) => a[0] - b[0]);
  const out: Unit[] = [];
  let r = 0;
  const push = (unit: Unit) => {
    while (r < ranges.length && ranges[r]![1] <= unit.start) r++;
    const range = ranges[r];
    unit.inBlock = range !== undefined && range[0] < unit.start;
    if (!unit.inBlock || unit.continues || unit.end <= range![1]) {
      out.push(unit);
      return;
    }
    let rest = range![1];
    while (rest < unit.end && isSpace(text.charCodeAt(rest))) rest++;
    out.push({ ...unit, end: range![1], tokens: index.count(unit.start, range![1]) });
    if (rest < unit.end) push({ ...unit, start: rest, tokens: index.count(rest, unit.end), inBlock: false });
  };
  for (const unit of units) push(unit);
  return out;
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
  similarity: Float64Array,
  tuning: SemanticTuning,
): { gain: Float64Array; scale: number } {
  const n = units.length;
  const shifts = shiftsOf(similarity);
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
    if (units[g]!.continues || units[g]!.inBlock) {
      gain[g] = units[g]!.continues ? INSIDE_SENTENCE : INSIDE_BLOCK;
      continue;
    }
    const kind = gapKind(text, units[g - 1]!.end, units[g]!.start);
    const bonus = kind === GAP_PARAGRAPH ? tuning.paragraphBonus : kind === GAP_LINE ? tuning.lineBonus : 0;
    gain[g] = strength[g]! - threshold + bonus * scale;
  }
  return { gain, scale };
}

const lexical = new HashedNgramEmbedder();
/** Read fewer units than every other, the model's curve does worse than word overlap alone (see below). */
const MAX_STRIDE = 2;

/**
 * The similarity at each gap (step 3): the embedder's block similarity and
 * word overlap's (hashed words and n-grams, every unit), mixed in the share
 * `lexicalWeight`. Also each unit's word vector, for merging small chunks.
 *
 * An embedder that reads only so much of a document (`charsPerDocument`: the
 * built-in model, on this machine's CPU) is given every other unit when that
 * keeps within it; its curve is then computed on those units, each standing
 * for its pair, and read at the nearest of its gaps. A longer document is
 * cut by word overlap alone. Pk on the evaluation's two topic-segmentation
 * sets at 512 tokens (`npm run eval`): every unit read 12.9 / 12.7; every
 * other 16.0 / 17.3; word overlap alone 21.6 / 20.6. (Every 4th, measured
 * once on the same sets with a stride forced: 20.0 / 27.2, worse than word
 * overlap alone.)
 */
async function similarityCurve(
  embedder: Embedder,
  text: string,
  units: Unit[],
  tuning: SemanticTuning,
): Promise<{ similarity: Float64Array; words: Float32Array[] }> {
  const n = units.length;
  const texts = units.map((u) => {
    let end = Math.min(u.end, u.start + EMBED_CHARS);
    if (end < u.end && isHighSurrogate(text.charCodeAt(end - 1))) end--; // never half a code point
    return text.slice(u.start, end);
  });
  const tokens = units.map((u) => u.tokens);
  const blocks = { blockTokens: tuning.blockTokens, maxBlockUnits: tuning.maxBlockUnits };
  const words = texts.map((t) => lexical.embedOne(t));
  const lexicalCurve = blockSimilarity(words, tokens, blocks);
  if (tuning.lexicalWeight >= 1) return { similarity: lexicalCurve, words };

  const chars = texts.reduce((sum, t) => sum + t.length, 0);
  const stride = embedder.charsPerDocument ? Math.max(1, Math.ceil(chars / embedder.charsPerDocument)) : 1;
  if (stride > MAX_STRIDE) return { similarity: lexicalCurve, words };
  const read = texts.map((_, i) => i).filter((i) => i % stride === 0);
  if (read.length < 2) return { similarity: lexicalCurve, words };
  const meaning = await embedder.embed(read.map((i) => texts[i]!));
  if (meaning.length !== read.length)
    throw new Error(`embedder ${embedder.id} returned ${meaning.length} vectors for ${read.length} texts`);
  const groupTokens = read.map((i) => tokens.slice(i, i + stride).reduce((a, b) => a + b, 0));
  const meaningCurve = blockSimilarity(meaning, groupTokens, {
    blockTokens: tuning.blockTokens,
    maxBlockUnits: Math.max(1, Math.round(tuning.maxBlockUnits / stride)),
  });
  const similarity = new Float64Array(n);
  const w = tuning.lexicalWeight;
  for (let g = 1; g < n; g++) {
    const j = Math.min(Math.max(1, Math.round(g / stride)), read.length - 1);
    similarity[g] = (1 - w) * meaningCurve[j]! + w * lexicalCurve[g]!;
  }
  return { similarity, words };
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
  // Never from inside a code block, table or list: the chunk would open with a piece of it.
  for (let u = last; u > first && room(units[u]!.start); u--) if (!units[u]!.inBlock) start = units[u]!.start;
  if (start >= 0 || units[last]!.inBlock) return start;
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

export interface SemanticOptions extends SplitOptions {
  /** "markdown" (default): Markdown's code blocks, tables and lists are kept whole where they fit. "plain": no Markdown. */
  flavor?: "markdown" | "plain";
}

export async function splitSemantic(
  text: string,
  options: SemanticOptions,
  embedder: Embedder,
  tuning: SemanticTuning = DEFAULT_TUNING,
): Promise<Span[]> {
  const { maxTokens, overlapTokens } = options;
  if (!Number.isInteger(maxTokens) || maxTokens < MIN_MAX_TOKENS)
    throw new RangeError(`maxTokens must be an integer of at least ${MIN_MAX_TOKENS}`);
  if (!Number.isInteger(overlapTokens) || overlapTokens < 0 || overlapTokens >= maxTokens)
    throw new RangeError("overlapTokens must be an integer from 0 to maxTokens - 1");
  const index = new TokenIndex(text);
  const built = buildUnits(text, index, maxTokens, tuning.minUnitTokens);
  if (built.length === 0) return [];
  const units = options.flavor === "plain" ? built : markWholeBlocks(text, built, index, maxTokens);

  let starts = [0];
  if (units.length > 1) {
    const { similarity, words } = await similarityCurve(embedder, text, units, tuning);
    const { gain, scale } = gapGains(text, units, similarity, tuning);
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
      vectors: words,
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
