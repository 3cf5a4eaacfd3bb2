/** The semantic tier's units (step 1): sentences, short ones joined, long ones cut, blocks marked to be kept whole, with the kind of gap between them. */

import { TokenIndex } from "@/lib/tokens";
import type { Block } from "../markdown/blocks";
import { scanMarkdown } from "../markdown/scan";
import { splitToFit } from "../fit/split-to-fit";
import { sentenceSpans } from "../text/line-sentences";
import { isSpace } from "../text/whitespace";

/** Characters of a unit given to the embedder: the start of a huge unit says enough about its topic, and stays inside every model's input limit. */
export const EMBED_CHARS = 6000;
/** Least standard deviation of strength used as a scale, so that a document of near-identical sentences has no spurious cuts. */
export const MIN_DEPTH_SCALE = 0.02;
/** Gain of a cut inside one sentence too long for a chunk: taken only where no other cut will do. */
export const INSIDE_SENTENCE = -1e6;
/** Gain of a cut inside a code block, table or list that fits in a chunk: taken only where nothing else fits. */
export const INSIDE_BLOCK = -1e3;

export const MIN_MAX_TOKENS = 4;

export interface Unit {
  start: number;
  end: number;
  tokens: number;
  /** The unit continues a sentence that was too long for a chunk. */
  continues: boolean;
  /** The unit starts inside a code block, table or list that fits in a chunk: no chunk starts here. */
  inBlock: boolean;
}

const GAP_INLINE = 0;
export const GAP_LINE = 1;
export const GAP_PARAGRAPH = 2;

export function gapKind(text: string, from: number, to: number): number {
  const newline = text.indexOf("\n", from);
  if (newline < 0 || newline >= to) return GAP_INLINE;
  return text.indexOf("\n", newline + 1) >= 0 && text.indexOf("\n", newline + 1) < to ? GAP_PARAGRAPH : GAP_LINE;
}

const ENDS_SENTENCE = /[.!?。！？…]["'”’)\]]*$/;

export function buildUnits(text: string, index: TokenIndex, maxTokens: number, minUnitTokens: number): Unit[] {
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
      const pieces = splitToFit(text.slice(start, sentence.end), {
        maxTokens,
        overlapTokens: 0,
        tokenizer: index.tokenizer.name,
      });
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
export function markWholeBlocks(text: string, units: Unit[], index: TokenIndex, maxTokens: number): Unit[] {
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
export function fittingEnds(units: Unit[], index: TokenIndex, maxTokens: number): Int32Array {
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
