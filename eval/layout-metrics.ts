/**
 * Layout metrics as opendataloader-bench defines them (src/evaluator_*.py in
 * github.com/opendataloader-project/opendataloader-bench), written here in
 * TypeScript, plus the Markdown table reading they need:
 *
 * - NID / NID-S: normalized indel similarity of the whole Markdown (GFM
 *   tables turned into HTML first, whitespace collapsed); NID-S with tables
 *   removed. rapidfuzz's `fuzz.ratio` / 100.
 * - TEDS / TEDS-S: tree-edit-distance similarity (Zhong et al. 2020) of the
 *   document's tables, all of them under one root, `th` read as `td`;
 *   TEDS-S ignores cell text. A document whose output has no table scores 0.
 * - MHS / MHS-S: tree edit distance between flat heading trees (every
 *   heading a child of the root, the text under it one content node), with
 *   and without text; null when the ground truth has no heading.
 *
 * The bench uses APTED; no maintained tree-edit-distance package is on npm
 * (`apted`, `tree-edit-distance` and `zhang-shasha` do not exist there;
 * `edit-distance` 1.0.5 has had no release since 2016 and no per-pair rename
 * costs), so the exact Zhang-Shasha algorithm is written below. Zhang-Shasha
 * and APTED compute the same optimal distance; APTED is only faster on deep
 * trees, and table and heading trees are 2-4 levels deep.
 */

// ---------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------

/** Collapse runs of whitespace and trim (the bench's `_normalize`). */
export const collapse = (text: string) => text.replace(/\s+/g, " ").trim();

/**
 * Length of the longest common subsequence of `a` and `b` (code points), by
 * the bit-parallel algorithm of Allison-Dix / Hyyrö (as rapidfuzz computes
 * its indel distance), in 32-bit words.
 */
export function lcsLength(a: string, b: string): number {
  const s = Array.from(a);
  const t = Array.from(b);
  if (s.length === 0 || t.length === 0) return 0;
  const words = Math.ceil(s.length / 32);
  const masks = new Map<string, Uint32Array>();
  s.forEach((c, i) => {
    let m = masks.get(c);
    if (!m) masks.set(c, (m = new Uint32Array(words)));
    m[i >>> 5]! |= 1 << (i & 31);
  });
  const v = new Uint32Array(words).fill(0xffffffff);
  for (const c of t) {
    const m = masks.get(c);
    if (!m) continue;
    let carry = 0;
    let borrow = 0;
    for (let w = 0; w < words; w++) {
      const vw = v[w]!;
      const u = (vw & m[w]!) >>> 0;
      const sum = vw + u + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      const diff = vw - u - borrow;
      borrow = diff < 0 ? 1 : 0;
      v[w] = ((sum >>> 0) | (diff >>> 0)) >>> 0;
    }
  }
  let zeros = 0;
  for (let i = 0; i < s.length; i++) if ((v[i >>> 5]! & (1 << (i & 31))) === 0) zeros++;
  return zeros;
}

/** rapidfuzz `fuzz.ratio` / 100: 1 - indel distance / (|a| + |b|); 1 for two empty strings. */
export function indelSimilarity(a: string, b: string): number {
  const n = Array.from(a).length + Array.from(b).length;
  if (n === 0) return 1;
  return (2 * lcsLength(a, b)) / n;
}

/** Levenshtein distance over code points (two rows, plain dynamic programming). */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  const s = Array.from(a);
  const t = Array.from(b);
  if (s.length === 0) return t.length;
  if (t.length === 0) return s.length;
  let prev = new Uint32Array(t.length + 1);
  let cur = new Uint32Array(t.length + 1);
  for (let j = 0; j <= t.length; j++) prev[j] = j;
  for (let i = 1; i <= s.length; i++) {
    cur[0] = i;
    const c = s[i - 1];
    for (let j = 1; j <= t.length; j++) {
      const sub = prev[j - 1]! + (c === t[j - 1] ? 0 : 1);
      cur[j] = Math.min(sub, prev[j]! + 1, cur[j - 1]! + 1);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[t.length]!;
}

/** Levenshtein distance / the longer length (0 when both are empty). */
export function normalizedLevenshtein(a: string, b: string): number {
  const n = Math.max(Array.from(a).length, Array.from(b).length);
  return n === 0 ? 0 : levenshtein(a, b) / n;
}

// ---------------------------------------------------------------------------
// Tree edit distance
// ---------------------------------------------------------------------------

export interface TreeNode<T> {
  label: T;
  children: TreeNode<T>[];
}

/**
 * Zhang-Shasha (1989) tree edit distance between ordered trees: deleting or
 * inserting a node costs 1, relabelling costs `rename(a, b)` (0 to 1).
 */
export function treeEditDistance<T>(a: TreeNode<T>, b: TreeNode<T>, rename: (x: T, y: T) => number): number {
  const A = postorder(a);
  const B = postorder(b);
  const costs = new Float64Array(A.labels.length * B.labels.length).fill(-1);
  const renameAt = (i: number, j: number) => {
    const k = i * B.labels.length + j;
    if (costs[k]! < 0) costs[k] = rename(A.labels[i]!, B.labels[j]!);
    return costs[k]!;
  };
  const treeDist = new Float64Array(A.labels.length * B.labels.length);
  const n = B.labels.length;
  for (const i of A.keyroots)
    for (const j of B.keyroots) {
      const li = A.leftmost[i]!;
      const lj = B.leftmost[j]!;
      const rows = i - li + 2;
      const cols = j - lj + 2;
      const fd = new Float64Array(rows * cols);
      for (let x = 1; x < rows; x++) fd[x * cols] = fd[(x - 1) * cols]! + 1;
      for (let y = 1; y < cols; y++) fd[y] = fd[y - 1]! + 1;
      for (let x = 1; x < rows; x++) {
        const ai = li + x - 1;
        for (let y = 1; y < cols; y++) {
          const bj = lj + y - 1;
          const del = fd[(x - 1) * cols + y]! + 1;
          const ins = fd[x * cols + y - 1]! + 1;
          if (A.leftmost[ai] === li && B.leftmost[bj] === lj) {
            const value = Math.min(del, ins, fd[(x - 1) * cols + y - 1]! + renameAt(ai, bj));
            fd[x * cols + y] = value;
            treeDist[ai * n + bj] = value;
          } else {
            const px = A.leftmost[ai]! - li;
            const py = B.leftmost[bj]! - lj;
            fd[x * cols + y] = Math.min(del, ins, fd[px * cols + py]! + treeDist[ai * n + bj]!);
          }
        }
      }
    }
  return treeDist[(A.labels.length - 1) * n + (B.labels.length - 1)]!;
}

function postorder<T>(root: TreeNode<T>): { labels: T[]; leftmost: number[]; keyroots: number[] } {
  const labels: T[] = [];
  const leftmost: number[] = [];
  const visit = (node: TreeNode<T>): number => {
    let first = -1;
    for (const child of node.children) {
      const l = visit(child);
      if (first === -1) first = l;
    }
    const index = labels.length;
    labels.push(node.label);
    leftmost.push(first === -1 ? index : first);
    return leftmost[index]!;
  };
  visit(root);
  // Keyroots: the root and every node with a left sibling, i.e. the highest node of each leftmost leaf.
  const highest = new Map<number, number>();
  leftmost.forEach((l, i) => highest.set(l, i));
  const keyroots = [...highest.values()].sort((x, y) => x - y);
  return { labels, leftmost, keyroots };
}

export const countNodes = <T>(node: TreeNode<T>): number =>
  1 + node.children.reduce((n, child) => n + countNodes(child), 0);

// ---------------------------------------------------------------------------
// Tables in Markdown: GFM pipe tables and HTML <table>
// ---------------------------------------------------------------------------

export interface Cell {
  text: string;
  colspan: number;
  rowspan: number;
  header: boolean;
}

export interface ParsedTable {
  rows: Cell[][];
  /** Where the table is in the Markdown, and where each of its rows is. */
  start: number;
  end: number;
  rowRanges: { start: number; end: number }[];
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
export const decodeEntities = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#")
      return String.fromCodePoint(
        name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10),
      );
    return ENTITIES[name.toLowerCase()] ?? whole;
  });

/** A GFM table row's cells (escaped pipes kept in the text), or null if the line is no row. */
function pipeCells(line: string): string[] | null {
  const trimmed = line.trim();
  if (!trimmed.includes("|")) return null;
  const cells: string[] = [];
  let cell = "";
  for (let i = 0; i < trimmed.length; i++) {
    const c = trimmed[i]!;
    if (c === "\\" && trimmed[i + 1] === "|") {
      cell += "|";
      i++;
    } else if (c === "|") {
      cells.push(cell);
      cell = "";
    } else cell += c;
  }
  cells.push(cell);
  if (trimmed.startsWith("|")) cells.shift();
  if (trimmed.endsWith("|") && !trimmed.endsWith("\\|")) cells.pop();
  return cells.length ? cells.map((c) => c.trim()) : null;
}

const isDelimiterRow = (cells: string[]) => cells.every((c) => /^:?-+:?$/.test(c.replace(/ /g, "")));

/** A GFM table converted to HTML: where it is in the output and in the source, and its rows' source lines. */
interface Converted {
  outStart: number;
  outEnd: number;
  srcStart: number;
  srcEnd: number;
  rowRanges: { start: number; end: number }[];
}

/**
 * The bench's `convert_to_markdown_with_html_tables`: every GFM table (a row,
 * a delimiter row, then rows until a line without "|") becomes
 * `<table><tr><th>…</th></tr><tr><td>…</td></tr></table>` on one line. Rows
 * of another width are padded or cut to the header's (a 3-cell row in a wider
 * table repeats its middle cell, as the bench does).
 */
export function pipeTablesToHtml(markdown: string): string {
  return convertPipeTables(markdown).html;
}

function convertPipeTables(markdown: string): { html: string; converted: Converted[] } {
  const lines = markdown.split(/(?<=\n)/);
  const starts: number[] = [];
  lines.reduce((offset, line) => (starts.push(offset), offset + line.length), 0);
  const out: string[] = [];
  const converted: Converted[] = [];
  let length = 0;
  const emit = (text: string) => {
    out.push(text);
    length += text.length;
  };
  let i = 0;
  while (i < lines.length) {
    const header = pipeCells(lines[i]!);
    const delimiter = i + 1 < lines.length ? pipeCells(lines[i + 1]!) : null;
    if (!header || !delimiter || !isDelimiterRow(delimiter)) {
      emit(lines[i]!);
      i++;
      continue;
    }
    const width = Math.max(header.length, delimiter.length);
    const fit = (cells: string[]) => {
      if (cells.length === width) return cells;
      if (cells.length === 3 && width > 3) return [cells[0]!, ...Array(width - 2).fill(cells[1]!), cells[2]!];
      return cells.length < width ? [...cells, ...Array(width - cells.length).fill("")] : cells.slice(0, width);
    };
    let head = fit(header);
    const lineRange = (k: number) => ({ start: starts[k]!, end: starts[k]! + lines[k]!.replace(/\r?\n$/, "").length });
    const rowRanges = [lineRange(i)];
    const body: string[][] = [];
    let j = i + 2;
    for (; j < lines.length; j++) {
      const cells = pipeCells(lines[j]!);
      if (!cells) break;
      body.push(fit(cells));
      rowRanges.push(lineRange(j));
    }
    if (head.every((c) => c === "") && body.length) {
      head = body.shift()!;
      rowRanges.shift();
    }
    const row = (cells: string[], tag: string) =>
      `<tr>${cells.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join("")}</tr>`;
    const ending = /\r?\n$/.exec(lines[i]!)?.[0] ?? "";
    const table = `<table>${row(head, "th")}${body.map((r) => row(r, "td")).join("")}</table>`;
    converted.push({
      outStart: length,
      outEnd: length + table.length,
      srcStart: starts[i]!,
      srcEnd: rowRanges.at(-1)!.end,
      rowRanges,
    });
    emit(table + ending);
    i = j;
  }
  return { html: out.join(""), converted };
}

const TABLE = /<table\b[^>]*>[\s\S]*?<\/table\s*>/gi;

/** The HTML tables of a text (after `pipeTablesToHtml`), with where they and their rows are. */
export function htmlTables(text: string): ParsedTable[] {
  const tables: ParsedTable[] = [];
  for (const match of text.matchAll(TABLE)) {
    const start = match.index;
    const rows: Cell[][] = [];
    const rowRanges: { start: number; end: number }[] = [];
    const body = match[0];
    // A row runs from its <tr> to its </tr> (or the next <tr>, or the table's end).
    const rowStarts = [...body.matchAll(/<tr\b[^>]*>/gi)].map((m) => m.index);
    rowStarts.forEach((rowStart, k) => {
      const limit = rowStarts[k + 1] ?? body.length;
      const close = body.slice(rowStart, limit).search(/<\/tr\s*>/i);
      const rowEnd = close === -1 ? limit : rowStart + close + body.slice(rowStart + close).indexOf(">") + 1;
      const html = body.slice(rowStart, rowEnd);
      const cells: Cell[] = [];
      for (const cell of html.matchAll(/<(td|th)\b([^>]*)>([\s\S]*?)(?=<\/?(?:td|th|tr)\b|$)/gi)) {
        const attribute = (name: string) => {
          const value = new RegExp(`${name}\\s*=\\s*["']?(\\d+)`, "i").exec(cell[2]!)?.[1];
          return value ? Math.max(1, Number.parseInt(value, 10)) : 1;
        };
        cells.push({
          text: cellText(cell[3]!),
          colspan: attribute("colspan"),
          rowspan: attribute("rowspan"),
          header: cell[1]!.toLowerCase() === "th",
        });
      }
      rows.push(cells);
      rowRanges.push({ start: start + rowStart, end: start + rowEnd });
    });
    tables.push({ rows, start, end: start + body.length, rowRanges });
  }
  return tables;
}

/** A cell's text: tags dropped (`<br>` read as a space), entities decoded, whitespace collapsed. */
const cellText = (html: string) =>
  collapse(decodeEntities(html.replace(/<br\s*\/?>/gi, " ").replace(/<\/?[a-z][^>]*>/gi, "")));

/**
 * The tables of an engine's Markdown, GFM pipe tables and HTML alike, in
 * order; positions are in `markdown` (a GFM row is its line).
 */
export function markdownTables(markdown: string): ParsedTable[] {
  const { html, converted } = convertPipeTables(markdown);
  return htmlTables(html).map((table) => {
    const pipe = converted.find((c) => c.outStart === table.start);
    if (pipe) return { ...table, start: pipe.srcStart, end: pipe.srcEnd, rowRanges: pipe.rowRanges };
    // An HTML table of the source: shifted back by what the conversions before it added.
    const shift = converted
      .filter((c) => c.outEnd <= table.start)
      .reduce((n, c) => n + (c.outEnd - c.outStart) - (c.srcEnd - c.srcStart), 0);
    const back = (r: { start: number; end: number }) => ({ start: r.start - shift, end: r.end - shift });
    return { ...table, ...back(table), rowRanges: table.rowRanges.map(back) };
  });
}

// ---------------------------------------------------------------------------
// TEDS
// ---------------------------------------------------------------------------

type TableLabel = { tag: "root" | "table" | "tr" } | { tag: "td"; colspan: number; rowspan: number; text: string };

/** All tables under one root, as the bench wraps a document's tables (thead/tbody dropped, th read as td). */
export function tableForest(
  tables: readonly Pick<ParsedTable, "rows">[],
  structureOnly: boolean,
): TreeNode<TableLabel> {
  return {
    label: { tag: "root" },
    children: tables.map((table) => ({
      label: { tag: "table" },
      children: table.rows.map((row) => ({
        label: { tag: "tr" },
        children: row.map((cell) => ({
          label: { tag: "td", colspan: cell.colspan, rowspan: cell.rowspan, text: structureOnly ? "" : cell.text },
          children: [],
        })),
      })),
    })),
  };
}

function tableRename(a: TableLabel, b: TableLabel): number {
  if (a.tag !== b.tag) return 1;
  if (a.tag !== "td" || b.tag !== "td") return 0;
  if (a.colspan !== b.colspan || a.rowspan !== b.rowspan) return 1;
  if (!a.text && !b.text) return 0;
  return normalizedLevenshtein(a.text, b.text);
}

/**
 * TEDS of a document: 1 - distance / nodes of the larger forest (root not
 * counted), or null when the ground truth has no table; 0 when the output
 * has none.
 */
export function teds(
  truth: readonly Pick<ParsedTable, "rows">[],
  output: readonly Pick<ParsedTable, "rows">[],
  structureOnly = false,
): number | null {
  if (truth.length === 0) return null;
  if (output.length === 0) return 0;
  const a = tableForest(truth, structureOnly);
  const b = tableForest(output, structureOnly);
  const nodes = Math.max(countNodes(a), countNodes(b)) - 1;
  return Math.max(0, 1 - treeEditDistance(a, b, tableRename) / nodes);
}

// ---------------------------------------------------------------------------
// NID and MHS on whole Markdown documents
// ---------------------------------------------------------------------------

/** NID and NID-S (tables removed) of an output against the ground truth. */
export function nid(truth: string, output: string): { nid: number; nidS: number } | null {
  const t = pipeTablesToHtml(truth);
  const o = pipeTablesToHtml(output);
  if (!collapse(t)) return null;
  const strip = (s: string) => collapse(s.replace(TABLE, " "));
  return { nid: indelSimilarity(collapse(t), collapse(o)), nidS: indelSimilarity(strip(t), strip(o)) };
}

type HeadingLabel = { tag: "document" | "heading" | "content"; text: string };

/** The bench's flat heading tree: headings under the root, each section's other lines one content node. */
export function headingTree(markdown: string): TreeNode<HeadingLabel> {
  const root: TreeNode<HeadingLabel> = { label: { tag: "document", text: "" }, children: [] };
  let container = root;
  let pending: string[] = [];
  const flush = () => {
    const text = collapse(pending.join(" "));
    if (text) container.children.push({ label: { tag: "content", text }, children: [] });
    pending = [];
  };
  for (const line of pipeTablesToHtml(markdown).split(/\r?\n|\r/)) {
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      container = { label: { tag: "heading", text: collapse(heading[2]!) }, children: [] };
      root.children.push(container);
    } else if (collapse(line)) pending.push(collapse(line));
  }
  flush();
  return root;
}

/** MHS and MHS-S, or null when the ground truth has no heading; 0 when the output has none. */
export function mhs(truth: string, output: string): { mhs: number; mhsS: number } | null {
  const a = headingTree(truth);
  if (!a.children.some((c) => c.label.tag === "heading")) return null;
  const b = headingTree(output);
  if (!b.children.some((c) => c.label.tag === "heading")) return { mhs: 0, mhsS: 0 };
  const nodes = Math.max(countNodes(a), countNodes(b), 1);
  const withText = treeEditDistance(a, b, (x, y) =>
    x.tag !== y.tag ? 1 : x.text || y.text ? normalizedLevenshtein(x.text, y.text) : 0,
  );
  const structure = treeEditDistance(a, b, (x, y) => (x.tag !== y.tag ? 1 : 0));
  const clamp = (x: number) => Math.max(0, Math.min(1, x));
  return { mhs: clamp(1 - withText / nodes), mhsS: clamp(1 - structure / nodes) };
}

// ---------------------------------------------------------------------------
// List items
// ---------------------------------------------------------------------------

/** Lower-cased letters and digits, one space between runs: how list item texts are compared. */
export const normalizeWords = (text: string) =>
  text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

const ITEM = /^(\s*)(?:[-*+]|\d{1,9}[.)])\s+(.*)$/;
const BLOCK_START = /^\s*(?:#{1,6}\s|[-*+]\s|\d{1,9}[.)]\s|```|~~~|<table|\|)/i;

/**
 * The list items of a Markdown text (CommonMark markers "-", "*", "+", "1."
 * and "1)"), each with its lazy continuation lines, normalized.
 */
export function listItems(markdown: string): string[] {
  const items: string[] = [];
  let current: string[] | null = null;
  const close = () => {
    if (current) items.push(normalizeWords(current.join(" ")));
    current = null;
  };
  for (const line of markdown.split(/\r?\n/)) {
    const item = ITEM.exec(line);
    if (item) {
      close();
      // "- 1. text" is an item holding an ordered list: the inner item is the one with text.
      let text = item[2]!;
      for (let inner = ITEM.exec(text); inner; inner = ITEM.exec(text)) text = inner[2]!;
      current = [text];
    } else if (!line.trim() || BLOCK_START.test(line)) close();
    else current?.push(line.trim());
  }
  close();
  return items.filter((t) => t.length > 0);
}

/** How many of the ground truth's list items the output has as list items (a multiset match). */
export function listItemsFound(truth: readonly string[], output: readonly string[]): number {
  const left = new Map<string, number>();
  for (const item of output) left.set(item, (left.get(item) ?? 0) + 1);
  let found = 0;
  for (const item of truth) {
    const n = left.get(item) ?? 0;
    if (n > 0) {
      found++;
      left.set(item, n - 1);
    }
  }
  return found;
}
