/**
 * Units into chunks: the cheapest segmentation under the token budget
 * (`pack`), each chunk counted exactly and re-packed greedily if an estimate
 * went wrong, with overlap from the chunk before where both are prose of one
 * section.
 */
import { TokenIndex } from "@/lib/tokens";
import { pack } from "./optimal-packing";
import { isSpace } from "../text/whitespace";
import { earliestFitting, opensSentence, wordStarts } from "../fit/overlap";
import type { Span } from "../types";
import { CHUNK, UNFILLED, SECTION_MIX, NEAR, FAR } from "./costs";
import { type Unit, UnitBuilder } from "./units";

interface Packer {
  text: string;
  index: TokenIndex;
  units: Unit[];
  maxTokens: number;
  reserve: number;
}

/** Whether the chunk starting at unit i receives overlap from the chunk before. */
function takesOverlap(p: Packer, i: number): boolean {
  if (p.reserve <= 0 || i === 0) return false;
  const before = p.units[i - 1]!;
  const unit = p.units[i]!;
  return before.kind === "prose" && unit.kind === "prose" && before.section === unit.section;
}

/** Exact tokens of units i .. j-1 as one chunk, fence or header added. */
function exactTokens(p: Packer, i: number, j: number): number {
  const first = p.units[i]!;
  const last = p.units[j - 1]!;
  return p.index.countJoined(first.prefix ?? "", first.start, last.end, chunkSuffix(p, i, j));
}

/** The closing fence that ends the chunk of units i .. j-1, if any: the reopened one when the chunk opened the block with its prefix. */
function chunkSuffix(p: Packer, i: number, j: number): string {
  const first = p.units[i]!;
  const last = p.units[j - 1]!;
  const reopened = first.prefix !== undefined && first.block !== undefined && first.block === last.block;
  return (reopened ? last.reopenedSuffix : undefined) ?? last.suffix ?? "";
}

function chunkText(p: Packer, i: number, j: number, start: number): string {
  return (p.units[i]!.prefix ?? "") + p.text.slice(start, p.units[j - 1]!.end) + chunkSuffix(p, i, j);
}

export function packUnits(
  text: string,
  index: TokenIndex,
  builder: UnitBuilder,
  options: { maxTokens: number; reserve: number },
): Span[] {
  const units = builder.units;
  const n = units.length;
  if (n === 0) return [];
  const p: Packer = { text, index, units, maxTokens: options.maxTokens, reserve: options.reserve };
  const max = options.maxTokens;

  // Per-unit figures the search below reads hundreds of thousands of times, in typed arrays.
  // Estimates come from the document's prefix sums, corrected where a unit's
  // own count disagrees much with them (units cut inside one long pre-token):
  // the estimate of units i .. j-1 is estimateTo[j] - estimateFrom[i].
  const estimateFrom = new Float64Array(n);
  const estimateTo = new Float64Array(n + 1);
  // Tokens added around a chunk starting at unit i: its prefix, and the overlap it receives.
  const addedBefore = new Float64Array(n);
  const suffixTokens = new Float64Array(n);
  const breakBefore = new Float64Array(n);
  const section = new Int32Array(n);
  // startsSection[k]: unit k starts its section. A chunk holding a section change must start where
  // its first section starts: whole short sections share chunks, and one may lead into the beginning
  // of the next, but the tail of a section never shares a chunk with the section after it.
  const startsSection = new Uint8Array(n);
  // givenBefore[k]: sections given by the caller that start at units 0 .. k-1; no chunk spans one.
  const givenBefore = new Int32Array(n + 1);
  let correction = 0;
  units.forEach((u, k) => {
    const startPiece = index.firstPieceFrom(u.start);
    const endPiece = index.firstPieceFrom(u.end);
    estimateFrom[k] = index.tokensBefore(startPiece) + correction;
    const off = index.count(u.start, u.end) - (index.tokensBefore(endPiece) - index.tokensBefore(startPiece));
    if (Math.abs(off) > 4) correction += off;
    estimateTo[k + 1] = index.tokensBefore(endPiece) + correction;
    addedBefore[k] = u.prefixTokens + (takesOverlap(p, k) ? p.reserve : 0);
    suffixTokens[k] = u.suffixTokens;
    breakBefore[k] = k > 0 ? u.breakBefore : 0;
    section[k] = u.section;
    startsSection[k] = k === 0 || units[k - 1]!.section !== u.section ? 1 : 0;
    givenBefore[k + 1] = givenBefore[k]! + (u.given ? 1 : 0);
  });
  const estimate = (i: number, j: number) => estimateTo[j]! - estimateFrom[i]!;
  const overhead = (i: number, j: number) => addedBefore[i]! + suffixTokens[j - 1]!;

  const starts = pack({
    units: n,
    reach: (i, j) => estimate(i, j) <= max + FAR,
    cost: (i, j) => {
      const changes = section[j - 1]! - section[i]!;
      if (changes > 0 && !startsSection[i]) return Infinity;
      if (givenBefore[j]! - givenBefore[i + 1]! > 0) return Infinity;
      const filled = Math.min(1, (estimate(i, j) + overhead(i, j)) / max);
      return CHUNK + breakBefore[i]! + UNFILLED * (1 - filled) ** 2 + SECTION_MIX * changes;
    },
    fits: (i, j) => {
      const guess = estimate(i, j) + overhead(i, j);
      if (guess <= max - NEAR) return true;
      if (guess > max + FAR) return false;
      return exactTokens(p, i, j) + (takesOverlap(p, i) ? p.reserve : 0) <= max;
    },
  });

  const spans: Span[] = [];
  starts.forEach((i, k) => {
    const j = k + 1 < starts.length ? starts[k + 1]! : n;
    emitChunk(p, builder.sections, spans, i, j, k > 0 ? starts[k - 1]! : 0);
  });
  return spans;
}

/** Appends the span of units i .. j-1 (previous chunk starting at unit `previousFirst`), overlap included; re-packs it if exact counting finds it too big. */
function emitChunk(p: Packer, sections: string[][], spans: Span[], i: number, j: number, previousFirst: number): void {
  const { units, index, maxTokens } = p;
  const first = units[i]!;
  const last = units[j - 1]!;
  const headings = [...sections[first.section]!];
  let tokens = exactTokens(p, i, j);
  if (tokens > maxTokens) {
    if (j - i === 1) throw new Error(`a unit of ${tokens} tokens exceeds maxTokens ${maxTokens}`); // excluded by the units' budgets
    // An estimate was wrong: fill greedily by exact counts instead (every unit fits alone).
    let a = i;
    while (a < j) {
      let b = a + 1;
      while (b < j && exactTokens(p, a, b + 1) <= maxTokens) b++;
      emitChunk(p, sections, spans, a, b, a);
      a = b;
    }
    return;
  }
  let start = first.start;
  if (takesOverlap(p, i) && spans.length > 0) {
    const budget = Math.min(p.reserve, maxTokens - tokens);
    // Overlap comes from the prose units that end the previous chunk, in this section.
    let from = i - 1;
    while (from > previousFirst && units[from - 1]!.kind === "prose" && units[from - 1]!.section === first.section)
      from--;
    // Never the whole previous chunk: the next one would start where it did.
    const floor = Math.max(units[from]!.start, spans[spans.length - 1]!.start + 1);
    const overlap = overlapBefore(p, floor, first.start, budget);
    if (overlap >= 0) {
      const withOverlap = index.count(overlap, last.end);
      if (withOverlap <= maxTokens) {
        start = overlap;
        tokens = withOverlap;
      }
    }
  }
  const span: Span = { start, end: last.end, tokenCount: tokens, headings };
  if (first.prefix || last.suffix) span.text = chunkText(p, i, j, start);
  spans.push(span);
}

/**
 * Where a chunk starting at `chunkStart` begins to repeat the text before it:
 * the earliest word start (fit/overlap.ts) in [floor, chunkStart) whose tail
 * up to the end of the previous text holds at most `budget` tokens, moved on
 * to a sentence start when one keeps at least half the budget. -1 when none
 * fits.
 */
function overlapBefore(p: Packer, floor: number, chunkStart: number, budget: number): number {
  if (budget <= 0) return -1;
  const text = p.text;
  let end = chunkStart;
  while (end > floor && isSpace(text.charCodeAt(end - 1))) end--;
  // Candidates within a generous window of characters (o200k averages ~4 per token).
  const candidates = wordStarts(text, Math.max(floor, end - budget * 16), end);
  const earliest = earliestFitting(candidates, (start) => p.index.count(start, end) <= budget);
  if (earliest < 0) return -1;
  for (let k = candidates.indexOf(earliest); k < candidates.length; k++) {
    const q = candidates[k]!;
    if (opensSentence(text, q, floor)) {
      if (p.index.count(q, end) * 2 >= budget) return q;
      break;
    }
  }
  return earliest;
}
