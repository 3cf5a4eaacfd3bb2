/**
 * Blocks into units: the pieces the structure tier packs into chunks (a
 * heading, a sentence or a paragraph of prose, a code block or a part of one
 * re-fenced, a table or rows of one under a repeated header (GFM or HTML),
 * a list or its items), each with the cost of a boundary before it and the
 * section it is in.
 *
 * `UnitBuilder` is one walk over the block tree; its methods share the
 * walk's state (the section path, the sentence starts found ahead, the given
 * section starts, the code-block count). Line helpers are in lines.ts, plain
 * text's headings in plain-text.ts.
 */
import { countTokens, TokenIndex } from "@/lib/tokens";
import { HeadingPath, type SectionHeading } from "./headings";
import type { Block } from "../markdown/blocks";
import { splitToFit } from "../fit/split-to-fit";
import { sentenceStarts, sentenceStartsOfRanges } from "../text/prose-sentences";
import { isSpace } from "../text/whitespace";
import { BREAK, MIN_PIECE_TOKENS } from "./costs";
import { endsLine, lineEnd, type Fences, codeFences } from "./lines";
import { htmlTableParts } from "./html-table";

type UnitKind = "heading" | "prose" | "code" | "table" | "list" | "other";

export interface Unit {
  start: number;
  end: number;
  kind: UnitKind;
  /** Cost of a chunk boundary right before this unit. */
  breakBefore: number;
  /** Index into the section paths. */
  section: number;
  /** Added before the unit's text when it starts a chunk (a code fence line, a table header). */
  prefix?: string;
  /** Added after the unit's text when it ends a chunk (a closing fence, an HTML table's closing tags). */
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
export class UnitBuilder {
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
    if (n === undefined) this.addedTokens.set(s, (n = countTokens(s, this.index.tokenizer.name)));
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
      case "html": {
        const table = htmlTableParts(this.text, node.start, node.end);
        if (table) return this.htmlTable(node, table.rows, start, breakBefore);
        return this.prose(start, node.end, breakBefore, "other", this.budget);
      }
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

  /** One sentence; `splitToFit` cuts one longer than the budget (lines, words, graphemes). */
  private sentence(start: number, end: number, breakBefore: number, kind: UnitKind, budget: number): void {
    if (start >= end) return;
    if (this.count(start, end) <= budget) {
      this.push({ start, end, kind, breakBefore });
      return;
    }
    this.pieces(start, end, breakBefore, kind, budget);
  }

  /** [start, end) cut by `splitToFit` into pieces of at most `budget`, boundaries between them costing a word's. */
  private pieces(
    start: number,
    end: number,
    breakBefore: number,
    kind: UnitKind,
    budget: number,
    extra: Additions = {},
    firstExtra = extra,
  ): void {
    const spans = splitToFit(this.text.slice(start, end), {
      maxTokens: budget,
      overlapTokens: 0,
      tokenizer: this.index.tokenizer.name,
    });
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

  /**
   * An HTML table (html-table.ts) as a GFM one: whole while it fits, else its
   * head, then its body rows, never cut between a row's tags. A chunk that
   * starts at a row gets everything before the first body row repeated
   * (`<table>`, the whole `<thead>`, `<tbody>`), and a chunk that ends before
   * the table does gets everything after the last row (`</tbody>`,
   * `</table>`): so each chunk is one well-formed table with its header, as a
   * re-fenced code piece is one closed code block. Both come from the
   * source, so a chunk's text is still its slice with only those added.
   */
  private htmlTable(node: Block, rows: ReadonlyArray<[number, number]>, start: number, breakBefore: number): void {
    const end = node.end;
    if (this.count(start, end) <= this.budget || rows.length < 2) {
      if (this.count(start, end) <= this.budget) this.push({ start, end, kind: "table", breakBefore });
      else this.prose(start, end, breakBefore, "table", this.budget);
      return;
    }
    const text = this.text;
    const bodyStart = rows[0]![0];
    const lastRowEnd = rows[rows.length - 1]![1];
    // From the block's own start: a list item's marker (at `start`) is not part of the table.
    let prefix: string | undefined = text.slice(node.start, bodyStart);
    let suffix: string | undefined = text.slice(lastRowEnd, end);
    // Head and closing too big to repeat: rows go without them rather than not fitting (the GFM rule),
    // and without either, as a closing with no opening would be stray tags.
    if (this.tokensOf(prefix) + this.tokensOf(suffix) > this.budget / 2) prefix = suffix = undefined;
    const [, headEnd] = this.trim(start, bodyStart);
    if (this.count(start, headEnd) <= this.budget)
      this.push({ start, end: headEnd, kind: "table", breakBefore, suffix });
    else this.prose(start, headEnd, breakBefore, "table", this.budget);
    const rowBudget = this.budget - (prefix ? this.tokensOf(prefix) + this.tokensOf(suffix!) : 0);
    rows.forEach(([s, e], k) => {
      const cost = k === 0 ? BREAK.glue : BREAK.row;
      if (this.count(s, e) <= rowBudget)
        this.push({ start: s, end: e, kind: "table", breakBefore: cost, prefix, suffix });
      // A row bigger than a chunk: cut inside it as a GFM row is (lines, then words), the head before its
      // first piece only. Every piece still closes the table when it ends a chunk (an HTML reader closes the
      // open cell and row itself); a chunk that starts inside the row reads as loose cell text and stray end tags.
      else this.pieces(s, e, cost, "table", rowBudget, { suffix }, { prefix, suffix });
    });
    // The closing tags, glued to the last row: a chunk ends there only if nothing else fits.
    const [closeStart] = this.trim(lastRowEnd, end);
    this.push({ start: closeStart, end, kind: "table", breakBefore: BREAK.glue, prefix });
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
