/**
 * The structure tier's splitter: chunks that follow a document's Markdown
 * structure, sized in exact o200k tokens.
 *
 * 1. Blocks. The text's block structure is read once (markdown/blocks.ts): Markdown
 *    by markdown-it's block parser (markdown/scan.ts), plain and PDF text by
 *    micromark with indented code turned off (markdown/mdast-blocks.ts), heading
 *    lines recognised inside its paragraphs ("1.2 Title", "Chapter 3",
 *    ALL-CAPS lines; see headings.ts). Headings start sections; every other block belongs to
 *    the section of the last heading above it.
 *
 * 2. Units. Each block becomes one unit if it fits in `maxTokens`, else the
 *    smallest pieces its kind allows, each with the cost of a chunk boundary
 *    before it:
 *    - prose: sentences (text/prose-sentences.ts); a sentence longer than the budget is
 *      split by fit/split-to-fit.ts (lines, words, and graphemes only for
 *      a single word longer than the budget). A sentence that ends a line is
 *      a cheaper place to cut than one inside a line.
 *    - fenced code: lines, the fences glued to the first and last line; a
 *      piece that starts or ends a chunk gets the opening fence line
 *      (language tag included) or a closing fence added, so every chunk is
 *      valid Markdown. Blank lines are cheaper to cut at than other lines.
 *    - tables: the header row with the separator line, then rows; a chunk
 *      starting at a row gets the header row and separator line repeated.
 *      An HTML block that is one `<table>` (extraction writes those when a
 *      cell spans columns or rows; html-table.ts) likewise: its head, then
 *      rows, never cut inside a row's tags; a chunk starting at a row gets
 *      `<table>`, the `<thead>` and `<tbody>` repeated, and one ending before
 *      the table does gets `</tbody></table>`, so each is one whole table.
 *    - lists: items, top-level ones first; an item too big alone is split
 *      into its own blocks (its text, nested lists: between their items
 *      first, ...). Only an item whose own text exceeds the budget is cut
 *      inside, at sentences, then lines and words: there is no other way to
 *      keep within `maxTokens`.
 *    - block quotes and footnote definitions: their blocks; anything else
 *      (other HTML, a heading longer than a chunk): as prose.
 *    Prose of fitting paragraphs is split into sentences too, so chunks can
 *    be filled evenly; cutting a paragraph between two sentences costs as
 *    much as one more chunk, cutting where a sentence ends a line much less.
 *
 * 3. Packing. Units are packed into chunks by an optimal partition
 *    (optimal-packing.ts): each chunk costs 1, each boundary its cost (a section
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
 *    `text.slice(start, end)`, or, when a code fence, a table header or an
 *    HTML table's closing tags were added, `Span.text` (the slice whole, with
 *    only those around it). `headings` is the section path of the chunk's first
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
import { TokenIndex } from "@/lib/tokens";
import { markdownHeadingTitles } from "./headings";
import { plainTextBlocks } from "../markdown/mdast-blocks";
import { scanMarkdown } from "../markdown/scan";
import { splitToFit } from "../fit/split-to-fit";
import type { Span, SplitOptions } from "../types";
import { BREAK, JOIN_SLACK, MIN_MAX_TOKENS, MIN_PIECE_TOKENS } from "./costs";
import { packUnits } from "./pack-units";
import { plainParagraph, isNumberedChapter } from "./plain-text";
import { UnitBuilder } from "./units";

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

/** Far beyond real documents (lists nest a handful of levels); deeper ones are split recursively instead. */
const MAX_CONTAINER_DEPTH = 32;
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
  if (containerDepth(text) > MAX_CONTAINER_DEPTH)
    return splitToFit(text, { maxTokens, overlapTokens, tokenizer: options.tokenizer });
  const plain = options.flavor === "plain";
  const index = new TokenIndex(text, options.tokenizer);
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
