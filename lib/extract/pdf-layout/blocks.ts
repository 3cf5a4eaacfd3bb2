/** Lines into blocks: paragraphs from vertical gaps and indents, list items from their markers, code from monospaced runs. */
import { type BodyStyle, HEADING_MIN_RATIO, type Leading } from "./body-style";
import { type Line, isCode, isContentsEntry, isTitleLike } from "./lines";
import type { Table } from "./tables";

interface ListMarker {
  /** What the item starts with in the output: "- ", "3. ", "- a) ". */
  output: string;
  /** The item's text after its marker. */
  body: string;
  /** Bullets never start a line of prose; "1." and "-" can, after a line wrap. */
  unambiguous: boolean;
}

/** Lines read as one unit; `left` and `right` are kept as lines join, since layout runs in the server's thread and must stay linear. */
export type Block = { lines: Line[]; left: number; right: number } & (
  | { kind: "text" }
  | { kind: "item"; marker: ListMarker }
  | { kind: "code" }
  | { kind: "contents" }
  | { kind: "table"; table: Table }
  | { kind: "note"; marker: string }
);

export function addLine(block: Block, line: Line): void {
  block.lines.push(line);
  block.left = Math.min(block.left, line.left);
  block.right = Math.max(block.right, line.right);
}

const BULLET = /^([•◦▪▫‣⁃●○■□∙➢►▶✓✔❖\uf0b7\uf0a7\uf0d8\uf076\uf0fc\uf0a8])\s*(\S.*)$/u;
const DASH_BULLET = /^([-*+–—·])\s+(\S.*)$/u;
const NUMBERED = /^(\d{1,3})[.)]\s+(\S.*)$/u;
const LABELLED = /^(\((?:\d{1,3}|[a-z]|[ivx]{1,5})\)|(?:[a-z]|[ivx]{1,5})[.)]|[A-Z]\))\s+(\S.*)$/u;

function listMarker({ text, bullet }: Line): ListMarker | undefined {
  // A bullet drawn as a shape: the text is all body.
  if (bullet !== undefined) return { output: "- ", body: text, unambiguous: true };
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
export const PARAGRAPH_GAP = 1.3;
/** Blank lines inside a code example are wider gaps, not new blocks: up to this many leadings. */
const CODE_GAP = 3;

/** A page's blocks: its lines' and its tables', in the order the page writes them; no block runs across a table. */
export function pageBlocks(lines: Line[], tables: Table[], leading: Leading, body: BodyStyle): Block[] {
  if (tables.length === 0) return toBlocks(lines, leading, body);
  const blocks: Block[] = [];
  let at = 0;
  for (const table of [...tables].sort((a, b) => a.order - b.order)) {
    let end = at;
    while (end < lines.length && lines[end]!.order < table.order) end++;
    blocks.push(...toBlocks(lines.slice(at, end), leading, body));
    const { extents } = table;
    blocks.push({ kind: "table", table, lines: table.lines, left: extents[0]!.left, right: extents.at(-1)!.right });
    at = end;
  }
  blocks.push(...toBlocks(lines.slice(at), leading, body));
  return blocks;
}

export function toBlocks(lines: Line[], leading: Leading, body: BodyStyle): Block[] {
  const blocks: Block[] = [];
  let block: Block | undefined;
  let prev: Line | undefined;
  for (const line of lines) {
    const boundary = block === undefined || prev === undefined || breaksBlock(prev, line, block, leading, body);
    const marker = isCode(line) || isContentsEntry(line.text) ? undefined : listMarker(line);
    const startsItem = marker !== undefined && (boundary || marker.unambiguous || mayStartItem(prev!, line, block!));
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

/**
 * "1." or "-" at the start of a line inside a paragraph is an item only after
 * an item, a sentence end or a colon. An em dash is also how a wrapped line
 * can start ("… the third — and last — …"): after a line that ends
 * mid-sentence it starts another item only at the item's own edge, not
 * nested under its text.
 */
function mayStartItem(prev: Line, line: Line, block: Block): boolean {
  const sentenceEnd = /[.:;!?]["'”’)]?$/u.test(prev.text);
  if (line.text.startsWith("—") && block.kind === "item" && !sentenceEnd)
    return line.left <= block.lines[0]!.left + 0.25 * line.size;
  return block.kind === "item" || sentenceEnd;
}

function breaksBlock(prev: Line, line: Line, block: Block, leading: Leading, body: BodyStyle): boolean {
  if (!prev.upright || !line.upright) return true;
  const dy = prev.y - line.y;
  // Upwards: the next column, or text placed out of order; a sentence cut off at a column's foot runs on at the next one's head.
  if (dy < -0.5 * line.size) return !runsOn(prev, line, block);
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
    // Continuation lines hang under the item's text; a line back at the marker's edge has left the item,
    // unless it goes on with a sentence the line before left open (a typed bullet with no hanging indent).
    const open = !/[.:;!?]["'”’)\]]?$/u.test(prev.text) && /^\p{Ll}/u.test(line.text);
    return line.left <= block.lines[0]!.left + 0.25 * line.size && !open;
  }
  // A first-line indent starts a paragraph. Centred titles have ragged edges too, so only below heading sizes.
  if (line.left - block.left > 0.7 * line.size && line.size < body.size * HEADING_MIN_RATIO) return true;
  return endsParagraph(prev, line, block);
}

/**
 * A paragraph or list item broken by the column: the line before ends
 * mid-sentence (no closing punctuation) and the next column starts in
 * lower case at the same size, to the right of where it left off.
 */
function runsOn(prev: Line, line: Line, block: Block): boolean {
  if (block.kind !== "text" && block.kind !== "item") return false;
  const sameSize = Math.abs(line.size - prev.size) <= Math.max(0.5, 0.08 * prev.size);
  return sameSize && line.left > prev.right && !/[.:;!?]["'”’)\]]?$/u.test(prev.text) && /^\p{Ll}/u.test(line.text);
}

/** A line stopping well short of the paragraph's right edge after a full stop ends the paragraph, even without a gap or indent. */
function endsParagraph(prev: Line, line: Line, block: Block): boolean {
  if (block.lines.length < 2) return false;
  const short = prev.right < block.right - Math.max(3 * prev.size, 0.15 * (block.right - block.left));
  return short && /[.!?:]["'”’)\]]?$/u.test(prev.text) && /^[\p{Lu}\p{N}"'“‘([]/u.test(line.text);
}
