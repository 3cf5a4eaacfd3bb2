/**
 * Sentences of a text as offset ranges, found by `Intl.Segmenter` (Unicode
 * sentence boundaries, UAX #29), for the semantic tier.
 *
 * Every line break ends a sentence to UAX #29, which suits Markdown (a
 * heading, a list item, a table row is a line) and text with one paragraph
 * per line, but not prose hard-wrapped at a fixed width, where a sentence
 * runs over several lines. So each paragraph (lines between blank lines) is
 * looked at first: when it reads as wrapped prose — several lines, none of
 * them longer than a terminal line, all but the last of similar length, none
 * starting like a Markdown block — its line breaks are segmented as spaces.
 * Offsets always refer to the original text.
 *
 * Segmenting is done in blocks of a few KB, each resuming at the start of the
 * last sentence the block before found (which the block's end may have cut):
 * ICU's segmenter slows down more than linearly on long strings.
 *
 * `prose-sentences.ts` is the other segmenter, for the structure and AI tiers. It
 * works inside paragraphs already found, where a line break never ends a
 * sentence; its header says why there are two.
 */

import { isHighSurrogate } from "./surrogates";
import { isSpace } from "./whitespace";

interface SentenceSpan {
  /** First non-whitespace character. */
  start: number;
  /** End of the sentence without trailing whitespace. */
  end: number;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "sentence" });
const BLOCK_CHARS = 2048;

/** Longest line still taken for a wrapped one: wider text is one paragraph per line. */
const MAX_WRAPPED_LINE = 120;
const MIN_WRAPPED_LINE = 30;
/** A line starting like a Markdown block (heading, quote, list item, table row, fence) or indented code. */
const BLOCK_START = /^(?:\s{4}|\t|\s*(?:#{1,6}\s|>|[-*+]\s|\d{1,9}[.)]\s|\||```|~~~))/;

/** Positions of the line breaks in [start, end) that only wrap a paragraph, as a sorted list. */
function softBreaks(text: string, start: number, end: number, out: number[]): void {
  const lines: Array<[number, number]> = [];
  for (let p = start; p < end;) {
    let q = text.indexOf("\n", p);
    if (q < 0 || q > end) q = end;
    lines.push([p, q]);
    p = q + 1;
  }
  if (lines.length < 2) return;
  let longest = 0;
  for (const [a, b] of lines) {
    if (BLOCK_START.test(text.slice(a, Math.min(b, a + 16)))) return;
    longest = Math.max(longest, b - a);
  }
  if (longest > MAX_WRAPPED_LINE || longest < MIN_WRAPPED_LINE) return;
  for (let i = 0; i + 1 < lines.length; i++) {
    const [a, b] = lines[i]!;
    if ((b - a) * 3 < longest * 2) return;
  }
  for (let i = 0; i + 1 < lines.length; i++) out.push(lines[i]![1]);
}

/** The text as the segmenter should see it: wrapped paragraphs' line breaks turned into spaces, same length. */
function unwrap(text: string): string {
  const soft: number[] = [];
  const paragraph = /\n[^\S\n]*\n\s*/g;
  let from = 0;
  for (let m = paragraph.exec(text); ; m = paragraph.exec(text)) {
    const to = m ? m.index : text.length;
    if (to > from) softBreaks(text, from, to, soft);
    if (!m) break;
    from = paragraph.lastIndex;
  }
  if (soft.length === 0) return text;
  const parts: string[] = [];
  let last = 0;
  for (const p of soft) {
    parts.push(text.slice(last, p), " ");
    last = p + 1;
  }
  parts.push(text.slice(last));
  return parts.join("");
}

function pushTrimmed(text: string, start: number, end: number, out: SentenceSpan[]): void {
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  if (end > start) out.push({ start, end });
}

export function sentenceSpans(text: string): SentenceSpan[] {
  const view = unwrap(text);
  const out: SentenceSpan[] = [];
  let from = 0;
  while (from < view.length) {
    let to = Math.min(view.length, from + BLOCK_CHARS);
    // End a block after a line break where there is one: sentences always end there.
    if (to < view.length) {
      const newline = view.lastIndexOf("\n", to - 1);
      if (newline > from) to = newline + 1;
      else if (isHighSurrogate(view.charCodeAt(to - 1))) to++;
    }
    const cutByBlock = to < view.length && view.charCodeAt(to - 1) !== 10;
    let lastStart = from;
    let lastEnd = from;
    for (const { index, segment } of segmenter.segment(view.slice(from, to))) {
      if (cutByBlock && lastEnd > lastStart) pushTrimmed(text, lastStart, lastEnd, out);
      lastStart = from + index;
      lastEnd = lastStart + segment.length;
      if (!cutByBlock) pushTrimmed(text, lastStart, lastEnd, out);
    }
    if (!cutByBlock) {
      from = to;
      continue;
    }
    // The block's last sentence may go on past the block: segment again from its start,
    // unless it is the whole block (one sentence longer than a block), which is cut at its
    // last space, or failing that at its last grapheme-cluster boundary.
    if (lastStart === from) {
      const cut = lastCut(view, from, to);
      pushTrimmed(text, from, cut, out);
      from = cut;
    } else from = lastStart;
  }
  return out;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Where to end a piece of one overlong sentence in [from, to): after its last whitespace, else at a cluster boundary. */
function lastCut(text: string, from: number, to: number): number {
  for (let p = to - 1; p > from + (to - from) / 2; p--) if (isSpace(text.charCodeAt(p))) return p + 1;
  const window = Math.max(from, to - 64);
  let cut = window;
  for (const { index } of graphemes.segment(text.slice(window, to))) if (index > 0) cut = window + index;
  return cut > from ? cut : to;
}
