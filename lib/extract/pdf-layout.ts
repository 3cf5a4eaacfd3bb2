import type { PageBox } from "@/lib/extract/types";

/**
 * PDF text items → Markdown-ish text, page by page. pdf.js gives positioned
 * runs of text, not structure; this recovers what a reader sees: lines from
 * shared baselines, paragraphs from vertical gaps and indents, headings from
 * font size against the body text (or a different font at body size), list
 * items from their markers, code from monospaced lines, and drops running
 * headers, footers and page numbers at the page edges. Pure: no pdf.js here,
 * so it is tested on made-up items.
 */

export interface PdfTextItem {
  text: string;
  /** Baseline origin in PDF user space (y grows upwards). */
  x: number;
  y: number;
  /** Font size in user space, from the text matrix. */
  size: number;
  /** Advance width in user space. */
  width: number;
  /** pdf.js's id for the font resource: same id, same font. */
  font: string;
  /** Runs left to right on a horizontal baseline. Rotated text is kept, but as a line of its own. */
  upright: boolean;
  /** Read by OCR: Tesseract's confidence in the item's words, 0-100. */
  confidence?: number;
}

export interface PdfPageContent {
  /** The page's box in user space: left, bottom, right, top. */
  box: [number, number, number, number];
  items: PdfTextItem[];
  /** Fonts pdf.js classes as monospace: whole lines in them are code. */
  monospaceFonts: string[];
  /** Degrees the page is shown turned clockwise (pdf.js's `rotate`; a multiple of 90). */
  rotate?: number;
}

/** A line of a page's output: the range [start, end) of the page's text it became, and where it is on the page. */
export interface LaidLine {
  start: number;
  end: number;
  box: PageBox;
  /** Read by OCR: Tesseract's confidence in its words, 0-100. */
  confidence?: number;
}

export interface PageLayout {
  /** Markdown; "" for a page without text. */
  text: string;
  /** The lines the text came from, in the text's order; running headers and footers dropped are not among them. */
  lines: LaidLine[];
}

/** One Markdown text per page, in page order, each with where its lines came from. */
export function layoutPages(pages: PdfPageContent[]): PageLayout[] {
  const lined = pages.map(toLines);
  const body = bodyStyle(lined.flat());
  const kept = dropRunningLines(lined, pages, body);
  const leading = leadingBySize(kept, body);
  const blocks = kept.map((lines) => toBlocks(lines, leading, body));
  const headings = headingLevels(blocks.flat(), body);
  const words = new DocumentWords(kept);
  return blocks.map((page, i) => {
    const { text, lines } = render(joinWrappedHeadings(classify(page, headings), leading), words, leading);
    return {
      text,
      lines: lines.map(({ start, end, line }) => ({
        start,
        end,
        box: pageBox(line, pages[i]!),
        ...(line.confidence === undefined ? {} : { confidence: line.confidence }),
      })),
    };
  });
}

/** Where a line is on its page as shown (turned by `rotate`), from its glyphs' extent in PDF user space; four decimals, a tenth of a point on A4. */
function pageBox(line: Line, page: PdfPageContent): PageBox {
  const [left, bottom, right, top] = page.box;
  const width = right - left || 1;
  const height = top - bottom || 1;
  const share = (value: number) => Math.round(Math.min(1, Math.max(0, value)) * 1e4) / 1e4;
  // Unturned, from the top left: x across, y down.
  const x0 = (line.left - left) / width;
  const x1 = (line.right - left) / width;
  const y0 = (top - line.top) / height;
  const y1 = (top - line.bottom) / height;
  const turned: PageBox = (() => {
    switch ((((page.rotate ?? 0) % 360) + 360) % 360) {
      case 90:
        return [1 - y1, x0, 1 - y0, x1];
      case 180:
        return [1 - x1, 1 - y1, 1 - x0, 1 - y0];
      case 270:
        return [y0, 1 - x1, y1, 1 - x0];
      default:
        return [x0, y0, x1, y1];
    }
  })();
  return turned.map(share) as PageBox;
}

// ---------------------------------------------------------------- lines

interface Line {
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
}

interface LineDraft {
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
const ASCENT_EM = 0.8;
const DESCENT_EM = 0.2;

/**
 * A gap wider than this share of the font size is a word space pdf.js did not
 * write out (a space is about a quarter em; letter spacing stays far below).
 */
const WORD_GAP_EM = 0.18;
/** Baselines closer than this share of the size are one line: superscripts and subscripts sit about a third of an em off. */
const SAME_LINE_EM = 0.45;

/** Groups a page's items into lines in the content stream's order, which is the reading order for nearly every producer, and keeps columns apart. */
function toLines(page: PdfPageContent): Line[] {
  const monospace = new Set(page.monospaceFonts);
  const append = (draft: LineDraft, item: PdfTextItem, text: string) => appendToLine(draft, item, text, monospace);
  const lines: Line[] = [];
  let draft: LineDraft | undefined;
  for (const item of page.items) {
    const text = item.text.replace(/\u0000/g, "");
    if (draft && continuesLine(draft, item)) {
      append(draft, item, text);
      continue;
    }
    // Whitespace starts nothing; it only separates words within a line.
    if (text.trim() === "") continue;
    if (draft) lines.push(finishLine(draft, monospace));
    draft = {
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
    ...(draft.confidence.chars > 0 ? { confidence: draft.confidence.sum / draft.confidence.chars } : {}),
  };
}

/** Sizes are compared at half-point precision: producers write 11 as 10.98 or 11.0001. */
function roundSize(size: number): number {
  return Math.round(size * 2) / 2;
}

/** A whole line of code: set in a monospaced font, not prose with a word of code in it. */
const isCode = (line: Line) => line.monospace && line.fontShare >= 0.9;

/** A table-of-contents entry's dot leaders, before its page number. */
const LEADERS = /\s*(?:\.\s?){4,}\s*(?=(?:\d{1,4}|[ivxlc]{1,6})$)/i;
/** A title, dot leaders, a page number. Only short lines are tried: the leaders pattern backtracks on a line of nothing but dots. */
const isContentsEntry = (text: string) => text.length <= 300 && LEADERS.test(text);

/**
 * A line that could be a title: one font (not monospaced), a few words, no
 * sentence or clause punctuation at its end.
 */
function isTitleLike(line: Line): boolean {
  return (
    line.fontShare >= 0.9 &&
    !line.monospace &&
    /\p{L}/u.test(line.text) &&
    !/[.,;]$/.test(line.text) &&
    line.text.split(" ").length <= 12
  );
}

// ---------------------------------------------------------------- the body text

interface BodyStyle {
  /** The size most characters of the document are set in. */
  size: number;
  /** The font most body-size characters are set in. */
  font: string;
}

function bodyStyle(lines: Line[]): BodyStyle {
  const bySize = new Map<number, number>();
  for (const line of lines)
    bySize.set(roundSize(line.size), (bySize.get(roundSize(line.size)) ?? 0) + line.text.length);
  const size = argmax(bySize) ?? 0;
  const byFont = new Map<string, number>();
  for (const line of lines)
    if (roundSize(line.size) === size) byFont.set(line.font, (byFont.get(line.font) ?? 0) + line.text.length);
  return { size, font: argmax(byFont) ?? "" };
}

function argmax<K>(counts: Map<K, number>): K | undefined {
  let best: K | undefined;
  let most = -1;
  for (const [key, n] of counts) {
    if (n > most) {
      best = key;
      most = n;
    }
  }
  return best;
}

/** Ordinary baseline-to-baseline distance for a size, as the document is set. */
type Leading = (size: number) => number;

function leadingBySize(pages: Line[][], body: BodyStyle): Leading {
  const gaps = new Map<number, number[]>();
  for (const lines of pages) {
    for (let i = 1; i < lines.length; i++) {
      const [a, b] = [lines[i - 1]!, lines[i]!];
      const dy = a.y - b.y;
      if (roundSize(a.size) !== roundSize(b.size) || dy <= 0 || dy > 3 * a.size) continue;
      const list = gaps.get(roundSize(a.size)) ?? [];
      list.push(dy);
      gaps.set(roundSize(a.size), list);
    }
  }
  // The lower quartile, not the median: in a document of short paragraphs, gaps between them can outnumber gaps within them.
  const quartile = (list: number[] | undefined) =>
    list && list.length >= 3 ? list.sort((x, y) => x - y)[Math.floor(list.length / 4)] : undefined;
  const bodyLeading = quartile(gaps.get(body.size));
  const cache = new Map<number, number>();
  return (size) => {
    const key = roundSize(size);
    let leading = cache.get(key);
    if (leading === undefined) {
      leading =
        quartile(gaps.get(key)) ??
        (bodyLeading !== undefined && body.size > 0 ? (bodyLeading * size) / body.size : 1.2 * size);
      cache.set(key, leading);
    }
    return leading;
  };
}

// ---------------------------------------------------------------- running headers, footers, page numbers

/** Share of the page height, at the top and at the bottom, where running headers, footers and page numbers live. */
const EDGE_BAND = 0.12;
/** Lines from each edge considered: a header is rarely more than a title and a subtitle. */
const EDGE_LINES = 3;
/** A running line is never set larger than this times the body size; a larger one is a heading, whatever it repeats. */
const RUNNING_MAX_SIZE = 1.15;

/** "3", "- 3 -", "Page 3", "Page 3 of 10", "3 / 10", "iv". */
const PAGE_NUMBER = /^(?:page\s+|p\.\s*)?[-–—([]?\s*(\d{1,4}|[ivxlcdm]{1,7})\s*[-–—)\]]?(?:\s*(?:of|\/)\s*\d{1,4})?$/i;
const ROMAN = /^(?=[mdclxvi])m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$/i;

interface EdgeLine {
  /** 0-based page index. */
  page: number;
  line: Line;
  /** The top line or the bottom line of its page. */
  outermost: boolean;
  /** Edge, rank from the edge and text with digits normalised: equal on every page a running line appears on. */
  key: string;
}

/**
 * Drops, from the few lines at the top and bottom of each page:
 * - lines whose text, digits aside, comes back on at least half the pages (or
 *   half the odd or even pages: books alternate their running heads);
 * - page numbers ("3", "Page 3 of 10", "- 3 -") that repeat or equal the page's number;
 * - lines carrying the printed page number ("Chapter 2: Rivers 14"), found as
 *   the offset between printed numbers and page positions that most pages share.
 * A line alone on its page and unlike a page number stays, whatever it looks like,
 * and a page whose every line would go keeps them all: removal never takes a
 * page's only text.
 */
function dropRunningLines(lined: Line[][], pages: PdfPageContent[], body: BodyStyle): Line[][] {
  const edges: EdgeLine[] = lined.flatMap((lines, page) =>
    edgeLines(lines, pages[page]!.box)
      // Rotated text (a margin note, a stamp) has no place in a band of horizontal lines: it is never taken for one.
      .filter((edge) => edge.line.upright && edge.line.size <= body.size * RUNNING_MAX_SIZE)
      .map((edge) => ({
        page,
        line: edge.line,
        outermost: edge.rank === 0,
        key: `${edge.band}${edge.rank}:${normalise(edge.line.text)}`,
      })),
  );
  const pagesByKey = new Map<string, Set<number>>();
  for (const edge of edges) pagesByKey.set(edge.key, (pagesByKey.get(edge.key) ?? new Set()).add(edge.page));
  const offset = printedNumberOffset(edges, lined.length);

  const total = lined.length;
  const isRunning = (seen: Set<number>) => {
    if (seen.size < 2) return false;
    let onOdd = 0;
    for (const page of seen) if (page % 2 === 0) onOdd++; // index 0 is page 1, an odd page
    const onEven = seen.size - onOdd;
    return (
      seen.size >= total / 2 ||
      (onOdd >= 2 && onOdd >= Math.ceil(total / 2) / 2) ||
      (onEven >= 2 && onEven >= Math.floor(total / 2) / 2)
    );
  };

  const dropped = new Set<Line>();
  for (const edge of edges) {
    const seen = pagesByKey.get(edge.key)!;
    const printed = edge.page + 1 - (offset ?? 0);
    const carriesNumber = offset !== undefined && edge.outermost && edgeNumbers(edge.line.text).includes(printed);
    if (isRunning(seen) || isPageNumber(edge, seen, printed) || carriesNumber) dropped.add(edge.line);
  }
  return lined.map((lines) => {
    const left = lines.filter((line) => !dropped.has(line));
    // A page made only of repeated lines (a notice, a form printed per page) has nothing else to say: keep it whole.
    return left.length > 0 ? left : lines;
  });
}

/** The lines nearest each edge, ranked from the edge inwards: a running line keeps its rank from page to page. */
function edgeLines(lines: Line[], box: PdfPageContent["box"]): { band: "top" | "bottom"; line: Line; rank: number }[] {
  const [, bottom, , top] = box;
  const band = (top - bottom) * EDGE_BAND;
  const byHeight = [...lines].sort((a, b) => b.y - a.y);
  const topLines = byHeight.filter((l) => l.y >= top - band).slice(0, EDGE_LINES);
  const bottomLines = byHeight
    .filter((l) => l.y <= bottom + band && !topLines.includes(l))
    .slice(-EDGE_LINES)
    .reverse();
  return [
    ...topLines.map((line, rank) => ({ band: "top" as const, line, rank })),
    ...bottomLines.map((line, rank) => ({ band: "bottom" as const, line, rank })),
  ];
}

function normalise(text: string): string {
  const lower = text.toLowerCase();
  return (ROMAN.test(lower) ? "#" : lower.replace(/\d+/g, "#")).replace(/\s+/g, " ");
}

/** Numbers at the start or the end of a line, where running heads put the page number. */
function edgeNumbers(text: string): number[] {
  const numbers: number[] = [];
  const first = /^(\d{1,4})\b/.exec(text);
  const last = /\b(\d{1,4})$/.exec(text);
  if (first) numbers.push(Number(first[1]));
  if (last) numbers.push(Number(last[1]));
  return numbers;
}

/**
 * Printed page numbers often differ from positions by a constant (a cover and
 * a contents page before page 1). The offset shared by most pages' outermost
 * lines, if at least a quarter of the pages (and two) agree on it.
 */
function printedNumberOffset(edges: EdgeLine[], total: number): number | undefined {
  const pagesByOffset = new Map<number, Set<number>>();
  for (const edge of edges) {
    if (!edge.outermost) continue;
    for (const n of edgeNumbers(edge.line.text)) {
      const offset = edge.page + 1 - n;
      pagesByOffset.set(offset, (pagesByOffset.get(offset) ?? new Set()).add(edge.page));
    }
  }
  const counts = new Map([...pagesByOffset].map(([offset, pages]) => [offset, pages.size]));
  const best = argmax(counts);
  return best !== undefined && counts.get(best)! >= Math.max(2, total / 4) ? best : undefined;
}

/** A page number that repeats at the same edge (its digits normalised away), or is this page's own number. */
function isPageNumber(edge: EdgeLine, seen: Set<number>, printed: number): boolean {
  const match = PAGE_NUMBER.exec(edge.line.text);
  if (!match) return false;
  const number = match[1]!;
  if (!/^\d+$/.test(number) && !ROMAN.test(number)) return false;
  return seen.size >= 2 || Number(number) === edge.page + 1 || Number(number) === printed;
}

// ---------------------------------------------------------------- blocks

interface ListMarker {
  /** What the item starts with in the output: "- ", "3. ", "- a) ". */
  output: string;
  /** The item's text after its marker. */
  body: string;
  /** Bullets never start a line of prose; "1." and "-" can, after a line wrap. */
  unambiguous: boolean;
}

/** Lines read as one unit; `left` and `right` are kept as lines join, since layout runs in the server's thread and must stay linear. */
type Block = { lines: Line[]; left: number; right: number } & (
  { kind: "text" } | { kind: "item"; marker: ListMarker } | { kind: "code" } | { kind: "contents" }
);

function addLine(block: Block, line: Line): void {
  block.lines.push(line);
  block.left = Math.min(block.left, line.left);
  block.right = Math.max(block.right, line.right);
}

const BULLET = /^([•◦▪▫‣⁃●○■□∙➢►▶✓✔❖\uf0b7\uf0a7\uf0d8\uf076\uf0fc\uf0a8])\s*(\S.*)$/u;
const DASH_BULLET = /^([-*+–—·])\s+(\S.*)$/u;
const NUMBERED = /^(\d{1,3})[.)]\s+(\S.*)$/u;
const LABELLED = /^(\((?:\d{1,3}|[a-z]|[ivx]{1,5})\)|(?:[a-z]|[ivx]{1,5})[.)]|[A-Z]\))\s+(\S.*)$/u;

function listMarker(text: string): ListMarker | undefined {
  let m = BULLET.exec(text);
  if (m) return { output: "- ", body: m[2]!, unambiguous: true };
  m = DASH_BULLET.exec(text);
  if (m) return { output: "- ", body: m[2]!, unambiguous: false };
  m = NUMBERED.exec(text);
  if (m) return { output: `${Number(m[1])}. `, body: m[2]!, unambiguous: false };
  m = LABELLED.exec(text);
  // Markdown numbers lists with digits only; a lettered item keeps its label inside a bullet item.
  if (m) return { output: `- ${m[1]} `, body: m[2]!, unambiguous: false };
  return undefined;
}

/** Gap above a line, as a multiple of the usual leading, that starts a new paragraph. */
const PARAGRAPH_GAP = 1.3;
/** Blank lines inside a code example are wider gaps, not new blocks: up to this many leadings. */
const CODE_GAP = 3;

function toBlocks(lines: Line[], leading: Leading, body: BodyStyle): Block[] {
  const blocks: Block[] = [];
  let block: Block | undefined;
  let prev: Line | undefined;
  for (const line of lines) {
    const boundary = block === undefined || prev === undefined || breaksBlock(prev, line, block, leading, body);
    const marker = isCode(line) || isContentsEntry(line.text) ? undefined : listMarker(line.text);
    const startsItem = marker !== undefined && (boundary || marker.unambiguous || mayStartItem(prev!, block!));
    const bounds = { lines: [line], left: line.left, right: line.right };
    if (startsItem) {
      block = { kind: "item", marker, ...bounds };
      blocks.push(block);
    } else if (boundary) {
      // A line of code inside a paragraph (a path wrapped onto its own line) stays prose; only one set apart starts code.
      block = isCode(line)
        ? { kind: "code", ...bounds }
        : isContentsEntry(line.text)
          ? { kind: "contents", ...bounds }
          : { kind: "text", ...bounds };
      blocks.push(block);
    } else {
      addLine(block!, line);
    }
    prev = line;
  }
  return blocks;
}

/** "1." or "-" at the start of a line inside a paragraph is an item only after an item, a sentence end or a colon. */
function mayStartItem(prev: Line, block: Block): boolean {
  return block.kind === "item" || /[.:;!?]["'”’)]?$/u.test(prev.text);
}

function breaksBlock(prev: Line, line: Line, block: Block, leading: Leading, body: BodyStyle): boolean {
  if (!prev.upright || !line.upright) return true;
  const dy = prev.y - line.y;
  // Upwards: the next column, or text placed out of order.
  if (dy < -0.5 * line.size) return true;
  const sameSize = Math.abs(line.size - prev.size) <= Math.max(0.5, 0.08 * prev.size);
  if (block.kind === "code") return !(isCode(line) && sameSize && dy <= CODE_GAP * leading(prev.size) + 0.5);
  // One contents entry per line: their wrapped titles are rare, their lines running together is not.
  if (block.kind === "contents" || isContentsEntry(line.text)) return true;
  // Code inside a sentence is often set a point smaller: not a change of block by itself.
  if (!sameSize && !prev.monospace && !line.monospace) return true;
  if (dy > PARAGRAPH_GAP * leading(prev.size) + 0.5) return true;
  // A whole line in a font other than the body's (a bold title at body size) stands apart from what follows it.
  if (prev.font !== line.font && prev.font !== body.font && isTitleLike(prev)) return true;
  // "... as follows:" and then an example; a path wrapped onto a line of its own mid-sentence stays in the sentence.
  if (isCode(line) && !isCode(prev) && /[.:!?]$/.test(prev.text)) return true;
  if (block.kind === "item") {
    // Continuation lines hang under the item's text; a line back at the marker's edge has left the item.
    return line.left <= block.lines[0]!.left + 0.25 * line.size;
  }
  // A first-line indent starts a paragraph. Centred titles have ragged edges too, so only below heading sizes.
  if (line.left - block.left > 0.7 * line.size && line.size < body.size * HEADING_MIN_RATIO) return true;
  return endsParagraph(prev, line, block);
}

/** A line stopping well short of the paragraph's right edge after a full stop ends the paragraph, even without a gap or indent. */
function endsParagraph(prev: Line, line: Line, block: Block): boolean {
  if (block.lines.length < 2) return false;
  const short = prev.right < block.right - Math.max(3 * prev.size, 0.15 * (block.right - block.left));
  return short && /[.!?:]["'”’)\]]?$/u.test(prev.text) && /^[\p{Lu}\p{N}"'“‘([]/u.test(line.text);
}

// ---------------------------------------------------------------- headings

/** Set this much larger than the body text, a short block is a heading. */
const HEADING_MIN_RATIO = 1.15;
/** At most this many lines and characters: a big-type block longer than that is a lead paragraph, not a title. */
const HEADING_MAX_LINES = 3;
const HEADING_MAX_CHARS = 200;

/** The Markdown level (1–6) of a block, or undefined for body text. */
type HeadingLevels = (block: Block, next: Block | undefined) => number | undefined;

/**
 * Heading levels by rank of size: the largest heading size in the document is
 * `#`, the next `##`, and so on; a title-like line in another font at body
 * size (a bold title) ranks below them all.
 */
function headingLevels(blocks: Block[], body: BodyStyle): HeadingLevels {
  const bySize = (block: Block) => {
    const line = block.lines[0]!;
    if (block.kind !== "text" || block.lines.length > HEADING_MAX_LINES || !/\p{L}/u.test(line.text)) return false;
    if (block.lines.reduce((n, l) => n + l.text.length + 1, 0) > HEADING_MAX_CHARS) return false;
    // Slightly larger counts too when the font differs as well: 12pt bold over 11pt body.
    return line.size >= body.size * HEADING_MIN_RATIO || (line.size >= body.size * 1.05 && line.font !== body.font);
  };
  const sizes = [...new Set(blocks.filter(bySize).map((b) => roundSize(b.lines[0]!.size)))].sort((a, b) => b - a);
  // Sizes within a point of each other are one rank: producers scale the same style slightly differently.
  // Markdown stops at six levels, so does the search for a block's rank.
  const ranks: number[] = [];
  for (const size of sizes) if (ranks.length < 6 && (ranks.length === 0 || ranks.at(-1)! - size >= 1)) ranks.push(size);
  const rankOf = (size: number) => {
    let rank = 0;
    while (rank + 1 < ranks.length && ranks[rank + 1]! >= roundSize(size) - 0.5) rank++;
    return rank;
  };

  const isBoldTitle = (block: Block, next: Block | undefined) => {
    const line = block.lines[0]!;
    if (block.kind !== "text" || block.lines.length !== 1 || !isTitleLike(line)) return false;
    if (line.font === body.font || Math.abs(line.size - body.size) > body.size * 0.05) return false;
    // Followed by body text: an italic caption at the foot of a page is not a title.
    return next !== undefined && next.lines[0]!.font === body.font;
  };

  return (block, next) => {
    if (bySize(block)) return Math.min(6, rankOf(block.lines[0]!.size) + 1);
    if (isBoldTitle(block, next)) return Math.min(6, ranks.length + 1);
    return undefined;
  };
}

// ---------------------------------------------------------------- output

/** A block and, when it is a heading, its level. */
interface Placed {
  block: Block;
  level: number | undefined;
}

function classify(blocks: Block[], headings: HeadingLevels): Placed[] {
  return blocks.map((block, i) => ({ block, level: headings(block, blocks[i + 1]) }));
}

/**
 * A heading wrapped over lines can arrive as several blocks (a hanging indent
 * or a change of font on its second line); adjacent headings of one level with
 * no more than a line's spacing between them are one heading.
 */
function joinWrappedHeadings(placed: Placed[], leading: Leading): Placed[] {
  const out: Placed[] = [];
  for (const entry of placed) {
    const above = out.at(-1);
    if (above && above.level !== undefined && above.level === entry.level) {
      const last = above.block.lines.at(-1)!;
      const dy = last.y - entry.block.lines[0]!.y;
      if (dy > 0 && dy <= PARAGRAPH_GAP * leading(last.size) + 0.5) {
        const joined: Block = {
          kind: "text",
          lines: [...above.block.lines],
          left: above.block.left,
          right: above.block.right,
        };
        for (const line of entry.block.lines) addLine(joined, line);
        out[out.length - 1] = { block: joined, level: above.level };
        continue;
      }
    }
    out.push(entry);
  }
  return out;
}

/** A line's place in the page's text; it runs to where the next one starts. */
interface LineAt {
  start: number;
  end: number;
  line: Line;
}

function render(placed: Placed[], words: DocumentWords, leading: Leading): { text: string; lines: LineAt[] } {
  const list = new ListIndents();
  const kind = (entry: Placed | undefined) => (entry?.level === undefined ? entry?.block.kind : "heading");
  let out = "";
  const lines: LineAt[] = [];
  placed.forEach((entry, i) => {
    const { block, level } = entry;
    let text: Joined;
    if (level !== undefined) {
      text = prefixed(
        `${"#".repeat(level)} `,
        joinLines(
          block.lines.map((l) => l.text),
          words,
        ),
      );
    } else if (block.kind === "item") {
      const indent = list.indentFor(block.lines[0]!, block.marker.output.length);
      text = prefixed(
        indent + block.marker.output,
        joinLines([block.marker.body, ...block.lines.slice(1).map((l) => l.text)], words),
      );
    } else if (block.kind === "code") {
      text = fence(block, leading);
    } else if (block.kind === "contents") {
      const entry = block.lines[0]!.text.replace(LEADERS, " … ");
      text = prefixed(blockStartEscape(entry), { text: entry, starts: [0] });
    } else {
      const joined = joinLines(
        block.lines.map((l) => l.text),
        words,
      );
      text = prefixed(blockStartEscape(joined.text), joined);
    }
    if (kind(entry) !== "item") list.reset();
    // Items of one list are one Markdown list, entries of a contents page one paragraph: no blank line between them.
    const together = kind(entry) === kind(placed[i - 1]) && (kind(entry) === "item" || kind(entry) === "contents");
    if (i > 0) out += together ? "\n" : "\n\n";
    const blockStart = out.length;
    out += text.text;
    block.lines.forEach((line, k) => {
      // A line's range runs to the next line's start: the space or hyphen between them goes with it.
      const end = k + 1 < block.lines.length ? blockStart + text.starts[k + 1]! : out.length;
      lines.push({ start: k === 0 ? blockStart : blockStart + text.starts[k]!, end, line });
    });
  });
  return { text: out, lines };
}

/** A block's text and where each of its lines starts in it. */
interface Joined {
  text: string;
  starts: number[];
}

/** `joined` after a marker ("## ", "- ") or an escape; the first line starts the block, marker and all. */
function prefixed(prefix: string, joined: Joined): Joined {
  return { text: prefix + joined.text, starts: joined.starts.map((start, k) => (k === 0 ? 0 : start + prefix.length)) };
}

/** Nesting follows the markers' indents: an item further right than the one above is one level in. */
class ListIndents {
  private stack: { left: number; indent: string; childIndent: string }[] = [];

  indentFor(first: Line, markerWidth: number): string {
    const tolerance = 0.3 * first.size;
    while (this.stack.length > 0 && this.stack.at(-1)!.left > first.left + tolerance) this.stack.pop();
    const above = this.stack.at(-1);
    let indent = "";
    if (above && Math.abs(above.left - first.left) <= tolerance) {
      indent = above.indent;
      this.stack.pop();
    } else if (above) {
      indent = above.childIndent;
    }
    this.stack.push({ left: first.left, indent, childIndent: indent + " ".repeat(markerWidth) });
    return indent;
  }

  reset(): void {
    this.stack = [];
  }
}

/** Code keeps its lines, its indentation (from positions, in character widths) and its blank lines. */
function fence({ lines, left }: Block, leading: Leading): Joined {
  const widths = lines.filter((l) => l.raw.length >= 4).map((l) => (l.right - l.left) / l.raw.length);
  const charWidth =
    widths.length > 0 ? widths.sort((a, b) => a - b)[Math.floor(widths.length / 2)]! : 0.6 * lines[0]!.size;
  const body: string[] = [];
  const rows: number[] = [];
  lines.forEach((line, i) => {
    const above = lines[i - 1];
    if (above && above.y - line.y > 1.6 * leading(line.size)) body.push("");
    rows.push(body.length);
    body.push(" ".repeat(Math.max(0, Math.round((line.left - left) / charWidth))) + line.raw);
  });
  const marker = body.some((l) => l.includes("```")) ? "~~~~" : "```";
  const offsets: number[] = [];
  let at = marker.length + 1;
  for (const row of body) {
    offsets.push(at);
    at += row.length + 1;
  }
  return { text: `${marker}\n${body.join("\n")}\n${marker}`, starts: rows.map((row) => offsets[row]!) };
}

/** Prose that happens to start like a Markdown block (a heading, list item, quote, fence or rule) is escaped, so a Markdown parser reads it as prose: the backslash to put before it, if any. */
function blockStartEscape(text: string): string {
  return /^(?:#{1,6}(?:\s|$)|[-*+]\s|\d{1,9}[.)]\s|>|```|~~~|(?:[-*_]\s*){3,}$|=+$|\|)/.test(text) ? "\\" : "";
}

/** "pre- and post-war": a hyphen left hanging before a conjunction is not a broken word. */
const SUSPENDED = /^(?:and|or|to|nor)\b/u;

const CJK = "[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u3000-\\u303f\\uff00-\\uffef]";
const ENDS_CJK = new RegExp(`${CJK}$`, "u");
const STARTS_CJK = new RegExp(`^${CJK}`, "u");

/**
 * Joins wrapped lines with a space; Chinese and Japanese lines join without
 * one. A word hyphenated across the line break is joined: with its hyphen
 * when the document writes it so elsewhere ("well-known") and never whole,
 * or before a capital or digit ("Jean-Paul"); otherwise without
 * ("measure-" + "ments"), as typesetters hyphenate far more often than
 * compounds happen to fall at a line end.
 */
function joinLines(lines: string[], words: DocumentWords): Joined {
  // Endings are tested on the previous line alone, never on the text joined so far: a long paragraph must not cost its length squared.
  const parts = [lines[0] ?? ""];
  const starts = [0];
  let length = parts[0]!.length;
  for (const next of lines.slice(1)) {
    const prev = parts.at(-1)!;
    if (prev.endsWith("\u00ad")) {
      parts[parts.length - 1] = prev.slice(0, -1);
      length--;
    } else if (/\p{L}-$/u.test(prev) && /^\p{Ll}/u.test(next) && !SUSPENDED.test(next)) {
      const head = /[\p{L}-]+-$/u.exec(prev)![0];
      const tail = /^[\p{L}-]+/u.exec(next)![0];
      const hyphenated = words.has(head + tail) && !words.has(head.slice(0, -1) + tail);
      if (!hyphenated) {
        parts[parts.length - 1] = prev.slice(0, -1);
        length--;
      }
    } else if (/\p{L}-$/u.test(prev) && /^[\p{Lu}\p{N}]/u.test(next)) {
      // "Jean-" + "Paul", "COVID-" + "19": a hyphen before a capital or a digit belongs to the word.
    } else if (!prev.endsWith("—") && !(ENDS_CJK.test(prev) && STARTS_CJK.test(next))) {
      parts.push(" ");
      length++;
    }
    starts.push(length);
    parts.push(next);
    length += next.length;
  }
  return { text: parts.join(""), starts };
}

/** The document's words, lower-cased, to decide how a word broken at a line end is spelt. Built on first use: most documents never ask. */
class DocumentWords {
  private words: Set<string> | undefined;
  constructor(private readonly pages: Line[][]) {}

  has(word: string): boolean {
    this.words ??= this.collect();
    return this.words.has(word.toLowerCase());
  }

  private collect(): Set<string> {
    const words = new Set<string>();
    for (const lines of this.pages) {
      for (const line of lines) {
        for (const token of line.text.toLowerCase().split(" ")) {
          // A word cut at this line's end is no evidence of how it is spelt.
          if (token.endsWith("-")) continue;
          const word = token.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, "");
          if (word) words.add(word);
        }
      }
    }
    return words;
  }
}
