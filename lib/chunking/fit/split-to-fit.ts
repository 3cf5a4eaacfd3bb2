/**
 * Recursive splitting sized in exact tokens (o200k_base unless asked otherwise):
 * the whole of the free tier's method (../recursive.ts), and what the other
 * tiers use to cut a sentence, block or segment too big for one chunk.
 *
 * A range too big for one chunk is cut at the coarsest separator present —
 * paragraphs, then lines, sentences, words (in Chinese, Japanese, Thai, Lao,
 * Khmer and Burmese, where spaces do not separate words, as Intl.Segmenter
 * finds them: text/word-breaks.ts), grapheme clusters — and its
 * pieces are merged greedily, neighbour by neighbour, into chunks of at most
 * `maxTokens`; a piece that alone is too big is split the same way one level
 * finer. Separators stay with the text before them; each chunk is trimmed of
 * surrounding whitespace, so the only characters in no chunk are whitespace
 * between chunks.
 *
 * Sizes are exact: every reported `tokenCount` is `countTokens` of the chunk's
 * text, computed on the chunk's final offsets. The document is pre-tokenized
 * once (`TokenIndex`); candidate chunks are counted exactly from its prefix
 * sums, guided by its cheap estimates, so the cost stays near one
 * tokenizer pass whatever the recursion does.
 *
 * Overlap: each chunk after the first starts with the last words of the
 * previous chunk (or graphemes, where the text is being split into graphemes)
 * totalling at most `overlapTokens`, shortened or dropped when they would push
 * the chunk past `maxTokens`.
 *
 * Chunk edges fall on grapheme-cluster boundaries, with one exception: a
 * single grapheme cluster of more than `maxTokens` tokens (a pathological
 * stack of combining marks) is cut between code points. Surrogate pairs are
 * never cut.
 *
 * Speed: ~20 MB/s on real text. Text with no separator for a whole chunk or
 * more (one pre-token: a long run of letters, unpunctuated CJK, emoji without
 * spaces) is cut between graphemes, and every candidate cut there is counted
 * by merging the chunk afresh: ~0.3-0.5 MB/s on such stretches.
 *
 * Grapheme boundaries are in ../text/graphemes.ts.
 */
import { TokenIndex } from "@/lib/tokens";
import type { Span, SplitOptions } from "../types";
import { isHighSurrogate, isLowSurrogate } from "../text/surrogates";
import { isSpace } from "../text/whitespace";
import { needsWordSegmenter, wordEnds } from "../text/word-breaks";
import { isGraphemeBoundary, nextGraphemeBoundary, previousGraphemeBoundary, graphemeStarts } from "../text/graphemes";
import { earliestFitting, wordStarts } from "./overlap";

// Levels, coarsest first; lines (1) and sentences (2) are reached only as `level + 1`.
const PARAGRAPH = 0;
const WORD = 3;
const GRAPHEME = 4;
const CODE_POINT = 5;

/** Separators of the regex-split levels; each match ends a piece. */
const SEPARATORS: readonly RegExp[] = [
  /\n(?:[^\S\n]*\n)+/g, // a blank line, possibly holding spaces or \r
  /\n/g,
  // Latin full stops need whitespace after them (1.5, e.g, URLs); CJK ones do not.
  /[.!?]+["'”’)\]]*\s+|[。！？]+[」』”’）]*\s*/g,
  /\s+/g,
];

/** Fewest tokens `maxTokens` may be: one code point can take four (one per UTF-8 byte). */
const MIN_MAX_TOKENS = 4;

interface Splitter {
  readonly text: string;
  readonly index: TokenIndex;
  readonly maxTokens: number;
  readonly overlapTokens: number;
  readonly spans: Span[];
}

/** First offset in [from, limit) not holding whitespace (`limit` if none), widened back to a cluster start. */
function trimStart(s: Splitter, from: number, limit: number, level: number): number {
  const text = s.text;
  let p = from;
  while (p < limit && isSpace(text.charCodeAt(p))) p++;
  // A space followed by a combining mark is one cluster; keep it whole.
  if (p < limit && level < CODE_POINT && p > from) p = Math.max(from, previousGraphemeBoundary(text, p));
  return p;
}

/** End of the range [floor, to) without trailing whitespace, widened to a cluster end. */
function trimEnd(s: Splitter, floor: number, to: number, level: number): number {
  const text = s.text;
  let p = to;
  while (p > floor && isSpace(text.charCodeAt(p - 1))) p--;
  if (p > floor && level < CODE_POINT && p < to) p = Math.min(to, nextGraphemeBoundary(text, p));
  return p;
}

/** Ends of the pieces of [start, end) at `level`, ascending, the last one `end`. */
function pieceEnds(s: Splitter, start: number, end: number, level: number): Int32Array {
  const text = s.text;
  const out: number[] = [];
  if (level === WORD && needsWordSegmenter(text, start, end)) {
    for (const stop of wordEnds(text, start, end)) if (isGraphemeBoundary(text, stop)) out.push(stop);
  } else if (level < GRAPHEME) {
    const re = SEPARATORS[level]!;
    re.lastIndex = start;
    for (let m = re.exec(text); m !== null && m.index < end; m = re.exec(text)) {
      const stop = re.lastIndex;
      if (stop >= end) break;
      if (isGraphemeBoundary(text, stop)) out.push(stop);
    }
  } else if (level === GRAPHEME) {
    graphemeStarts(text, start, end, out);
  } else {
    for (let i = start + 1; i < end; i++)
      if (!isLowSurrogate(text.charCodeAt(i)) || !isHighSurrogate(text.charCodeAt(i - 1))) out.push(i);
  }
  out.push(end);
  return Int32Array.from(out);
}

interface Fit {
  /** Index of the last piece in the chunk; -1 when not even the first piece fits. */
  last: number;
  end: number;
  tokens: number;
}

/** Largest index j ≥ i with ends[j] ≤ target (i - 1 if none), searching ends[i .. hi). */
function lastEndAtMost(ends: Int32Array, i: number, hi: number, target: number): number {
  let lo = i - 1;
  while (lo + 1 < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (mid < hi && ends[mid]! <= target) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * The longest run of pieces first .. j that fits in one chunk starting at
 * `start`, by exact counts. Counts grow with j, so this is a search: the first
 * probe comes from the document's prefix-sum estimate, later ones interpolate
 * tokens per character from the last probe (estimates are blind inside one
 * huge pre-token, like a long word or unpunctuated CJK), with bisection as a
 * backstop. Typically two probes.
 */
function fitPieces(s: Splitter, start: number, ends: Int32Array, first: number, level: number): Fit {
  const max = s.maxTokens;
  let lo = first - 1;
  let hi = ends.length;
  let best: Fit = { last: -1, end: start, tokens: 0 };

  // First probe: the furthest end the estimate allows, capped in characters
  // (at a little more than the previous chunk's characters per token) so that
  // inside one huge pre-token, where the estimate is blind, the first count is
  // about a chunk long.
  const previous = s.spans[s.spans.length - 1];
  const perToken = previous ? (previous.end - previous.start) / Math.max(1, previous.tokenCount) : 8;
  const capEnd = start + Math.max(64, max * perToken);
  let hiByChars = lastEndAtMost(ends, first, hi, capEnd) + 1;
  if (hiByChars <= first) hiByChars = first + 1;
  let a = first - 1;
  let b = hiByChars;
  while (a + 1 < b) {
    const mid = (a + b) >> 1;
    if (s.index.estimate(start, ends[mid]!) <= max) a = mid;
    else b = mid;
  }
  let guess = Math.max(a, first);

  for (let probes = 0; lo + 1 < hi; probes++) {
    // Backstop against slow convergence: bisect a bounded interval, or
    // double the run while no upper bound is known.
    if (probes >= 3 && probes % 2 === 1) guess = hi < ends.length ? (lo + hi) >> 1 : lo + Math.max(1, lo - first + 1);
    const j = Math.min(Math.max(guess, lo + 1), hi - 1);
    const end = trimEnd(s, start, ends[j]!, level);
    const tokens = s.index.count(start, end);
    if (tokens <= max) {
      lo = j;
      best = { last: j, end, tokens };
      // Between graphemes every count is a fresh merge of the whole chunk;
      // a chunk within 1.5% of the budget is full enough there.
      if (level >= GRAPHEME && tokens >= max - (max >> 6)) break;
    } else hi = j;
    if (lo + 1 >= hi) break;
    // Characters per token so far predict where `max` is reached; growth per
    // step is bounded so a whitespace-heavy probe cannot send the next one
    // megabytes ahead.
    const span = end - start;
    const target = start + Math.min((span * max) / Math.max(tokens, 1), span * 4 + 64);
    guess = lastEndAtMost(ends, lo + 1, hi, target);
    if (tokens <= max && guess <= j) guess = j + 1;
  }
  return best;
}

/** Every cluster (or code point) start in [from, to) not holding whitespace: overlap candidates where words are being cut. */
function unitStarts(s: Splitter, from: number, to: number, level: number): number[] {
  const text = s.text;
  const out: number[] = [];
  // Segmenting must start on a cluster boundary to find the true ones.
  if (level === GRAPHEME) from = nextGraphemeBoundary(text, from);
  else if (from > 0 && isLowSurrogate(text.charCodeAt(from)) && isHighSurrogate(text.charCodeAt(from - 1))) from++;
  if (from >= to) return out;
  if (!isSpace(text.charCodeAt(from))) out.push(from);
  for (const end of pieceEnds(s, from, to, level)) if (end < to && !isSpace(text.charCodeAt(end))) out.push(end);
  return out;
}

/**
 * Where the next chunk starts so that it repeats the tail of the previous
 * chunk: the earliest candidate whose tail counts at most `budget` tokens;
 * -1 when none qualifies. Candidates are word starts (fit/overlap.ts), and,
 * inside the range being split into graphemes (or code points), every such
 * unit: text is never cut below the level the splitter is working at there.
 */
function overlapFrom(s: Splitter, level: number, budget: number, rangeStart: number): number {
  const previous = s.spans[s.spans.length - 1];
  if (!previous) return -1;
  const { index, text } = s;
  // Window: the document pre-tokens holding roughly the last `budget` tokens
  // (all of the chunk when it lies inside one huge pre-token).
  const endPiece = index.pieceAt(previous.end - 1) + 1;
  const wanted = index.tokensBefore(endPiece) - budget - 4;
  let first = 0;
  for (let last = endPiece - 1; first < last;) {
    const mid = (first + last) >> 1;
    if (index.tokensBefore(mid) < wanted) first = mid + 1;
    else last = mid;
  }
  const from = Math.max(index.pieceStart(first), previous.start + 1);
  let candidates: number[];
  if (level < GRAPHEME || rangeStart >= previous.end) candidates = wordStarts(text, from, previous.end);
  else {
    candidates = wordStarts(text, from, Math.max(from, rangeStart));
    candidates.push(...unitStarts(s, Math.max(from, rangeStart), previous.end, level));
  }
  // Start the search where the previous chunk's characters per token point
  // (few counts when the guess is close, which matters inside huge
  // pre-tokens, where every count is a fresh merge).
  const perToken = (previous.end - previous.start) / Math.max(1, previous.tokenCount);
  return earliestFitting(
    candidates,
    (start) => index.count(start, previous.end) <= budget,
    previous.end - budget * perToken,
  );
}

/** Splits [start, end) at `level` and merges its pieces into chunks, recursing into pieces too big for one. */
function splitRange(s: Splitter, start: number, end: number, level: number, tooBig = false): void {
  const ends = pieceEnds(s, start, end, level);
  // No separator of this level here: counting the same range again would only
  // confirm it is too big.
  if (tooBig && ends.length === 1 && level < CODE_POINT) return splitRange(s, start, end, level + 1, true);
  let i = 0;
  while (i < ends.length) {
    const pieceStart = i === 0 ? start : ends[i - 1]!;
    const pieceEnd = ends[i]!;
    const own = trimStart(s, pieceStart, pieceEnd, level);
    if (own >= pieceEnd) {
      i++; // whitespace only
      continue;
    }
    let fit: Fit = { last: -1, end: own, tokens: 0 };
    let chunkStart = own;
    const budget = overlapBudget(s, own, pieceEnd, level);
    if (budget > 0) {
      const overlap = overlapFrom(s, level, budget, start);
      if (overlap >= 0 && overlap < own) {
        fit = fitPieces(s, overlap, ends, i, level);
        if (fit.last >= 0) chunkStart = overlap;
      }
    }
    if (fit.last < 0) fit = fitPieces(s, own, ends, i, level);
    if (fit.last < 0) {
      if (level >= CODE_POINT) throw new Error("a code point exceeds maxTokens"); // excluded by MIN_MAX_TOKENS
      splitRange(s, pieceStart, pieceEnd, level + 1, true);
      i++;
      continue;
    }
    s.spans.push({ start: chunkStart, end: fit.end, tokenCount: fit.tokens });
    i = fit.last + 1;
  }
}

/**
 * Tokens of overlap the chunk starting with piece [own, pieceEnd) can take:
 * `overlapTokens`, less when the piece is so big that overlap would push the
 * chunk past `maxTokens` (with a little slack, since counts of joined texts
 * are not quite additive; the chunk is counted exactly anyway).
 */
function overlapBudget(s: Splitter, own: number, pieceEnd: number, level: number): number {
  if (s.spans.length === 0 || s.overlapTokens <= 0) return 0;
  if (s.index.estimate(own, pieceEnd) + s.overlapTokens + 8 <= s.maxTokens) return s.overlapTokens;
  const pieceTokens = s.index.count(own, trimEnd(s, own, pieceEnd, level));
  return Math.min(s.overlapTokens, s.maxTokens - pieceTokens - 2);
}

/** Chunks of `text` of at most `maxTokens` exact tokens, cut at the coarsest separators that fit; `overlapTokens` repeated. */
export function splitToFit(text: string, options: SplitOptions): Span[] {
  const { maxTokens, overlapTokens } = options;
  if (!Number.isInteger(maxTokens) || maxTokens < MIN_MAX_TOKENS)
    throw new RangeError(`maxTokens must be an integer of at least ${MIN_MAX_TOKENS}`);
  if (!Number.isInteger(overlapTokens) || overlapTokens < 0 || overlapTokens >= maxTokens)
    throw new RangeError("overlapTokens must be an integer from 0 to maxTokens - 1");
  const s: Splitter = { text, index: new TokenIndex(text, options.tokenizer), maxTokens, overlapTokens, spans: [] };
  splitRange(s, 0, text.length, PARAGRAPH);
  return s.spans;
}
