/**
 * A page's text items into lines: items that share a baseline, joined with
 * the spaces their gaps imply, each with its extent, dominant size and font,
 * and whether it is set in a monospaced font.
 */
import type { PdfTextItem, PdfPageContent, Rect } from "./types";

export interface Line {
  /** Whitespace collapsed. */
  text: string;
  /** As pdf.js gave it, inner spacing kept: code alignment lives there. */
  raw: string;
  left: number;
  right: number;
  /** Baseline of the line's main text (a superscript does not move it). */
  y: number;
  /** Size and font of most of the line's characters. */
  size: number;
  font: string;
  /** Share of the line's characters set in `font`: 1 for a line in one font. */
  fontShare: number;
  upright: boolean;
  monospace: boolean;
  /** Extent of its glyphs above and below the baselines, from their sizes. */
  top: number;
  bottom: number;
  /** Read by OCR: its items' confidence, weighted by their characters. */
  confidence?: number;
  /** Index of its first item in the page's content stream: where it stands among the page's tables. */
  order: number;
  /** Left edge of a bullet drawn before it (a shape, not a character): the line starts a list item there. */
  bullet?: number;
}

interface LineDraft {
  first: number;
  parts: string[];
  left: number;
  right: number;
  y: number;
  size: number;
  upright: boolean;
  spaceDue: boolean;
  last: PdfTextItem;
  /** Characters per size and font, to find what most of the line is set in. */
  styles: Map<string, { size: number; font: string; y: number; chars: number }>;
  top: number;
  bottom: number;
  /** OCR'd items' confidence times characters, and their characters. */
  confidence: { sum: number; chars: number };
}

/** Glyphs rise about this share of the font size above the baseline, and fall this share below it. */
export const ASCENT_EM = 0.8;
export const DESCENT_EM = 0.2;

/**
 * A gap wider than this share of the font size is a word space pdf.js did not
 * write out (a space is about a quarter em; letter spacing stays far below).
 */
const WORD_GAP_EM = 0.18;
/** Baselines closer than this share of the size are one line: superscripts and subscripts sit about a third of an em off. */
export const SAME_LINE_EM = 0.45;

/**
 * Groups a page's items into lines in the content stream's order, which is
 * the reading order for nearly every producer, and keeps columns apart.
 * `order` gives each item's index in the whole page's stream when these are
 * what tables left.
 */
export function toLines(page: PdfPageContent, order?: number[]): Line[] {
  const monospace = new Set(page.monospaceFonts);
  const append = (draft: LineDraft, item: PdfTextItem, text: string) => appendToLine(draft, item, text, monospace);
  const lines: Line[] = [];
  let draft: LineDraft | undefined;
  for (const [index, item] of page.items.entries()) {
    const text = item.text.replace(/\u0000/g, "");
    if (draft && continuesLine(draft, item)) {
      append(draft, item, text);
      continue;
    }
    // Whitespace starts nothing; it only separates words within a line.
    if (text.trim() === "") continue;
    if (draft) lines.push(finishLine(draft, monospace));
    draft = {
      first: order?.[index] ?? index,
      parts: [text],
      left: item.x,
      right: item.x + item.width,
      y: item.y,
      size: item.size,
      upright: item.upright,
      spaceDue: false,
      last: item,
      styles: new Map(),
      top: -Infinity,
      bottom: Infinity,
      confidence: { sum: 0, chars: 0 },
    };
    countStyle(draft, item, text);
  }
  if (draft) lines.push(finishLine(draft, monospace));
  return lines.filter((line) => line.text !== "");
}

function continuesLine(draft: LineDraft, item: PdfTextItem): boolean {
  if (!draft.upright || !item.upright) return false;
  return Math.abs(item.y - draft.y) <= SAME_LINE_EM * Math.max(item.size, draft.size);
}

function appendToLine(draft: LineDraft, item: PdfTextItem, text: string, monospace: Set<string>): void {
  const last = draft.last;
  // Fake bold: some producers draw the same text twice, a fraction of a point apart.
  if (text === last.text && Math.abs(item.x - last.x) < 1 && Math.abs(item.y - last.y) < 1) return;
  const gap = item.x - draft.right;
  draft.right = Math.max(draft.right, item.x + item.width);
  draft.left = Math.min(draft.left, item.x);
  if (text.trim() === "") {
    if (text !== "") draft.spaceDue = true;
    return;
  }
  draft.last = item;
  const size = Math.max(item.size, last.size);
  // A jump backwards of more than an em is text placed out of order: still a word break.
  const spaced = draft.spaceDue || gap > WORD_GAP_EM * size || gap < -size;
  if (spaced && !/\s$/.test(draft.parts.at(-1) ?? "") && !/^\s/.test(text)) {
    // Between monospaced words the gap counts columns: code aligns with them.
    const column =
      monospace.has(item.font) && monospace.has(last.font) && last.text.length > 0 ? last.width / last.text.length : 0;
    const columns = column > 0 ? Math.round((item.x - last.x - last.width) / column) : 1;
    draft.parts.push(" ".repeat(Math.max(1, Math.min(80, columns))));
  }
  draft.parts.push(text);
  draft.spaceDue = false;
  countStyle(draft, item, text);
}

function countStyle(draft: LineDraft, item: PdfTextItem, text: string): void {
  const chars = text.replace(/\s/g, "").length;
  draft.top = Math.max(draft.top, item.y + ASCENT_EM * item.size);
  draft.bottom = Math.min(draft.bottom, item.y - DESCENT_EM * item.size);
  if (item.confidence !== undefined) {
    draft.confidence.sum += item.confidence * chars;
    draft.confidence.chars += chars;
  }
  const key = `${roundSize(item.size)}|${item.font}`;
  const style = draft.styles.get(key);
  if (style) style.chars += chars;
  else draft.styles.set(key, { size: item.size, font: item.font, y: item.y, chars });
}

function finishLine(draft: LineDraft, monospace: Set<string>): Line {
  let main = { size: draft.size, font: draft.last.font, y: draft.y, chars: -1 };
  let total = 0;
  for (const style of draft.styles.values()) {
    total += style.chars;
    if (style.chars > main.chars) main = style;
  }
  let inFont = 0;
  for (const style of draft.styles.values()) if (style.font === main.font) inFont += style.chars;
  const raw = draft.parts.join("");
  return {
    text: raw.replace(/\s+/g, " ").trim(),
    // Inner spacing stays; any other whitespace (a stray line break, a tab) becomes a space, so a line stays one line.
    raw: raw.trim().replace(/[^\S ]/g, " "),
    left: draft.left,
    right: draft.right,
    y: main.y,
    size: main.size,
    font: main.font,
    fontShare: total > 0 ? inFont / total : 1,
    upright: draft.upright,
    monospace: monospace.has(main.font),
    top: draft.top,
    bottom: draft.bottom,
    order: draft.first,
    ...(draft.confidence.chars > 0 ? { confidence: draft.confidence.sum / draft.confidence.chars } : {}),
  };
}

/**
 * Bullets drawn as shapes (a filled circle or square, a hollow circle) mark
 * the line they sit before: on its first line's height, within two ems to
 * its left. Its edge is where the list item starts, so items nest by it.
 */
export function attachBullets(lines: Line[], marks: Rect[]): Line[] {
  if (marks.length === 0) return lines;
  return lines.map((line) => {
    const mark = marks.find(([l, b, r, t]) => {
      const middle = (b + t) / 2;
      const gap = line.left - r;
      return (
        gap > 0 &&
        gap <= 2 * line.size &&
        r - l <= 0.6 * line.size &&
        middle >= line.y - 0.1 * line.size &&
        middle <= line.y + 0.7 * line.size
      );
    });
    return mark ? { ...line, bullet: mark[0], left: mark[0] } : line;
  });
}

/** Sizes are compared at half-point precision: producers write 11 as 10.98 or 11.0001. */
export function roundSize(size: number): number {
  return Math.round(size * 2) / 2;
}

/** A whole line of code: set in a monospaced font, not prose with a word of code in it. */
export const isCode = (line: Line) => line.monospace && line.fontShare >= 0.9;

/** A table-of-contents entry's dot leaders, before its page number. */
export const LEADERS = /\s*(?:\.\s?){4,}\s*(?=(?:\d{1,4}|[ivxlc]{1,6})$)/i;
/** A title, dot leaders, a page number. Only short lines are tried: the leaders pattern backtracks on a line of nothing but dots. */
export const isContentsEntry = (text: string) => text.length <= 300 && LEADERS.test(text);

/**
 * A line that could be a title: one font (not monospaced), a few words, no
 * sentence or clause punctuation at its end.
 */
export function isTitleLike(line: Line): boolean {
  return (
    line.fontShare >= 0.9 &&
    !line.monospace &&
    /\p{L}/u.test(line.text) &&
    !/[.,;]$/.test(line.text) &&
    line.text.split(" ").length <= 12
  );
}
