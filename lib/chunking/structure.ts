/**
 * The structure tier's splitter: chunks that follow a document's Markdown
 * structure, sized in exact o200k tokens.
 *
 * 1. Blocks. The text's block structure is read once (blocks.ts): Markdown
 *    by markdown-it's block parser (markdown-scan.ts), plain and PDF text by
 *    micromark with indented code turned off (markdown-blocks.ts), heading
 *    lines recognised inside its paragraphs ("1.2 Title", "Chapter 3",
 *    ALL-CAPS lines; see headings.ts). Headings start sections; every other block belongs to
 *    the section of the last heading above it.
 *
 * 2. Units. Each block becomes one unit if it fits in `maxTokens`, else the
 *    smallest pieces its kind allows, each with the cost of a chunk boundary
 *    before it:
 *    - prose: sentences (sentences.ts); a sentence longer than the budget is
 *      split by the recursive splitter (lines, words, and graphemes only for
 *      a single word longer than the budget). A sentence that ends a line is
 *      a cheaper place to cut than one inside a line.
 *    - fenced code: lines, the fences glued to the first and last line; a
 *      piece that starts or ends a chunk gets the opening fence line
 *      (language tag included) or a closing fence added, so every chunk is
 *      valid Markdown. Blank lines are cheaper to cut at than other lines.
 *    - tables: the header row with the separator line, then rows; a chunk
 *      starting at a row gets the header row and separator line repeated.
 *    - lists: items, top-level ones first; an item too big alone is split
 *      into its own blocks (its text, nested lists: between their items
 *      first, ...). Only an item whose own text exceeds the budget is cut
 *      inside, at sentences, then lines and words: there is no other way to
 *      keep within `maxTokens`.
 *    - block quotes and footnote definitions: their blocks; anything else
 *      (HTML, a heading longer than a chunk): as prose.
 *    Prose of fitting paragraphs is split into sentences too, so chunks can
 *    be filled evenly; cutting a paragraph between two sentences costs as
 *    much as one more chunk, cutting where a sentence ends a line much less.
 *
 * 3. Packing. Units are packed into chunks by an optimal partition
 *    (packing.ts): each chunk costs 1, each boundary its cost (a section
 *    change nothing, a paragraph little, a sentence more, a word much), and a
 *    small penalty for unfilled chunks evens out sizes. So small neighbours
 *    merge up to `maxTokens`, and a long section is cut where it hurts least.
 *    Rules the costs enforce: no chunk ends with a heading and no body (a
 *    boundary after a heading costs more than any alternative, so it is taken
 *    only when the block after it fits alone but not with the heading, such as
 *    a code block of nearly `maxTokens`: code is never split while it fits;
 *    a first sentence too long to join its heading is cut at words instead);
 *    a chunk that spans a section change starts where its first section
 *    starts, so whole short sections share chunks (and the last may lead into
 *    the start of the next section), but the tail of a section never shares a
 *    chunk with what follows it. Such a chunk's `headings` are its first
 *    section's.
 *
 * 4. Spans. `start`/`end` are offsets in the text; a chunk's text is
 *    `text.slice(start, end)`, or, when a code fence or table header was
 *    added, `Span.text`. `headings` is the section path of the chunk's first
 *    unit. `tokenCount` is the exact count of the chunk's text.
 *
 * Overlap: `overlapTokens` applies only between two chunks cut inside the
 * prose of one section; the later chunk starts with the last words of the
 * earlier one (from a sentence start when one lies within the budget). Code,
 * table and list pieces are never repeated, nor is text across a section
 * change. Chunks that receive overlap are packed with room for it.
 *
 * Sizes stay exact without re-counting: the document is pre-tokenized once
 * (`TokenIndex`), candidate chunks are estimated from its prefix sums, those
 * near the limit are counted exactly, and every final chunk is counted
 * exactly (a chunk over the limit, possible only through an estimate gone
 * wrong, is re-packed greedily with exact counts).
 *
 * Speed: ~15 MB/s on the bench corpus here. Of ~118 ms on 2.9 MB of
 * Markdown: the token index ~35, sentence segmentation (ICU) ~25, the block
 * parser ~25, units and packing ~25, garbage collection ~12. Plain text
 * ~1 MB/s, nearly all of it micromark.
 */
import type { Extracted } from "@/lib/extract/types";
import { countTokens, TokenIndex } from "@/lib/tokens";
import {
  HeadingPath,
  markdownHeadingTitles,
  numberedChapterLevel,
  plainHeadingLevel,
  type SectionHeading,
} from "./headings";
import type { Block } from "./blocks";
import { plainTextBlocks } from "./markdown-blocks";
import { scanMarkdown } from "./markdown-scan";
import { pack } from "./packing";
import { splitRecursive } from "./recursive";
import { sentenceStarts, sentenceStartsOfRanges } from "./sentences";
import { isSpace } from "./whitespace";
import type { Span, SplitOptions } from "./types";

export interface StructureOptions extends SplitOptions {
  /**
   * "markdown" (default): Markdown, and the Markdown made from HTML and DOCX.
   * "plain": plain text and PDF text, Markdown or not: heading lines are
   * recognised without Markdown markers, and indentation is not code.
   */
  flavor?: "markdown" | "plain";
  /**
   * Offsets where a section starts besides the headings, ascending (the AI
   * tiers' boundaries). The unit starting at or after one starts a section
   * that no chunk spans, unless the offset falls inside a unit (a list,
   * table or code block kept whole) or the unit follows a heading (kept with it).
   */
  sectionStarts?: readonly number[];
}

// ---------------------------------------------------------------------------
// Costs of chunk boundaries, relative to the cost of one more chunk (1)
// ---------------------------------------------------------------------------

const CHUNK = 1;
const BREAK = {
  section: 0,
  block: 0.05,
  /** Between the blocks inside a block quote or a list item. */
  inner: 0.12,
  /** Between list items at depth 0; deeper ones add `itemDepth` per level. */
  item: 0.15,
  itemDepth: 0.08,
  row: 0.2,
  codeBlank: 0.2,
  codeLine: 0.45,
  /** A sentence that ends a line. */
  lineSentence: 0.15,
  sentence: 1,
  /** Inside a sentence (words), a table row or a code line: only when it alone is too big. */
  word: 4,
  /** After a heading or an opening fence, before a closing fence: only when nothing else fits. */
  glue: 40,
} as const;
/** Weight of the squared unfilled share of a chunk: evens out sizes, second to boundary quality. */
const UNFILLED = 0.25;
/** Per section change inside a chunk. */
const SECTION_MIX = 0.3;

/** Tokens a unit keeps free for the few that joining texts can add (a fence or header added, edges re-scanned). */
const JOIN_SLACK = 2;
/** Estimates this far under the limit are taken to fit; between NEAR and FAR they are counted exactly. */
const NEAR = 8;
const FAR = 24;
/** Fewest tokens `maxTokens` may be: a re-fenced line needs room next to its fences, a heading next to its body. */
const MIN_MAX_TOKENS = 16;
/** The recursive splitter's smallest budget (a code point can take 4 tokens). */
const MIN_PIECE_TOKENS = 4;

type UnitKind = "heading" | "prose" | "code" | "table" | "list" | "other";

interface Unit {
  start: number;
  end: number;
  kind: UnitKind;
  /** Cost of a chunk boundary right before this unit. */
  breakBefore: number;
  /** Index into the section paths. */
  section: number;
  /** Added before the unit's text when it starts a chunk (a code fence line, a table header). */
  prefix?: string;
  /** Added after the unit's text when it ends a chunk (a closing fence). */
  suffix?: string;
  /** The suffix instead, when the chunk started inside the same code block (with its `prefix`). */
  reopenedSuffix?: string;
  /** Which code block a piece of code belongs to. */
  block?: number;
  /** Starts a section given by the caller (`sectionStarts`): no chunk spans it. */
  given?: boolean;
  prefixTokens: number;
  /** Tokens of the longer suffix. */
  suffixTokens: number;
}

type Additions = Partial<Pick<Unit, "prefix" | "suffix" | "reopenedSuffix" | "block">>;
type NewUnit = Pick<Unit, "start" | "end" | "kind" | "breakBefore"> & Additions;

/** Turns blocks into units, tracking sections. */
class UnitBuilder {
  readonly units: Unit[] = [];
  /** Section paths; units point into it. Section 0 is the text before any heading. */
  readonly sections: string[][] = [[]];
  private readonly path = new HeadingPath();
  private readonly addedTokens = new Map<string, number>();
  private codeBlocks = 0;
  /** Sentence starts found ahead of time, by the range's start: the document's own paragraphs, segmented together. */
  private readonly knownSentences = new Map<number, { end: number; starts: number[] }>();

  constructor(
    readonly text: string,
    readonly index: TokenIndex,
    /** Largest unit: `maxTokens` less the join slack. */
    readonly budget: number,
    /** Largest prose unit that may receive overlap: `budget` less the overlap. */
    readonly proseBudget: number,
    private readonly sectionStarts: readonly number[] = [],
  ) {}

  private nextSectionStart = 0;

  /** Segments these paragraphs (whose prose is always cut into sentences) in a few segmenter calls rather than one each. */
  segmentAhead(paragraphs: readonly Block[]): void {
    const ranges = paragraphs.map((p) => this.trim(p.start, p.end)).filter(([start, end]) => start < end);
    sentenceStartsOfRanges(this.text, ranges).forEach((starts, k) =>
      this.knownSentences.set(ranges[k]![0], { end: ranges[k]![1], starts }),
    );
  }

  private sentenceStarts(start: number, end: number): number[] {
    const known = this.knownSentences.get(start);
    return known?.end === end ? known.starts : sentenceStarts(this.text, start, end);
  }

  /** Whether a given section start falls between the last unit and one starting at `start` (consuming those passed). */
  private startsGivenSection(start: number, previous: Unit | undefined): boolean {
    let found = false;
    while (this.nextSectionStart < this.sectionStarts.length && this.sectionStarts[this.nextSectionStart]! <= start) {
      const at = this.sectionStarts[this.nextSectionStart++]!;
      if (!previous || previous.end <= at) found = true;
    }
    return found && previous !== undefined && previous.kind !== "heading";
  }

  private tokensOf(s: string): number {
    let n = this.addedTokens.get(s);
    if (n === undefined) this.addedTokens.set(s, (n = countTokens(s)));
    return n;
  }

  private push(unit: NewUnit): void {
    if (unit.end <= unit.start) return;
    const previous = this.units[this.units.length - 1];
    const given = this.startsGivenSection(unit.start, previous);
    if (given) this.sections.push(this.path.titles());
    // No chunk ends with a heading: the boundary after one costs the most.
    const breakBefore =
      previous?.kind === "heading" ? Math.max(unit.breakBefore, BREAK.glue) : given ? BREAK.section : unit.breakBefore;
    // Every field written, in one order: one object shape for all units (tens of thousands in a large document).
    this.units.push({
      start: unit.start,
      end: unit.end,
      kind: unit.kind,
      breakBefore,
      section: this.sections.length - 1,
      prefix: unit.prefix,
      suffix: unit.suffix,
      reopenedSuffix: unit.reopenedSuffix,
      block: unit.block,
      given,
      prefixTokens: unit.prefix ? this.tokensOf(unit.prefix) : 0,
      suffixTokens: Math.max(
        unit.suffix ? this.tokensOf(unit.suffix) : 0,
        unit.reopenedSuffix ? this.tokensOf(unit.reopenedSuffix) : 0,
      ),
    });
  }

  private trim(start: number, end: number): [number, number] {
    const text = this.text;
    while (start < end && isSpace(text.charCodeAt(start))) start++;
    while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
    return [start, end];
  }

  private count(start: number, end: number): number {
    return this.index.count(start, end);
  }

  // -- sections --------------------------------------------------------------

  heading(start: number, end: number, heading: SectionHeading): void {
    this.path.enter(heading);
    this.sections.push(this.path.titles());
    if (this.count(start, end) <= this.budget) this.push({ start, end, kind: "heading", breakBefore: BREAK.section });
    else this.prose(start, end, BREAK.section, "other", this.budget);
  }

  insideChapter(): boolean {
    return this.path.hasChapter();
  }

  // -- blocks ----------------------------------------------------------------

  /** Any block node; `from` overrides its start (a list item's first block starts at the item's marker). */
  block(node: Block, breakBefore: number, depth: number, kind: UnitKind, from?: number): void {
    const start = from ?? node.start;
    switch (node.type) {
      case "paragraph":
      case "heading":
        return this.prose(start, node.end, breakBefore, kind, kind === "prose" ? this.proseBudget : this.budget);
      case "code":
        return this.code(node, start, breakBefore);
      case "table":
        return this.table(node, start, breakBefore);
      case "list":
        return this.list(node, start, breakBefore, depth);
      case "listItem":
        return this.listItem(node, start, breakBefore, depth);
      case "blockquote":
      case "footnoteDefinition":
        return this.container(node.children, start, node.end, breakBefore, depth);
      default:
        return this.prose(start, node.end, breakBefore, "other", this.budget);
    }
  }

  /**
   * Prose: sentences. Paragraphs of the document's own prose are cut into
   * sentences even when they fit, so that packing can fill chunks; any other
   * text (a list item's, a quote's, HTML) only when it does not fit.
   */
  prose(from: number, to: number, breakBefore: number, kind: UnitKind, budget: number): void {
    const [start, end] = this.trim(from, to);
    if (start >= end) return;
    if (kind !== "prose" && this.count(start, end) <= budget) {
      this.push({ start, end, kind, breakBefore });
      return;
    }
    let sentenceStart = start;
    let cost = breakBefore;
    for (const boundary of [...this.sentenceStarts(start, end), end]) {
      const [s, e] = this.trim(sentenceStart, boundary);
      // A heading must share its chunk with some of its body: a first sentence too long for that is cut at words.
      const heading = sentenceStart === start ? this.headingTokens() : 0;
      if (heading > 0 && budget - heading >= MIN_PIECE_TOKENS && this.count(s, e) + heading > budget)
        this.pieces(s, e, cost, kind, budget - heading);
      else this.sentence(s, e, cost, kind, budget);
      cost = endsLine(this.text, e, boundary) ? BREAK.lineSentence : BREAK.sentence;
      sentenceStart = boundary;
    }
  }

  /** Tokens of the headings that end the units so far (0 if the last unit is not a heading), with a token per join. */
  private headingTokens(): number {
    let total = 0;
    for (let k = this.units.length - 1; k >= 0 && this.units[k]!.kind === "heading"; k--)
      total += this.count(this.units[k]!.start, this.units[k]!.end) + 1;
    return total;
  }

  /** One sentence; the recursive splitter cuts one longer than the budget (lines, words, graphemes). */
  private sentence(start: number, end: number, breakBefore: number, kind: UnitKind, budget: number): void {
    if (start >= end) return;
    if (this.count(start, end) <= budget) {
      this.push({ start, end, kind, breakBefore });
      return;
    }
    this.pieces(start, end, breakBefore, kind, budget);
  }

  /** [start, end) cut by the recursive splitter into pieces of at most `budget`, boundaries between them costing a word's. */
  private pieces(
    start: number,
    end: number,
    breakBefore: number,
    kind: UnitKind,
    budget: number,
    extra: Additions = {},
    firstExtra = extra,
  ): void {
    const spans = splitRecursive(this.text.slice(start, end), { maxTokens: budget, overlapTokens: 0 });
    spans.forEach((span, i) => {
      this.push({
        start: start + span.start,
        end: start + span.end,
        kind,
        breakBefore: i === 0 ? breakBefore : BREAK.word,
        ...(i === 0 ? firstExtra : extra),
      });
    });
  }

  private code(node: Block, start: number, breakBefore: number): void {
    const { start: fenceAt, end } = node;
    if (this.count(start, end) <= this.budget) {
      this.push({ start, end, kind: "code", breakBefore });
      return;
    }
    const text = this.text;
    // Lines of the block; the first runs from `start` (a list item's marker, when the block opens the item).
    const lines: Array<[number, number]> = [];
    for (let s = start; s < end;) {
      const e = Math.min(lineEnd(text, s), end);
      lines.push([s, e]);
      s = e + 1;
    }
    const fence = /^(`{3,}|~{3,})/.exec(text.slice(fenceAt, fenceAt + 256))?.[1];
    let fences: Fences | undefined;
    let contentFrom = 0;
    let contentTo = lines.length;
    if (fence) {
      fences = codeFences(text, fenceAt, fence);
      contentFrom = 1;
      const last = lines[lines.length - 1]!;
      const closing = new RegExp(`^[ \\t>]*${fence[0] === "`" ? "`" : "~"}{${fence.length},}[ \\t]*\\r?$`);
      if (lines.length > 1 && closing.test(text.slice(last[0], last[1]))) contentTo = lines.length - 1;
      // Fences that would take over half a chunk (a tiny budget, a huge info string): the block is cut as plain lines.
      if (
        this.tokensOf(fences.open) + Math.max(this.tokensOf(fences.close), this.tokensOf(fences.reopenedClose)) >
        this.budget / 2
      ) {
        fences = undefined;
        contentFrom = 0;
        contentTo = lines.length;
      }
    }
    const block = ++this.codeBlocks;
    const open = fences && { prefix: fences.open, block };
    const close = fences && { suffix: fences.close, reopenedSuffix: fences.reopenedClose, block };
    if (fences) this.push({ start: lines[0]![0], end: lines[0]![1], kind: "code", breakBefore, ...close });
    const lineBudget =
      this.budget -
      (fences
        ? this.tokensOf(fences.open) + Math.max(this.tokensOf(fences.close), this.tokensOf(fences.reopenedClose))
        : 0);
    let blank = false;
    for (let k = contentFrom; k < contentTo; k++) {
      const [s, rawEnd] = lines[k]!;
      let e = rawEnd;
      while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
      if (text.slice(s, e).replace(/^[ \t>]*/, "") === "") {
        blank = true;
        continue;
      }
      const cost = k === contentFrom ? (fences ? BREAK.glue : breakBefore) : blank ? BREAK.codeBlank : BREAK.codeLine;
      if (this.count(s, e) <= lineBudget)
        this.push({ start: s, end: e, kind: "code", breakBefore: cost, ...open, ...close });
      else this.pieces(s, e, cost, "code", lineBudget, { ...open, ...close });
      blank = false;
    }
    if (fences && contentTo < lines.length) {
      const last = lines[lines.length - 1]!;
      this.push({ start: last[0], end: last[1], kind: "code", breakBefore: BREAK.glue, ...open });
    }
  }

  private table(node: Block, start: number, breakBefore: number): void {
    const end = node.end;
    if (this.count(start, end) <= this.budget || node.children.length < 2) {
      if (this.count(start, end) <= this.budget) this.push({ start, end, kind: "table", breakBefore });
      else this.prose(start, end, breakBefore, "table", this.budget);
      return;
    }
    const text = this.text;
    // The header row and the separator line: from the table's start to the end of the line after the header row.
    const headerEnd = lineEnd(text, node.children[0]!.end);
    const separatorEnd = lineEnd(text, Math.min(end, headerEnd + 1));
    let prefix: string | undefined = `${text.slice(start, separatorEnd)}\n`;
    // A header too big to repeat: rows go without it rather than not fitting.
    if (this.tokensOf(prefix) > this.budget / 2) prefix = undefined;
    if (this.count(start, separatorEnd) <= this.budget)
      this.push({ start, end: separatorEnd, kind: "table", breakBefore });
    else this.prose(start, separatorEnd, breakBefore, "table", this.budget);
    const rowBudget = this.budget - (prefix ? this.tokensOf(prefix) : 0);
    node.children.slice(1).forEach((row, k) => {
      const [s, e] = this.trim(row.start, row.end);
      const cost = k === 0 ? BREAK.glue : BREAK.row;
      if (this.count(s, e) <= rowBudget) this.push({ start: s, end: e, kind: "table", breakBefore: cost, prefix });
      // A row bigger than a chunk: cut inside it (words), the header before its first piece only.
      else this.pieces(s, e, cost, "table", rowBudget, {}, { prefix });
    });
  }

  private list(node: Block, start: number, breakBefore: number, depth: number): void {
    const end = node.end;
    if (this.count(start, end) <= this.budget) {
      this.push({ start, end, kind: "list", breakBefore });
      return;
    }
    node.children.forEach((item, k) => {
      this.listItem(
        item,
        k === 0 ? start : item.start,
        k === 0 ? breakBefore : BREAK.item + depth * BREAK.itemDepth,
        depth,
      );
    });
  }

  private listItem(node: Block, start: number, breakBefore: number, depth: number): void {
    const end = node.end;
    if (this.count(start, end) <= this.budget) {
      this.push({ start, end, kind: "list", breakBefore });
      return;
    }
    // Too big for one chunk: its own blocks, nested lists between their items. Only a block of
    // the item that alone exceeds the budget is cut inside (prose: sentences, then lines and
    // words), the one way left to keep within maxTokens.
    node.children.forEach((child, k) => {
      this.block(
        child,
        k === 0 ? breakBefore : BREAK.inner + depth * BREAK.itemDepth,
        depth + 1,
        "list",
        k === 0 ? start : undefined,
      );
    });
  }

  private container(children: Block[], start: number, end: number, breakBefore: number, depth: number): void {
    if (this.count(start, end) <= this.budget || children.length === 0) {
      if (this.count(start, end) <= this.budget) this.push({ start, end, kind: "other", breakBefore });
      else this.prose(start, end, breakBefore, "other", this.budget);
      return;
    }
    children.forEach((child, k) =>
      this.block(child, k === 0 ? breakBefore : BREAK.inner, depth, "other", k === 0 ? start : undefined),
    );
  }
}

/**
 * Whether the gap [end, next) after a sentence holds a line break, or the
 * sentence ends with one written out as "\n" (text serialised as JSON or a
 * Python literal, such as exported chat logs, where it separates paragraphs).
 */
function endsLine(text: string, end: number, next: number): boolean {
  if (text.slice(end, next).includes("\n")) return true;
  return text.charCodeAt(end - 1) === 110 /* n */ && text.charCodeAt(end - 2) === 92; /* \ */
}

/** End of the line holding `offset` (the offset of its "\n", or the text's end). */
function lineEnd(text: string, offset: number): number {
  const newline = text.indexOf("\n", offset);
  return newline < 0 ? text.length : newline;
}

interface Fences {
  /** The opening fence line, language tag included, for a piece that starts a chunk. */
  open: string;
  /** The closing fence, for a piece that ends a chunk which holds the block's opening line. */
  close: string;
  /** The closing fence, for a piece that ends a chunk opened with `open`. */
  reopenedClose: string;
}

/**
 * Fence lines for the pieces of a code block whose fence starts at `at`. A
 * block inside a list item or a quote keeps that container in the chunks
 * that hold the container's marker: the closing fence must then sit at the
 * item's indentation, or after the quote's `>`. A chunk that starts inside
 * the block has no list marker: its fence is indented at most 3 spaces
 * (4 would make an indented code block of it), and quotes keep their `>`.
 */
function codeFences(text: string, at: number, fence: string): Fences {
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  const container = text.slice(lineStart, at).replace(/[-+*]|\d{1,9}[.)]/g, (marker) => " ".repeat(marker.length));
  const reopened = container.includes(">") ? container : " ".repeat(Math.min(container.length, 3));
  const openLine = text.slice(at, lineEnd(text, at)).replace(/\r$/, "");
  return { open: `${reopened}${openLine}\n`, close: `\n${container}${fence}`, reopenedClose: `\n${reopened}${fence}` };
}

/** Whether any non-whitespace follows `offset`. */
function textFollows(text: string, offset: number): boolean {
  for (let i = offset; i < text.length; i++) if (!isSpace(text.charCodeAt(i))) return true;
  return false;
}

/** A plain-text paragraph: heading lines in it start sections, the lines between them are prose. */
function plainParagraph(builder: UnitBuilder, node: Block): void {
  const text = builder.text;
  const { start, end } = node;
  const lines: Array<[number, number]> = [];
  for (let s = start; s < end;) {
    const e = Math.min(lineEnd(text, s), end);
    lines.push([s, e]);
    s = e + 1;
  }
  const followedByText = textFollows(text, end);
  let proseStart = start;
  let previousIsHeading = false;
  lines.forEach(([s, e], k) => {
    const line = text.slice(s, e);
    const level = plainHeadingLevel(
      line,
      {
        previous: k > 0 ? text.slice(lines[k - 1]![0], lines[k - 1]![1]) : undefined,
        previousIsHeading,
        next: k + 1 < lines.length ? text.slice(lines[k + 1]![0], lines[k + 1]![1]) : undefined,
        followedByText,
      },
      builder.insideChapter(),
    );
    previousIsHeading = level !== undefined;
    if (level === undefined) return;
    builder.prose(proseStart, s, BREAK.block, "prose", builder.proseBudget);
    const [hs, he] = [s + (line.length - line.trimStart().length), e - (line.length - line.trimEnd().length)];
    builder.heading(hs, he, { level, title: text.slice(hs, he) });
    proseStart = e;
  });
  builder.prose(proseStart, end, BREAK.block, "prose", builder.proseBudget);
}

/** A one-item ordered list "1. Title" on one line, followed by a block numbered under it ("## 1.1 ..."): a chapter heading. */
function isNumberedChapter(text: string, list: Block, next: Block | undefined): boolean {
  if (!list.ordered || list.children.length !== 1 || !next) return false;
  const { start, end } = list;
  const line = text.slice(start, end);
  if (line.includes("\n")) return false;
  const nextStart = next.start;
  const nextLine = text.slice(nextStart, lineEnd(text, nextStart)).replace(/^[ \t]*#{1,6}[ \t]+/, "");
  return numberedChapterLevel(line, nextLine) !== undefined;
}

/** Far beyond real documents (lists nest a handful of levels); deeper ones are split recursively instead. */
export const MAX_CONTAINER_DEPTH = 32;
/** What a line that opens a container or is indented starts with. */
const MAY_NEST = /[ \t>*+\-\d]/;

/**
 * An upper estimate of the deepest block-container nesting (block quotes and
 * list items) on any line: quote and list markers at the line's start, plus
 * its indentation in steps of two columns. One pass, no parse.
 */
export function containerDepth(text: string): number {
  let deepest = 0;
  const prefix = /^(?:[ \t]*(?:>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t])))*/;
  for (let start = 0; start < text.length;) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline;
    // Most lines start with neither indentation nor a marker: nothing to measure.
    if (!MAY_NEST.test(text[start] ?? "")) {
      start = end + 1;
      continue;
    }
    const marked = prefix.exec(text.slice(start, Math.min(end, start + 4096)))![0];
    let markers = 0;
    let columns = 0;
    for (const char of marked) {
      if (char === " ") columns += 1;
      else if (char === "\t") columns += 4;
      else if (char === ">" || char === "-" || char === "*" || char === "+" || char === "." || char === ")")
        markers += 1;
    }
    deepest = Math.max(deepest, markers + Math.floor(columns / 2));
    start = end + 1;
  }
  return deepest;
}

/** Splits a Markdown (or plain) text along its structure; see the module comment. */
export function splitStructure(text: string, options: StructureOptions): Span[] {
  const { maxTokens, overlapTokens } = options;
  if (!Number.isInteger(maxTokens) || maxTokens < MIN_MAX_TOKENS)
    throw new RangeError(`maxTokens must be an integer of at least ${MIN_MAX_TOKENS}`);
  if (!Number.isInteger(overlapTokens) || overlapTokens < 0 || overlapTokens >= maxTokens)
    throw new RangeError("overlapTokens must be an integer from 0 to maxTokens - 1");
  // Parsing nested containers costs time in proportion to their depth on every line, so a
  // document nested absurdly deep (no real one is) would hold the thread for minutes.
  if (containerDepth(text) > MAX_CONTAINER_DEPTH) return splitRecursive(text, { maxTokens, overlapTokens });
  const plain = options.flavor === "plain";
  const index = new TokenIndex(text);
  const budget = maxTokens - JOIN_SLACK;
  // Overlap takes at most half a chunk, whatever was asked (the API allows no more).
  const reserve = Math.min(overlapTokens, Math.floor(maxTokens / 2), budget - MIN_PIECE_TOKENS);
  const builder = new UnitBuilder(text, index, budget, budget - reserve, options.sectionStarts);

  const blocks = plain ? plainTextBlocks(text) : scanMarkdown(text);
  if (!plain) builder.segmentAhead(blocks.filter((n) => n.type === "paragraph"));
  const headings = blocks.filter((n) => n.type === "heading");
  const titles = markdownHeadingTitles(text, headings);
  let headingIndex = 0;
  blocks.forEach((node, k) => {
    if (node.type === "heading") {
      builder.heading(node.start, node.end, { level: node.depth ?? 1, title: titles[headingIndex++]! });
    } else if (plain && node.type === "paragraph") plainParagraph(builder, node);
    else if (plain && node.type === "list" && isNumberedChapter(text, node, blocks[k + 1])) {
      const { start, end } = node;
      builder.heading(start, end, { level: 1, title: text.slice(start, end).trim() });
    } else builder.block(node, BREAK.block, 0, "prose");
  });
  return packUnits(text, index, builder, { maxTokens, reserve });
}

/** Plain and PDF text are read as "plain" (heading lines without markers), the rest as Markdown. */
export const structureFlavor = (extracted: Extracted): StructureOptions["flavor"] =>
  extracted.kind === "text" || extracted.kind === "pdf" ? "plain" : "markdown";

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

function packUnits(
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
    const overlap = overlapStart(p, units[from]!.start, first.start, budget);
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
 * the earliest word start in [floor, chunkStart) whose tail up to the end of
 * the previous text holds at most `budget` tokens, moved on to a sentence
 * start when one keeps at least half the budget. -1 when none fits.
 */
function overlapStart(p: Packer, floor: number, chunkStart: number, budget: number): number {
  if (budget <= 0) return -1;
  const text = p.text;
  let end = chunkStart;
  while (end > floor && isSpace(text.charCodeAt(end - 1))) end--;
  // Candidates within a generous window of characters (o200k averages ~4 per token).
  const windowStart = Math.max(floor, end - budget * 16);
  const candidates: number[] = [];
  for (let q = windowStart; q < end; q++) {
    if (isSpace(text.charCodeAt(q))) continue;
    if (q === floor || isSpace(text.charCodeAt(q - 1))) candidates.push(q);
  }
  // Tail counts shrink as the start moves right: the first candidate that fits.
  let lo = 0;
  let hi = candidates.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (p.index.count(candidates[mid]!, end) <= budget) hi = mid;
    else lo = mid + 1;
  }
  if (lo >= candidates.length) return -1;
  for (let k = lo; k < candidates.length; k++) {
    const q = candidates[k]!;
    let before = q - 1;
    while (before > floor && isSpace(text.charCodeAt(before))) before--;
    if (/[.!?]/.test(text[before] ?? "")) {
      if (p.index.count(q, end) * 2 >= budget) return q;
      break;
    }
  }
  return candidates[lo]!;
}
