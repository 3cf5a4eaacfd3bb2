import fs from "node:fs";
import path from "node:path";
import { mulberry32 } from "@/tests/helpers/random";
import { parseCsvRows } from "./csv";

/**
 * The layout development set: documents whose structure is known, composed
 * as HTML from real prose (WikiText articles of chroma-dev) and real tables
 * (FiveThirtyEight CSVs of tables-dev), to be printed to PDF by Chromium
 * (eval/layout-render.ts). Each document comes with its ground truth as
 * Markdown, in reading order: headings as "#", list items as "- " / "1. ",
 * tables as one-line HTML `<table>` (spans kept), paragraphs as text; the
 * running header and footer are not part of it.
 *
 * Everything is drawn from one seed, so a run builds the same documents from
 * the same data. Four genres, each several times ("neighbours": documents
 * that look alike but differ), crossed with the table styles, one or two
 * columns, serif or sans-serif type and sizes.
 */

export type TableStyle = "grid" | "booktabs" | "header-rule" | "none" | "zebra";
export const TABLE_STYLES: readonly TableStyle[] = ["grid", "header-rule", "none", "booktabs", "zebra"];
type Genre = "article" | "report" | "newsletter" | "appendix";
const GENRES: readonly Genre[] = ["article", "report", "newsletter", "appendix"];

export interface LayoutDocument {
  id: string;
  genre: Genre;
  columns: 1 | 2;
  tableStyle: TableStyle;
  /** The running header's text (not in the ground truth). */
  runningHeader: string;
  html: string;
  /** The ground truth. */
  markdown: string;
  /** Ground-truth list items, tables and headings, for counting. */
  listItems: string[];
  tables: number;
}

// ---------------------------------------------------------------------------
// Sources
// ---------------------------------------------------------------------------

interface Article {
  title: string;
  sections: { title: string; paragraphs: string[] }[];
}

/** WikiText's tokenized text back to ordinary prose; null for sentences we cannot print faithfully. */
export function detokenize(text: string): string | null {
  if (text.includes("<unk>")) return null;
  const out = text
    .replace(/ @(.)@ /g, "$1")
    .replace(/ ([,.;:!?%)\]])/g, "$1")
    .replace(/([([$]) /g, "$1")
    .replace(/ ('s|'|n't)\b/g, "$1")
    .replace(/ \u2019 s\b/g, "\u2019s")
    .replace(/" (.*?) "/g, '"$1"')
    .replace(/\s+/g, " ")
    .trim();
  // Latin script, punctuation and symbols that every installed font has: no tofu in the PDF.
  return /^[\u0020-\u007e\u00a0-\u024f\u2013\u2014\u2018-\u201d\u2026]*$/.test(out) ? out : null;
}

/**
 * Sentences of a paragraph: Intl.Segmenter's, with pieces it cuts after an
 * abbreviation or an initial ("Lt.", "C.") or too short to stand alone
 * joined back to the sentence before.
 */
function sentences(paragraph: string): string[] {
  const out: string[] = [];
  for (const { segment } of new Intl.Segmenter("en", { granularity: "sentence" }).segment(paragraph)) {
    const piece = segment.trim();
    if (!piece) continue;
    const last = out.at(-1);
    if (last !== undefined && (/\b(?:[A-Z][a-z]{0,2}|[A-Z])\.$/.test(last) || piece.split(" ").length < 3))
      out[out.length - 1] = `${last} ${piece}`;
    else out.push(piece);
  }
  return out;
}

/** Articles of WikiText with their " = = Section = = " headings; paragraphs cleaned sentence by sentence. */
export function readArticles(text: string): Article[] {
  const articles: Article[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    const title = /^= ([^=].*) =$/.exec(line);
    const section = /^= = ([^=].*) = =$/.exec(line);
    if (title) articles.push({ title: detokenize(title[1]!) ?? title[1]!, sections: [{ title: "", paragraphs: [] }] });
    else if (section) articles.at(-1)?.sections.push({ title: detokenize(section[1]!) ?? section[1]!, paragraphs: [] });
    else if (/^(= )+.*( =)+$/.test(line)) continue;
    else {
      // Number joins first ("4 @.@ 9" is 4.9), or the sentence splitter cuts at their dots.
      const kept = sentences(line.replace(/ @(.)@ /g, "$1"))
        .map(detokenize)
        .filter((s): s is string => s !== null && s.length > 0);
      if (kept.length > 0) articles.at(-1)?.sections.at(-1)?.paragraphs.push(kept.join(" "));
    }
  }
  return articles
    .map((a) => ({ ...a, sections: a.sections.filter((s) => s.paragraphs.length > 0) }))
    .filter((a) => a.sections.length >= 2 && a.sections.reduce((n, s) => n + s.paragraphs.length, 0) >= 4);
}

interface CsvTable {
  name: string;
  header: string[];
  rows: string[][];
}

/** The CSV files of tables-dev (UTF-8, or Windows-1252 where a file is not UTF-8). */
export function readTables(dir: string): CsvTable[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".csv"))
    .sort()
    .map((f) => {
      const bytes = fs.readFileSync(path.join(dir, f));
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch {
        text = new TextDecoder("windows-1252").decode(bytes);
      }
      const clean = (cell: string) =>
        cell
          .replace(/^\uFEFF/, "")
          .replace(/[\u0000-\u001f\u007f-\u009f]/g, " ")
          .trim();
      const [header, ...rows] = parseCsvRows(text).map((r) => r.map(clean));
      return { name: f.replace(/\.csv$/, ""), header: header!, rows: rows.filter((r) => r.some((c) => c)) };
    })
    .filter((t) => t.header.length >= 2 && t.rows.length >= 5);
}

// ---------------------------------------------------------------------------
// Blocks, and each written as HTML and as Markdown
// ---------------------------------------------------------------------------

interface Item {
  text: string;
  children?: { ordered: boolean; items: Item[] };
}
type ListStyle = "disc" | "square" | "circle" | "decimal" | "typed-bullet" | "typed-dash";

interface TableBlock {
  kind: "table";
  /** Printed so that it continues on the next page (eval/layout-render.ts moves it down if it would not). */
  long?: boolean;
  caption: string;
  /** Header rows, then body rows: cells with spans. */
  head: { text: string; colspan?: number; rowspan?: number }[][];
  body: string[][];
  numeric: boolean[];
}

type Block =
  | { kind: "heading"; level: 1 | 2 | 3; text: string; runIn: boolean }
  | { kind: "paragraph"; text: string; note?: Footnote; sidebar?: Sidebar }
  | { kind: "list"; style: ListStyle; items: Item[] }
  | TableBlock;

/**
 * A footnote to a paragraph: its marker is printed as a superscript after the
 * word `after` words in, and the note (marker, then text, in smaller type) at
 * the foot of the page the paragraph breaks on (eval/layout-render.ts moves
 * the paragraph there). The truth reads a note where it is printed, after the
 * page's body text; the paragraph runs over the page end, so that is right
 * after the paragraph; the marker stays in its word's place, as printed.
 */
interface Footnote {
  marker: string;
  text: string;
  after: number;
  /** A short rule above the note, or only a gap. */
  ruled: boolean;
}

/**
 * A boxed sidebar floated beside the document's last paragraph (so on its
 * last page): a title line and a few sentences, in smaller sans-serif type.
 * The truth reads it after the body of the page it stands on: at the end.
 */
interface Sidebar {
  title: string;
  text: string;
}

const esc = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function listHtml(style: ListStyle, items: Item[]): string {
  const typed = style === "typed-bullet" ? "\u2022 " : style === "typed-dash" ? "\u2013 " : "";
  const tag = style === "decimal" ? "ol" : "ul";
  const css = typed ? ' class="typed"' : ` style="list-style-type: ${style}"`;
  const li = (item: Item) =>
    `<li>${typed}${esc(item.text)}${
      item.children ? listHtml(item.children.ordered ? "decimal" : nestedStyle(style), item.children.items) : ""
    }</li>`;
  return `<${tag}${css}>${items.map(li).join("")}</${tag}>`;
}
const nestedStyle = (style: ListStyle): ListStyle =>
  style === "disc" ? "circle" : style === "circle" ? "square" : style;

function listMarkdown(ordered: boolean, items: Item[], indent = ""): string[] {
  return items.flatMap((item, i) => {
    const marker = ordered ? `${i + 1}. ` : "- ";
    const lines = [`${indent}${marker}${item.text}`];
    if (item.children)
      lines.push(...listMarkdown(item.children.ordered, item.children.items, indent + " ".repeat(marker.length)));
    return lines;
  });
}

const allItems = (items: Item[]): string[] =>
  items.flatMap((i) => [i.text, ...(i.children ? allItems(i.children.items) : [])]);

function tableHtml(t: TableBlock): string {
  const span = (c: { colspan?: number; rowspan?: number }) =>
    `${c.colspan ? ` colspan="${c.colspan}"` : ""}${c.rowspan ? ` rowspan="${c.rowspan}"` : ""}`;
  const head = t.head.map((row) => `<tr>${row.map((c) => `<th${span(c)}>${esc(c.text)}</th>`).join("")}</tr>`);
  const body = t.body.map(
    (row) => `<tr>${row.map((c, j) => `<td${t.numeric[j] ? ' class="num"' : ""}>${esc(c)}</td>`).join("")}</tr>`,
  );
  return `<p class="caption">${esc(t.caption)}</p><table><thead>${head.join("")}</thead><tbody>${body.join("")}</tbody></table>`;
}

/** The ground truth's table: one line, no thead/tbody, as the bench's converter writes tables. */
function tableMarkdown(t: TableBlock): string {
  const span = (c: { colspan?: number; rowspan?: number }) =>
    `${c.colspan ? ` colspan="${c.colspan}"` : ""}${c.rowspan ? ` rowspan="${c.rowspan}"` : ""}`;
  const head = t.head.map((row) => `<tr>${row.map((c) => `<th${span(c)}>${esc(c.text)}</th>`).join("")}</tr>`);
  const body = t.body.map((row) => `<tr>${row.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`);
  return `${t.caption}\n\n<table>${head.join("")}${body.join("")}</table>`;
}

/** A noted paragraph's text before and after its marker. */
function noteSplit(text: string, note: Footnote): [string, string] {
  const words = text.split(" ");
  return [words.slice(0, note.after).join(" "), words.slice(note.after).join(" ")];
}

function blockHtml(b: Block): string {
  switch (b.kind) {
    case "heading":
      return b.runIn ? `<p class="runin"><b>${esc(b.text)}</b></p>` : `<h${b.level}>${esc(b.text)}</h${b.level}>`;
    case "paragraph": {
      if (b.sidebar)
        return `<p><span class="sidebar"><span class="sb-title">${esc(b.sidebar.title)}</span><span class="sb-text">${esc(b.sidebar.text)}</span></span>${esc(b.text)}</p>`;
      if (!b.note) return `<p>${esc(b.text)}</p>`;
      const { marker, text, ruled } = b.note;
      const [head, tail] = noteSplit(b.text, b.note);
      // Floats at the paragraph's top: a spacer sized at print time puts the note at the foot of the page.
      const note = `<span class="fn-spacer"></span><span class="footnote${ruled ? " ruled" : ""}"><sup>${esc(marker)}</sup> ${esc(text)}</span>`;
      return `<p class="noted">${note}${esc(head)}<sup>${esc(marker)}</sup> ${esc(tail)}</p>`;
    }
    case "list":
      return listHtml(b.style, b.items);
    case "table":
      return `<div class="wide${b.long ? " long" : ""}">${tableHtml(b)}</div>`;
  }
}

function blockMarkdown(b: Block): string {
  switch (b.kind) {
    case "heading":
      return `${"#".repeat(b.level)} ${b.text}`;
    case "paragraph": {
      if (b.sidebar) return `${b.text}\n\n${b.sidebar.title}\n\n${b.sidebar.text}`;
      if (!b.note) return b.text;
      const [head, tail] = noteSplit(b.text, b.note);
      // "* " would open a list: the note is escaped, as a Markdown writer (and the extraction) escapes it.
      const opening = b.note.marker === "*" ? "\\*" : b.note.marker;
      return `${head}${b.note.marker} ${tail}\n\n${opening} ${b.note.text}`;
    }
    case "list":
      return listMarkdown(b.style === "decimal", b.items).join("\n");
    case "table":
      return tableMarkdown(b);
  }
}

const TABLE_CSS: Record<TableStyle, string> = {
  grid: "table { border-collapse: collapse; } th, td { border: 0.6pt solid #000; }",
  "header-rule": "table { border-collapse: collapse; } thead { border-bottom: 0.8pt solid #000; }",
  booktabs:
    "table { border-collapse: collapse; border-top: 1.2pt solid #000; border-bottom: 1.2pt solid #000; } thead { border-bottom: 0.6pt solid #000; }",
  none: "table { border-collapse: collapse; }",
  zebra: "table { border-collapse: collapse; } tbody tr:nth-child(odd) { background: #e6e6e6; }",
};

interface Look {
  font: "serif" | "sans-serif";
  size: number;
  columns: 1 | 2;
  tableStyle: TableStyle;
}

function page(title: string, blocks: Block[], look: Look): string {
  const css = `
    body { font-family: ${look.font}; font-size: ${look.size}pt; line-height: 1.35; margin: 0; }
    .flow { ${look.columns === 2 ? "columns: 2; column-gap: 7mm;" : ""} }
    h1 { font-size: 1.9em; margin: 0 0 0.5em; column-span: all; }
    h2 { font-size: 1.35em; margin: 1em 0 0.35em; }
    h3 { font-size: 1.12em; margin: 0.9em 0 0.3em; }
    p { margin: 0 0 0.55em; text-align: ${look.columns === 2 ? "justify" : "left"}; }
    p.runin { margin: 0.9em 0 0.2em; }
    ul, ol { margin: 0 0 0.6em; padding-left: 1.6em; }
    ul.typed { list-style: none; padding-left: 0.6em; }
    li { margin: 0.15em 0; }
    .fn-spacer { float: left; width: 0; height: 0; }
    .footnote { float: left; clear: left; width: 100%; font-size: 0.8em; line-height: 1.3; padding-top: 1.6em; break-inside: avoid; text-align: left; }
    .footnote.ruled { padding-top: 0.6em; }
    .footnote.ruled::before { content: ""; display: block; width: 35%; border-top: 0.5pt solid #000; margin-bottom: 0.4em; }
    .sidebar { float: right; width: 32%; margin: 0.3em 0 0.6em 1.2em; padding: 0.6em; border: 0.75pt solid #000; font-family: sans-serif; font-size: 0.85em; line-height: 1.3; text-align: left; }
    .sb-title { display: block; font-weight: bold; margin-bottom: 0.4em; }
    .sb-text { display: block; }
    .wide { column-span: all; margin: 0.6em 0 0.9em; }
    p.caption { font-size: 0.9em; margin: 0 0 0.3em; font-style: italic; }
    table { width: 100%; font-size: 0.88em; }
    th { text-align: left; vertical-align: bottom; font-weight: bold; }
    th, td { padding: 2pt 4pt; vertical-align: top; }
    td.num { text-align: right; }
    ${TABLE_CSS[look.tableStyle]}`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title><style>${css}</style></head><body><div class="flow">${blocks.map(blockHtml).join("\n")}</div></body></html>`;
}

// ---------------------------------------------------------------------------
// Composition
// ---------------------------------------------------------------------------

type Random = () => number;
const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
const between = (random: Random, lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));

/** A table block from a CSV: the first column and up to `maxColumns - 1` others, `rows` rows, maybe a spanning group header. */
function tableFrom(
  csv: CsvTable,
  random: Random,
  opts: { maxColumns: number; rows: number; span: boolean },
): TableBlock {
  const others = csv.header.map((_, j) => j).slice(1);
  const keep = [0];
  while (keep.length < Math.min(opts.maxColumns, csv.header.length)) {
    const j = others.splice(Math.floor(random() * Math.min(3, others.length)), 1)[0]!;
    keep.push(j);
  }
  keep.sort((a, b) => a - b);
  const cap = (text: string) => (text.length <= 200 ? text : `${text.slice(0, text.lastIndexOf(" ", 197))} ...`);
  const heading = (name: string) => name.replace(/_/g, " ");
  const body = csv.rows.slice(0, opts.rows).map((row) => keep.map((j) => cap(row[j] ?? "")));
  const numeric = keep.map((_, k) => body.every((row) => /^[-+$]?[\d,]*\.?\d+%?$|^-?$/.test(row[k]!)));
  const names = keep.map((j) => heading(csv.header[j]!));
  let head: TableBlock["head"] = [names.map((text) => ({ text }))];
  if (opts.span && keep.length >= 4) {
    // Two adjacent columns under one group heading: the words they share, or what they are.
    const at = between(random, 1, keep.length - 2);
    const [a, b] = [names[at]!, names[at + 1]!];
    const shared = a.split(" ").filter((w) => w && b.split(" ").includes(w));
    const label = shared.length ? shared.join(" ") : `${a} and ${b}`.length < 40 ? `${a} and ${b}` : "figures";
    head = [
      names.flatMap((text, k): TableBlock["head"][number] =>
        k === at ? [{ text: label, colspan: 2 }] : k === at + 1 ? [] : [{ text, rowspan: 2 }],
      ),
      [{ text: a }, { text: b }],
    ];
  }
  return { kind: "table", caption: "", head, body, numeric };
}

/** The paragraphs of `article`, in order. */
function proseOf(article: Article): string[] {
  return article.sections.flatMap((s) => s.paragraphs);
}

/** A list item: the start of a sentence, short or as it is (so some items wrap). */
function itemText(sentence: string, random: Random): string {
  const words = sentence.split(" ");
  if (random() < 0.5 || words.length <= 12) return sentence.replace(/[.;:,]$/, "");
  return words
    .slice(0, between(random, 5, 10))
    .join(" ")
    .replace(/[.;:,]$/, "");
}

function makeList(style: ListStyle, pool: string[], random: Random, nested: boolean): Item[] {
  const n = between(random, 3, 6);
  const items: Item[] = [];
  for (let i = 0; i < n && pool.length; i++) items.push({ text: itemText(pool.shift()!, random) });
  if (nested && items.length >= 2) {
    const ordered = style === "decimal" && random() < 0.5;
    const children: Item[] = [];
    for (let i = 0; i < between(random, 2, 3) && pool.length; i++)
      children.push({ text: itemText(pool.shift()!, random) });
    if (children.length) items[1]!.children = { ordered, items: children };
  }
  return items;
}

/** The document number `n` of the set; `articles` and `tables` rotate so neighbours differ in content. */
function compose(n: number, articles: Article[], tables: CsvTable[], seed: number): LayoutDocument {
  const random = mulberry32(seed * 1000 + n);
  const genre = GENRES[n % GENRES.length]!;
  const look: Look = {
    font: random() < 0.5 ? "serif" : "sans-serif",
    size: pick(random, [9.5, 10, 10.5, 11, 12]),
    columns: n % 3 === 1 ? 2 : 1,
    tableStyle: TABLE_STYLES[n % TABLE_STYLES.length]!,
  };
  const article = articles[(n * 7) % articles.length]!;
  const paragraphs = proseOf(article);
  // Start somewhere in the article, so documents made from one article differ.
  const offset = Math.floor(random() * Math.max(1, paragraphs.length - 6));
  const prose = [...paragraphs.slice(offset), ...paragraphs.slice(0, offset)];
  const listPool = prose.flatMap(sentences).filter((s) => s.split(" ").length >= 4);
  const sectionTitles = article.sections.map((s) => s.title).filter((t) => t);
  let tableNo = 0;
  const table = (rows: number, maxColumns: number) => {
    const csv = tables[(n * 3 + tableNo * 17) % tables.length]!;
    tableNo++;
    const t = tableFrom(csv, random, { maxColumns, rows, span: random() < 0.4 });
    t.caption = `Table ${tableNo}. ${csv.name.split("_")[0]!.replace(/-/g, " ")}: ${csv.name.split("_").slice(1).join(" ")} (FiveThirtyEight, CC BY 4.0).`;
    return t;
  };
  const para = (max = 3): Block => {
    const p = prose.shift() ?? pick(random, paragraphs);
    const s = sentences(p);
    return { kind: "paragraph", text: s.slice(0, Math.min(s.length, between(random, 2, max + 2))).join(" ") };
  };
  const title = genre === "report" ? `Report: ${article.title}` : article.title;
  const blocks: Block[] = [{ kind: "heading", level: 1, text: title, runIn: false }];
  const sectionTitle = (i: number) => sectionTitles[i % Math.max(1, sectionTitles.length)] ?? `Part ${i + 1}`;
  const wide = look.columns === 2 ? 6 : 5;
  switch (genre) {
    case "article": {
      blocks.push(para(4), para());
      blocks.push({ kind: "heading", level: 2, text: sectionTitle(0), runIn: false }, para());
      blocks.push({
        kind: "list",
        style: pick(random, ["disc", "square", "circle"] as const),
        items: makeList("disc", listPool, random, random() < 0.5),
      });
      blocks.push(para(), table(between(random, 5, 10), wide));
      blocks.push({ kind: "heading", level: 2, text: sectionTitle(1), runIn: false }, para());
      blocks.push({ kind: "heading", level: 3, text: sectionTitle(2), runIn: false }, para(), para());
      break;
    }
    case "report": {
      blocks.push(para(4));
      blocks.push({ kind: "heading", level: 2, text: `1 ${sectionTitle(0)}`, runIn: false }, para(), para());
      blocks.push({ kind: "heading", level: 3, text: `1.1 ${sectionTitle(1)}`, runIn: false }, para());
      blocks.push({ kind: "list", style: "decimal", items: makeList("decimal", listPool, random, random() < 0.5) });
      blocks.push({ kind: "heading", level: 2, text: `2 ${sectionTitle(2)}`, runIn: false }, para());
      blocks.push(table(between(random, 6, 12), wide));
      blocks.push({ kind: "heading", level: 3, text: `2.1 ${sectionTitle(3)}`, runIn: random() < 0.5 }, para());
      blocks.push({
        kind: "list",
        style: pick(random, ["typed-bullet", "typed-dash"] as const),
        items: makeList("typed-bullet", listPool, random, false),
      });
      blocks.push(table(between(random, 4, 8), 4), para());
      break;
    }
    case "newsletter": {
      blocks.push(para(4));
      for (let s = 0; s < 3; s++) {
        blocks.push({ kind: "heading", level: 2, text: sectionTitle(s), runIn: true }, para(), para(2));
        if (s === 0)
          blocks.push({
            kind: "list",
            style: pick(random, ["typed-bullet", "disc", "square"] as const),
            items: makeList("disc", listPool, random, false),
          });
        if (s === 1) blocks.push(table(between(random, 5, 9), wide));
      }
      break;
    }
    case "appendix": {
      blocks.push(para(6), para(6));
      blocks.push({ kind: "heading", level: 2, text: sectionTitle(1), runIn: false }, para(6), para(5));
      blocks.push({ kind: "heading", level: 2, text: `Data: ${sectionTitle(0)}`, runIn: false });
      // Long enough to continue on the next page; its header row is repeated there.
      blocks.push({ ...table(25, wide), long: true });
      blocks.push({ kind: "heading", level: 2, text: "Notes", runIn: false });
      blocks.push({ kind: "list", style: "decimal", items: makeList("decimal", listPool, random, false) });
      blocks.push(para(2));
      break;
    }
  }
  // One-column reports and articles get a footnote on a paragraph in the middle (the page's foot is found at print time).
  // Not where a table holds a word too long for its column (a URL): Chromium then shrinks the document to fit the
  // page, and where the page's foot falls cannot be told from the screen layout.
  const unbreakable = blocks.some(
    (b) => b.kind === "table" && [...b.body.flat(), ...b.head.flat().map((c) => c.text)].some((c) => /\S{31}/.test(c)),
  );
  if (look.columns === 1 && (genre === "report" || genre === "article") && !unbreakable) {
    const paragraphs = blocks.filter((b): b is Extract<Block, { kind: "paragraph" }> => b.kind === "paragraph");
    const target = paragraphs[Math.min(2, paragraphs.length - 1)];
    const words = target?.text.split(" ") ?? [];
    // After a word ending in a letter, near the start: the paragraph begins a line or two above the note.
    const after = words.findIndex((w, k) => k >= 4 && /\p{L}$/u.test(w)) + 1;
    const source = sentences(
      prose.shift() ??
        pick(
          random,
          paragraphs.map((p) => p.text),
        ),
    )[0];
    if (target && after > 0 && source)
      target.note = { marker: random() < 0.75 ? "1" : "*", text: source, after, ruled: n % 2 === 0 };
  }
  // One-column newsletters get a boxed sidebar beside their last paragraph.
  const last = blocks.at(-1);
  if (look.columns === 1 && genre === "newsletter" && last?.kind === "paragraph") {
    const text = sentences(prose.shift() ?? pick(random, paragraphs))
      .slice(0, 2)
      .join(" ");
    if (text) last.sidebar = { title: pick(random, ["In brief", "At a glance", "Background"]), text };
  }
  const html = page(title, blocks, look);
  const markdown = blocks.map(blockMarkdown).join("\n\n") + "\n";
  const listItems = blocks.flatMap((b) => (b.kind === "list" ? allItems(b.items) : []));
  return {
    id: `${String(n + 1).padStart(2, "0")}-${genre}-${look.columns}col-${look.tableStyle}`,
    genre,
    columns: look.columns,
    tableStyle: look.tableStyle,
    runningHeader: title.length > 60 ? `${title.slice(0, 57)}...` : title,
    html,
    markdown,
    listItems,
    tables: tableNo,
  };
}

export const LAYOUT_SEED = 25;
export const LAYOUT_DOCUMENTS = 36;

/** The development set from the chroma-dev WikiText file and the tables-dev folder. */
export function buildLayoutSet(wikitextFile: string, tablesDir: string, count = LAYOUT_DOCUMENTS): LayoutDocument[] {
  const articles = readArticles(fs.readFileSync(wikitextFile, "utf8"));
  const tables = readTables(tablesDir);
  if (articles.length < 4 || tables.length < 10)
    throw new Error(`layout set: too few sources (${articles.length} articles, ${tables.length} tables)`);
  return Array.from({ length: count }, (_, n) => compose(n, articles, tables, LAYOUT_SEED));
}
