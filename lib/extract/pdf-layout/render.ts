/**
 * Blocks into the page's Markdown: headings, list items with their indents,
 * fenced code, joined wrapped lines (hyphens rejoined where the document's
 * words say so), and for every line the range of the text it became.
 */
import { type Block, addLine, PARAGRAPH_GAP } from "./blocks";
import type { Leading } from "./body-style";
import type { HeadingLevels } from "./headings";
import { type Line, LEADERS } from "./lines";
import { renderTable, type TableParts } from "./render-table";
import type { Table, TableCell } from "./tables";

/** A block and, when it is a heading, its level. */
interface Placed {
  block: Block;
  level: number | undefined;
}

export function classify(blocks: Block[], headings: HeadingLevels): Placed[] {
  return blocks.map((block, i) => ({ block, level: headings(block, blocks[i + 1]) }));
}

/**
 * A heading wrapped over lines can arrive as several blocks (a hanging indent
 * or a change of font on its second line); adjacent headings of one level with
 * no more than a line's spacing between them are one heading.
 */
export function joinWrappedHeadings(placed: Placed[], leading: Leading): Placed[] {
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

/** How each table of the page is written: its rows shown and how it joins the parts on other pages. */
export type TableLayouts = Map<Table, { rows: TableCell[][]; parts: TableParts }>;

export function render(
  placed: Placed[],
  words: DocumentWords,
  leading: Leading,
  tables: TableLayouts,
): { text: string; lines: LineAt[] } {
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
      const indent = list.indentFor(block.lines, block.marker.output.length);
      text = prefixed(
        indent + block.marker.output,
        joinLines([block.marker.body, ...block.lines.slice(1).map((l) => l.text)], words),
      );
    } else if (block.kind === "table") {
      const { rows, parts } = tables.get(block.table)!;
      text = renderTable(block.table, rows, parts);
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
    // A table part continued from the page before shows fewer rows than it has lines: its repeated header is gone.
    const shown = block.lines.slice(block.lines.length - text.starts.length);
    shown.forEach((line, k) => {
      // A line's range runs to the next line's start: the space or hyphen between them goes with it.
      const end = k + 1 < shown.length ? blockStart + text.starts[k + 1]! : out.length;
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

/**
 * Nesting follows the markers' indents: an item further right than the one
 * above is one level in. A list that runs on at the top of the next column
 * keeps its level there: the indents move over with the column.
 */
class ListIndents {
  private stack: { left: number; indent: string; childIndent: string }[] = [];
  private last: Line | undefined;

  indentFor(lines: Line[], markerWidth: number): string {
    const first = lines[0]!;
    const tolerance = 0.3 * first.size;
    const last = this.last;
    this.last = first;
    if (last && first.y > last.y + first.size && first.left > last.right) {
      const shift = first.left - last.left;
      for (const entry of this.stack) entry.left += shift;
    }
    const indent = this.place(first, markerWidth, tolerance);
    // An item that runs on into the next column takes the list there: its text hangs at the same depth in both.
    const jump = lines.findIndex((line, k) => k > 0 && line.y > lines[k - 1]!.y + line.size);
    if (jump > 0) {
      const hang = jump > 1 ? lines[1]!.left : first.left + 1.5 * first.size;
      const shift = lines[jump]!.left - hang;
      for (const entry of this.stack) entry.left += shift;
      this.last = { ...first, left: first.left + shift, y: lines.at(-1)!.y, right: lines.at(-1)!.right };
    }
    return indent;
  }

  private place(first: Line, markerWidth: number, tolerance: number): string {
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
    this.last = undefined;
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
export class DocumentWords {
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
