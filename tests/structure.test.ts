/**
 * The structure tier's splitter (lib/chunking/structure/) and the modules
 * under it, on real text (the Chroma chunking-eval corpus, the fixtures) and
 * on documents written here to exercise one rule each.
 *
 * Ground truth for token counts is gpt-tokenizer (o200k_base), and for
 * Markdown structure a parse of each chunk or document with the same parser
 * run the plain way (whole document, no skeleton): never the module under test.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { join } from "node:path";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { checkChunks, referenceTokens as reference } from "./helpers/chunk-invariants";
import type { Nodes } from "mdast";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import { markdownHeadingTitles, plainHeadingLevel } from "@/lib/chunking/structure/headings";
import { parseMarkdown } from "@/lib/chunking/markdown/mdast-blocks";
import { htmlTableParts } from "@/lib/chunking/structure/html-table";
import { scanMarkdown } from "@/lib/chunking/markdown/scan";
import { markdownSkeleton } from "@/lib/chunking/markdown/skeleton";
import MarkdownIt from "markdown-it";
import { sentenceStarts, sentenceStartsOfRanges } from "@/lib/chunking/text/prose-sentences";
import { containerDepth, splitStructure, type StructureOptions } from "@/lib/chunking/structure";
import type { Span } from "@/lib/chunking/types";
import { mulberry32 } from "./helpers/random";

const root = join(import.meta.dirname, "..");
const wiki = fs.readFileSync(join(root, "tests/fixtures/wikitext-excerpt.md"), "utf8");
const chat = fs.readFileSync(join(root, "tests/fixtures/chatlogs-excerpt.md"), "utf8");
const notes = fs.readFileSync(join(root, "tests/fixtures/notes.md"), "utf8");
const cjk = fs.readFileSync(join(root, "tests/fixtures/cjk.txt"), "utf8");
const emoji = fs.readFileSync(join(root, "tests/fixtures/emoji.txt"), "utf8");

interface Piece {
  span: Span;
  /** The chunk's text: `span.text` when the splitter rewrote it, else the slice. */
  text: string;
}

const split = (text: string, maxTokens: number, options: Partial<StructureOptions> = {}): Piece[] =>
  splitStructure(text, { maxTokens, overlapTokens: 0, ...options }).map((span) => ({
    span,
    text: span.text ?? text.slice(span.start, span.end),
  }));

const isSpace = (c: string | undefined) => c === undefined || /\s/.test(c);

/**
 * The invariants every output must keep (tests/helpers/chunk-invariants.ts): this splitter may rewrite a chunk (a
 * fence or a table header added, its slice kept whole) and gives every chunk its headings; its edges may hold
 * whitespace (code keeps its indentation).
 */
const checkInvariants = (text: string, pieces: Piece[], maxTokens: number, overlapTokens = 0): number =>
  checkChunks(
    text,
    pieces.map((piece) => piece.span),
    { maxTokens, overlapTokens, rewrites: true, headings: true },
  );

const markdownOptions = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

function walk(nodes: Nodes[], visit: (node: Nodes) => void): void {
  for (const node of nodes) {
    visit(node);
    if ("children" in node) walk(node.children as Nodes[], visit);
  }
}

/** Every fenced code block of a chunk is closed: a chunk is valid Markdown on its own. */
function fencesClosed(chunk: string): boolean {
  let closed = true;
  walk(fromMarkdown(chunk, markdownOptions).children, (node) => {
    if (node.type !== "code") return;
    const source = chunk.slice(node.position!.start.offset, node.position!.end.offset);
    const fence = /^[ \t]*(`{3,}|~{3,})/.exec(source)?.[1];
    if (!fence) return;
    const lines = source.split("\n");
    if (
      lines.length < 2 ||
      !new RegExp(`^[ \\t]*\\${fence[0]}{${fence.length},}[ \\t]*$`).test(lines[lines.length - 1]!)
    )
      closed = false;
  });
  return closed;
}

/** Offsets in `text` where chunks start or end, except the text's own edges. */
function cuts(text: string, pieces: Piece[]): number[] {
  return pieces.flatMap(({ span }) => [span.start, span.end]).filter((p) => p > 0 && p < text.length);
}

// ---------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------

const WORDS = [
  "orchard",
  "ladder",
  "pruning",
  "blossom",
  "harvest",
  "volunteer",
  "mulch",
  "graft",
  "rootstock",
  "canker",
  "apple",
  "pear",
  "quince",
  "compost",
  "season",
  "branch",
];

/** Deterministic prose: sentences of 8 to 20 words, `count` of them. */
function sentences(count: number, seed: number): string {
  const next = mulberry32(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = 8 + Math.floor(next() * 13);
    const words = Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]!);
    words[0] = words[0]![0]!.toUpperCase() + words[0]!.slice(1);
    out.push(`${words.join(" ")}.`);
  }
  return out.join(" ");
}

function pythonLines(count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    i % 7 === 6 ? "" : `    total_${i} = compute(items[${i}], weight=${i * 3}) + offset_${i % 5}`,
  );
}

// ---------------------------------------------------------------------------
// Code
// ---------------------------------------------------------------------------

describe("fenced code", () => {
  const block = [
    "```ts",
    ...Array.from({ length: 12 }, (_, i) => `const value${i} = compute(${i}, "item-${i}");`),
    "```",
  ].join("\n");
  const doc = `# Build\n\n${sentences(6, 1)}\n\n${block}\n\n${sentences(6, 2)}\n`;

  it("keeps a code block whole while it fits, even when its neighbours then leave chunks unfilled", () => {
    const blockTokens = reference(block);
    for (const max of [blockTokens + 2, blockTokens + 40, 2 * blockTokens]) {
      const pieces = split(doc, max);
      checkInvariants(doc, pieces, max);
      const start = doc.indexOf("```ts");
      const end = start + block.length;
      expect(
        pieces.filter((p) => p.span.start <= start && p.span.end >= end),
        `max ${max}`,
      ).toHaveLength(1);
      expect(
        cuts(doc, pieces).some((c) => c > start && c < end),
        `max ${max}`,
      ).toBe(false);
    }
  });

  it("splits a block longer than max_tokens between lines, re-fencing every piece with its language", () => {
    const lines = pythonLines(80);
    const code = ["```python", ...lines, "```"].join("\n");
    const text = `Intro sentence before the code.\n\n${code}\n\nOutro after it.\n`;
    const pieces = split(text, 120);
    checkInvariants(text, pieces, 120);
    const withCode = pieces.filter((p) => p.text.includes("total_"));
    expect(withCode.length).toBeGreaterThan(3);
    const seen: string[] = [];
    for (const { text: chunk } of withCode) {
      expect(fencesClosed(chunk), chunk).toBe(true);
      const open = chunk.indexOf("```python\n");
      expect(open, chunk).toBeGreaterThanOrEqual(0);
      const body = chunk.slice(open + "```python\n".length, chunk.indexOf("\n```", open + 1));
      seen.push(...body.split("\n").filter((l) => l.trim() !== ""));
    }
    // Every line in exactly one piece, whole, in order.
    expect(seen).toEqual(lines.filter((l) => l.trim() !== ""));
  });

  it("re-fences ~~~ blocks the same way, inside a list item too", () => {
    const tilde = [
      "~~~js",
      ...Array.from({ length: 40 }, (_, i) => `  step(${i}); // advance the ${WORDS[i % WORDS.length]} counter`),
      "~~~",
    ].join("\n");
    const text = `Steps:\n\n- Run this:\n\n  ${tilde.replace(/\n/g, "\n  ")}\n\n- Then rest.\n\n${tilde}\n`;
    const pieces = split(text, 90);
    checkInvariants(text, pieces, 90);
    const codePieces = pieces.filter((p) => p.text.includes("step("));
    expect(codePieces.length).toBeGreaterThan(4);
    for (const { text: chunk } of codePieces) {
      expect(fencesClosed(chunk), chunk).toBe(true);
      expect(chunk, chunk).toMatch(/~~~js\n/);
    }
    // No line of code cut.
    for (const c of cuts(text, pieces))
      expect(isSpace(text[c - 1]) || isSpace(text[c]) || text[c - 1] === "\n", `cut at ${c}`).toBe(true);
  });
});

// ---------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------

describe("tables", () => {
  const header = "| Variety | Season | Pollination group | Notes |";
  const separator = "|---|:---:|---:|---|";
  const rows = Array.from(
    { length: 40 },
    (_, i) =>
      `| ${WORDS[i % WORDS.length]} ${i} | ${["early", "mid", "late"][i % 3]} | ${1 + (i % 5)} | stores well until month ${(i % 12) + 1} |`,
  );
  const table = [header, separator, ...rows].join("\n");
  const doc = `## Varieties\n\n${sentences(3, 3)}\n\n${table}\n\n${sentences(3, 4)}\n`;

  it("splits a long table between rows only, each piece repeating the header row and separator line", () => {
    const pieces = split(doc, 100);
    checkInvariants(doc, pieces, 100);
    const tablePieces = pieces.filter((p) => rows.some((r) => p.text.includes(r)));
    expect(tablePieces.length).toBeGreaterThan(3);
    const seen: string[] = [];
    for (const { text: chunk } of tablePieces) {
      const lines = chunk.split("\n");
      const at = lines.indexOf(header);
      expect(at, chunk).toBeGreaterThanOrEqual(0);
      expect(lines[at + 1], chunk).toBe(separator);
      seen.push(...lines.filter((l) => rows.includes(l)));
      // What a Markdown reader sees: one table whose body rows are the piece's rows.
      let tables = 0;
      walk(fromMarkdown(chunk, markdownOptions).children, (n) => {
        if (n.type === "table") tables++;
      });
      expect(tables, chunk).toBe(1);
    }
    expect(seen).toEqual(rows);
  });

  it("keeps a table that fits whole", () => {
    const small = [header, separator, ...rows.slice(0, 5)].join("\n");
    const text = `${sentences(20, 5)}\n\n${small}\n\n${sentences(20, 6)}`;
    const max = reference(small) + 10;
    const pieces = split(text, max);
    checkInvariants(text, pieces, max);
    const start = text.indexOf(header);
    expect(pieces.some((p) => p.span.start <= start && p.span.end >= start + small.length)).toBe(true);
  });
});

describe("HTML tables (a cell spanning columns or rows)", () => {
  // The shape extraction writes (lib/extract/html-tables.ts, and the PDF layout): one element per line.
  const head = [
    "<table>",
    "<thead>",
    '<tr><th>Region</th><th colspan="2">Revenue (USD m)</th></tr>',
    "<tr><th></th><th>2024</th><th>2025</th></tr>",
    "</thead>",
    "<tbody>",
  ];
  const rows = Array.from(
    { length: 40 },
    (_, i) =>
      `<tr><td>${WORDS[i % WORDS.length]} &amp; ${WORDS[(i + 5) % WORDS.length]} ${i}</td><td>${100 + i}.4</td><td>${200 + i * 3}.9</td></tr>`,
  );
  const tableOf = (body: string[]) => [...head, ...body, "</tbody>", "</table>"].join("\n");
  const table = tableOf(rows);
  const doc = `## Revenue\n\n${sentences(3, 13)}\n\n${table}\n\n${sentences(3, 14)}\n`;
  const opening = `${head.join("\n")}\n`;
  const closing = "\n</tbody>\n</table>";

  /** What a Markdown reader sees of a chunk: its HTML blocks. */
  const htmlBlocks = (chunk: string) => {
    const found: string[] = [];
    walk(fromMarkdown(chunk, markdownOptions).children, (n) => {
      if (n.type === "html") found.push(n.value);
    });
    return found;
  };

  for (const flavor of ["markdown", "plain"] as const) {
    it(`splits a long table between rows only, every piece one table under the whole head (${flavor})`, () => {
      const pieces = split(doc, 200, { flavor });
      checkInvariants(doc, pieces, 200);
      const tablePieces = pieces.filter((p) => rows.some((r) => p.text.includes(r)));
      expect(tablePieces.length).toBeGreaterThan(3);
      const seen: string[] = [];
      for (const { text: chunk } of tablePieces) {
        // The whole head, the rows, the closing tags, once each: one well-formed table.
        const at = chunk.indexOf(opening);
        expect(at, chunk).toBeGreaterThanOrEqual(0);
        const close = chunk.indexOf(closing, at);
        expect(close, chunk).toBeGreaterThan(at);
        expect(chunk.indexOf("<table>", at + 1), chunk).toBe(-1);
        const inTable = chunk.slice(at, close + closing.length);
        const body = inTable.slice(opening.length, -closing.length).split("\n");
        // Nothing but whole rows between the head and the closing: no row is cut.
        for (const line of body) expect(rows, line).toContain(line);
        seen.push(...body);
        // And a Markdown reader sees it as one HTML block.
        expect(htmlBlocks(chunk), chunk).toEqual([inTable]);
      }
      // Every row in exactly one piece, in order.
      expect(seen).toEqual(rows);
    });
  }

  it("keeps a table that fits whole, as its own slice of the text", () => {
    const small = tableOf(rows.slice(0, 6));
    const text = `${sentences(20, 15)}\n\n${small}\n\n${sentences(20, 16)}`;
    const max = reference(small) + 10;
    const pieces = split(text, max);
    checkInvariants(text, pieces, max);
    const start = text.indexOf(small);
    const holding = pieces.filter((p) => p.span.start <= start && p.span.end >= start + small.length);
    expect(holding).toHaveLength(1);
    expect(holding[0]!.span.text).toBeUndefined();
    expect(cuts(text, pieces).some((c) => c > start && c < start + small.length)).toBe(false);
  });

  it("cuts a single row longer than a chunk at words, the head before its first piece, every piece closing the table", () => {
    const huge = `<tr><td>${sentences(30, 17)}</td><td>1</td><td>2</td></tr>`;
    const text = `${sentences(2, 18)}\n\n${tableOf([rows[0]!, huge, rows[1]!])}\n`;
    const pieces = split(text, 200);
    checkInvariants(text, pieces, 200);
    const hugeStart = text.indexOf(huge);
    const inside = pieces.filter((p) => p.span.end > hugeStart && p.span.start < hugeStart + huge.length);
    expect(inside.length).toBeGreaterThan(2);
    expect(inside[0]!.text, inside[0]!.text).toContain(opening);
    for (const p of inside) expect(p.text.trimEnd().endsWith("</table>"), p.text).toBe(true);
    // Inside the row, cuts fall between words.
    for (const c of cuts(text, pieces).filter((c) => c > hugeStart && c < hugeStart + huge.length))
      expect(isSpace(text[c - 1]) || isSpace(text[c]), `cut at ${c}`).toBe(true);
  });

  it("reads rows by their tags; HTML that is not one table alone stays HTML", () => {
    const loose = "<table>\n<tr><td>a</td></tr>\n<tr>\n<td>b</td>\n</tr>\n<tr><td>c</td>\n</table>";
    const parts = htmlTableParts(loose, 0, loose.length)!;
    expect(parts.rows.map(([s, e]) => loose.slice(s, e))).toEqual([
      "<tr><td>a</td></tr>",
      "<tr>\n<td>b</td>\n</tr>",
      "<tr><td>c</td>", // no `</tr>`: HTML allows that
    ]);
    expect(htmlTableParts(table, 0, table.length)!.rows).toHaveLength(rows.length);
    const nested = "<table>\n<tr><td><table><tr><td>x</td></tr></table></td></tr>\n</table>";
    expect(htmlTableParts(nested, 0, nested.length)).toBeUndefined();
    const trailing = `${table}\n<p>and then</p>`;
    expect(htmlTableParts(trailing, 0, trailing.length)).toBeUndefined();
    expect(htmlTableParts("<div>\n<tr></tr>\n</div>", 0, 21)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------
// Lists
// ---------------------------------------------------------------------------

describe("lists", () => {
  const item = (label: string, nested: number, seed: number) =>
    [
      `- ${label}: ${sentences(1, seed)}`,
      ...Array.from({ length: nested }, (_, k) => `  - ${label}.${k + 1} ${sentences(1, seed * 10 + k)}`),
    ].join("\n");
  const list = [item("One", 3, 1), item("Two", 3, 2), item("Three", 3, 3), item("Four", 3, 4)].join("\n");

  it("keeps a nested list whole while it fits", () => {
    const text = `${sentences(5, 7)}\n\n${list}\n\n${sentences(5, 8)}`;
    const max = reference(list) + 5;
    const pieces = split(text, max);
    checkInvariants(text, pieces, max);
    const start = text.indexOf(list);
    expect(pieces.some((p) => p.span.start <= start && p.span.end >= start + list.length)).toBe(true);
  });

  /** Offsets of the list markers of items at these indentations. */
  const markers = (text: string, indents: number[]) =>
    [...text.matchAll(/^( *)- /gm)].filter((m) => indents.includes(m[1]!.length)).map((m) => m.index + m[1]!.length);
  /** Where the text resumes after a cut: the next non-blank character. */
  const resume = (text: string, c: number) => c + text.slice(c).search(/\S/);

  it("splits a longer list between top-level items, never inside one that fits", () => {
    const max = Math.ceil(reference(list) / 2) + 10;
    const pieces = split(list, max);
    checkInvariants(list, pieces, max);
    expect(pieces.length).toBeGreaterThan(1);
    const top = markers(list, [0]);
    for (const c of cuts(list, pieces))
      expect(top, `cut at ${c}: ${JSON.stringify(list.slice(c - 20, c + 20))}`).toContain(resume(list, c));
  });

  it("splits an item too big alone between its nested items, never inside one", () => {
    const big = item("Big", 8, 9);
    const text = `${big}\n${item("Small", 1, 10)}`;
    const max = Math.ceil(reference(big) / 2) + 20;
    const pieces = split(text, max);
    checkInvariants(text, pieces, max);
    const nested = markers(text, [2]);
    const any = markers(text, [0, 2]);
    const resumed = cuts(text, pieces).map((c) => resume(text, c));
    for (const r of resumed) expect(any, `cut before ${JSON.stringify(text.slice(r, r + 30))}`).toContain(r);
    expect(resumed.some((r) => nested.includes(r))).toBe(true);
  });

  it("keeps long items whole when a list is split, each in one chunk, in Markdown and plain text", () => {
    // Items of 3 to 7 sentences, every third with a second paragraph: each fits a chunk, the list does not.
    const items = Array.from({ length: 12 }, (_, k) => {
      const first = `${k + 1}. ${sentences(3 + (k % 5), 40 + k)}`;
      return k % 3 === 2 ? `${first}\n\n   ${sentences(2, 60 + k)}` : first;
    });
    const longList = items.join("\n");
    const text = `${sentences(4, 19)}\n\n${longList}\n\n${sentences(4, 20)}\n`;
    const max = Math.max(...items.map(reference)) + 30;
    for (const flavor of ["markdown", "plain"] as const) {
      const pieces = split(text, max, { flavor });
      checkInvariants(text, pieces, max);
      expect(pieces.length, flavor).toBeGreaterThan(3);
      for (const item of items) {
        const start = text.indexOf(item);
        const holding = pieces.filter((p) => p.span.start <= start && p.span.end >= start + item.length);
        expect(holding, `${flavor}: ${item.slice(0, 40)}`).toHaveLength(1);
      }
    }
  });

  it("cuts a single item longer than a chunk at sentence boundaries only", () => {
    const long = `- ${sentences(40, 11)}\n- ${sentences(2, 12)}`;
    const pieces = split(long, 80);
    checkInvariants(long, pieces, 80);
    for (const c of cuts(long, pieces)) {
      const before = long.slice(0, c).trimEnd();
      expect(before.endsWith(".") || long.slice(c).trimStart().startsWith("- "), `cut at ${c}`).toBe(true);
    }
  });
});

// ---------------------------------------------------------------------------
// Headings and sections
// ---------------------------------------------------------------------------

describe("headings", () => {
  it("gives each chunk the path of the headings above it, ATX and Setext alike", () => {
    const text = [
      "Guide to the *orchard*",
      "======================",
      "",
      sentences(12, 20),
      "",
      "Planting",
      "--------",
      "",
      sentences(12, 21),
      "",
      "### Digging the `hole`",
      "",
      sentences(12, 22),
      "",
      "## Pruning ##",
      "",
      sentences(12, 23),
    ].join("\n");
    const pieces = split(text, 120);
    checkInvariants(text, pieces, 120);
    const pathAt = (needle: string) => pieces.find((p) => p.text.includes(needle))!.span.headings;
    expect(pathAt("Guide to the")).toEqual(["Guide to the orchard"]);
    expect(pathAt("Planting\n---")).toEqual(["Guide to the orchard", "Planting"]);
    expect(pathAt("### Digging")).toEqual(["Guide to the orchard", "Planting", "Digging the hole"]);
    expect(pathAt("## Pruning")).toEqual(["Guide to the orchard", "Pruning"]);
    // A chunk in the middle of a section carries its path too.
    const last = pieces[pieces.length - 1]!;
    expect(last.text.includes("## Pruning")).toBe(false);
    expect(last.span.headings).toEqual(["Guide to the orchard", "Pruning"]);
  });

  it("never ends a chunk with a heading that has no body", () => {
    const sections = Array.from(
      { length: 30 },
      (_, i) => `${"#".repeat(1 + (i % 3))} Section ${i}\n\n${sentences(1 + (i % 4), 30 + i)}`,
    ).join("\n\n");
    for (const max of [24, 40, 64, 100]) {
      const pieces = split(sections, max);
      checkInvariants(sections, pieces, max);
      for (const { text: chunk } of pieces) {
        const lines = chunk.trimEnd().split("\n");
        expect(/^#{1,6} /.test(lines[lines.length - 1]!), `max ${max}: ${JSON.stringify(chunk)}`).toBe(false);
      }
    }
  });

  it("starts substantial sections in a chunk of their own, while short whole sections share one", () => {
    const short = ["## A", "Alpha is short.", "## B", "Beta is short too.", "## C", "Gamma also."].join("\n\n");
    const long = `## Long\n\n${sentences(30, 40)}\n\n## After\n\n${sentences(30, 41)}`;
    const text = `${short}\n\n${long}`;
    const pieces = split(text, 200);
    checkInvariants(text, pieces, 200);
    // The three short sections together.
    expect(pieces[0]!.text).toContain("## A");
    expect(pieces[0]!.text).toContain("Gamma also.");
    expect(pieces[0]!.span.headings).toEqual(["A"]);
    // The tail of "Long" never shares a chunk with "After".
    for (const { text: chunk } of pieces)
      if (chunk.includes("## After")) expect(chunk.trimStart().startsWith("## After"), chunk).toBe(true);
  });

  it("recognises numbered, Chapter and ALL-CAPS heading lines in plain text", () => {
    const text = [
      "CHAPTER IV. THE RETURN",
      sentences(6, 50),
      "",
      "1 Introduction",
      sentences(6, 51),
      "",
      "2.3 Related Work",
      sentences(6, 52),
      "",
      "METHODS AND MATERIALS",
      "",
      sentences(6, 53),
      "",
      "Chapter 5",
      sentences(6, 54),
    ].join("\n");
    const pieces = split(text, 90, { flavor: "plain" });
    checkInvariants(text, pieces, 90);
    const pathAt = (needle: string) => pieces.find((p) => p.text.includes(needle))!.span.headings;
    expect(pathAt("CHAPTER IV")).toEqual(["CHAPTER IV. THE RETURN"]);
    expect(pathAt("1 Introduction")).toEqual(["1 Introduction"]);
    expect(pathAt("2.3 Related Work")).toEqual(["1 Introduction", "2.3 Related Work"]);
    expect(pathAt("METHODS AND")).toEqual(["METHODS AND MATERIALS"]);
    expect(pathAt("Chapter 5")).toEqual(["Chapter 5"]);
    // A heading line inside a paragraph starts its chunk.
    for (const needle of ["1 Introduction", "2.3 Related Work", "Chapter 5"])
      expect(
        pieces.some((p) => p.text.startsWith(needle)),
        needle,
      ).toBe(true);
    // Markdown text has no such headings.
    expect(split(text, 90).every((p) => p.span.headings!.length === 0)).toBe(true);
  });

  it("does not take numbered lists, shouted sentences or sentences about chapters for headings", () => {
    const next = { next: "Some body text follows here.", followedByText: true };
    const cases: Array<[string, Parameters<typeof plainHeadingLevel>[1]]> = [
      ["1. Buy milk", next],
      ["STOP THAT AT ONCE!", next],
      ["THIS IS VERY LOUD.", next],
      ["Chapter 3 explains the method", next],
      ["2019 Annual Report", next],
      ["Introduction ........ 3", next],
      ["1 Apples", { next: "2 Pears", followedByText: true }],
      ["3 Results", { previous: "a sentence that goes on", next: "more of it.", followedByText: true }],
      ["OK", next],
      ["| A | B |", next],
      ["INTRODUCTION", { followedByText: false }],
      ["PLEASE READ", { next: "ALL OF THIS", followedByText: true }],
    ];
    for (const [line, context] of cases) expect(plainHeadingLevel(line, context, false), line).toBeUndefined();
    expect(plainHeadingLevel("3 Results", next, false)).toBe(1);
    expect(plainHeadingLevel("3.2.1 Error Analysis", next, false)).toBe(3);
    expect(plainHeadingLevel("INTRODUCTION", next, false)).toBe(1);
    expect(
      plainHeadingLevel(
        "THE BOY",
        { previous: "CHAPTER I", previousIsHeading: true, next: "Tom said.", followedByText: true },
        true,
      ),
    ).toBe(2);
    // In a document: a numbered list and a shout stay prose.
    const text = `1 Apples\n2 Pears\n3 Plums\n\nDO NOT CLIMB THE LADDER ALONE!\n\n${sentences(3, 60)}`;
    expect(split(text, 200, { flavor: "plain" }).every((p) => p.span.headings!.length === 0)).toBe(true);
  });

  it("reads a one-item '1. Title' list followed by a '1.1' section as a chapter (PDF text turned Markdown)", () => {
    const text = `# Handbook\n\n${sentences(3, 70)}\n\n1. Planning the Orchard\n\n## 1.1 Choosing a Site\n\n${sentences(4, 71)}\n\n2. Planting\n\n## 2.1 When to Plant\n\n${sentences(12, 72)}`;
    const pieces = split(text, 80, { flavor: "plain" });
    checkInvariants(text, pieces, 80);
    // The chunk that starts chapter 2 is its chapter's; the chunks after it are in its first section.
    expect(pieces.find((p) => p.text.includes("2. Planting"))!.span.headings).toEqual(["2. Planting"]);
    expect(pieces[pieces.length - 1]!.span.headings).toEqual(["2. Planting", "2.1 When to Plant"]);
    // Without a numbered section after it, "1. Title" is a list item.
    const list = `${sentences(2, 73)}\n\n1. Planning the Orchard\n\n${sentences(2, 74)}`;
    expect(split(list, 200, { flavor: "plain" }).every((p) => p.span.headings!.length === 0)).toBe(true);
  });

  it("titles Markdown headings by their text, without inline markup", () => {
    const text = "# Use `npm` and *pnpm* ##\n\nText.\n\nA [linked](https://example.com) **title**\n---\n\nBody.";
    const headings = scanMarkdown(text).filter((n) => n.type === "heading");
    expect(markdownHeadingTitles(text, headings)).toEqual(["Use npm and pnpm", "A linked title"]);
  });

  it("takes titles without inline syntax as written, as the inline parser reads them", () => {
    const md = new MarkdownIt("default", { html: true });
    const next = mulberry32(3);
    const characters = "ab Z09.,:;?'\"()/{}$%^@#=+-|—é中\t";
    const titles = [
      'Price: $5 = 100% {ok} ^ @home #1; (a/b) "q"',
      ...Array.from({ length: 200 }, () =>
        Array.from({ length: 1 + Math.floor(next() * 30) }, () => characters[Math.floor(next() * characters.length)]!)
          .join("")
          .trim(),
      ).filter((title) => title.length > 0 && !title.startsWith("#") && !title.endsWith("#")),
    ];
    for (const title of titles) {
      // The premise: markdown-it reads such a title as one text of the same characters.
      const children = md.parseInline(title, {})[0]!.children!;
      expect(children.map((c) => `${c.type}:${c.content}`).join("|")).toBe(`text:${title}`);
      const text = `## ${title}\n\nBody.`;
      const headings = scanMarkdown(text).filter((n) => n.type === "heading");
      expect(markdownHeadingTitles(text, headings)).toEqual([title]);
    }
  });
});

// ---------------------------------------------------------------------------
// Prose
// ---------------------------------------------------------------------------

describe("prose", () => {
  it("finds sentence starts, keeping 'Dr. Smith', 'e.g.' and initials whole, and ignoring line wraps", () => {
    const text =
      "Dr. Smith arrived at noon. He brought tools, e.g. a saw and a ladder. J. R. Tolkien wrote\nabout trees. Mr. Brown agreed.";
    const starts = sentenceStarts(text, 0, text.length).map((s) => text.slice(s, s + 6));
    expect(starts).toEqual(["He bro", "J. R. ", "Mr. Br"]);
  });

  it("finds the same sentence starts in ranges segmented together as in each alone", () => {
    const next = mulberry32(29);
    const pieces = [
      "Dr.",
      "J.",
      "e.g.",
      "word",
      "Word",
      "42",
      ".",
      "!",
      "?",
      "。",
      "？",
      "」",
      "\u2029",
      "\\n",
      "”",
      ")",
      " ",
      " ",
      "\n",
      "\t",
      "؟",
      "।",
      "a.@b",
    ];
    const soup = Array.from({ length: 20_000 }, () => pieces[Math.floor(next() * pieces.length)]).join("");
    for (const text of [wiki, chat, soup]) {
      const ranges: [number, number][] = [];
      for (let start = 0; start < text.length;) {
        // Mostly paragraph-sized ranges, some over a segmenter window (4,096), some empty, with gaps between.
        const length = next() < 0.05 ? 4000 + Math.floor(next() * 3000) : Math.floor(next() * 700);
        const end = Math.min(text.length, start + length);
        ranges.push([start, end]);
        start = end + Math.floor(next() * 20);
      }
      const together = sentenceStartsOfRanges(text, ranges);
      expect(together.flat().length).toBeGreaterThan(100);
      expect(together).toEqual(ranges.map(([start, end]) => sentenceStarts(text, start, end)));
    }
  });

  it("cuts between sentences, never after 'Dr.' or 'e.g.'", () => {
    const text = Array.from({ length: 40 }, (_, i) =>
      i % 2 ? `Dr. Smith checked tree ${i} with care.` : `Use a tool, e.g. a pruning saw, on branch ${i}.`,
    ).join(" ");
    for (const max of [20, 33, 50]) {
      const pieces = split(text, max);
      checkInvariants(text, pieces, max);
      for (const c of cuts(text, pieces)) {
        const before = text.slice(0, c).trimEnd();
        if (pieces.some((p) => p.span.end === c))
          expect(before.endsWith(".") && !/(Dr|e\.g)\.$/.test(before), `max ${max}: ${before.slice(-30)}`).toBe(true);
      }
    }
  });

  it("never cuts inside a word on real text, at several budgets", () => {
    for (const text of [wiki, chat]) {
      for (const max of [50, 200, 400]) {
        const pieces = split(text, max);
        checkInvariants(text, pieces, max);
        // A line break written out as "\n" (the chat logs are Python literals) separates like whitespace.
        const separated = (k: number) =>
          isSpace(text[k]) || text.slice(k - 1, k + 1) === "\\n" || text.slice(k, k + 2) === "\\n";
        for (const { span } of pieces) {
          expect(
            separated(span.start - 1) || text.slice(span.start - 2, span.start) === "\\n",
            `start ${span.start}: ${JSON.stringify(text.slice(span.start - 20, span.start + 20))}`,
          ).toBe(true);
          expect(
            separated(span.end) || text.slice(span.end - 2, span.end) === "\\n",
            `end ${span.end}: ${JSON.stringify(text.slice(span.end - 20, span.end + 20))}`,
          ).toBe(true);
        }
      }
    }
  });

  it("merges small neighbours so that chunks fill up evenly", () => {
    const text = Array.from({ length: 60 }, (_, i) => sentences(1 + (i % 3), 80 + i)).join("\n\n");
    const pieces = split(text, 200);
    checkInvariants(text, pieces, 200);
    const sizes = pieces.map((p) => p.span.tokenCount);
    const total = reference(text);
    // As few chunks as the budget allows, give or take one, all but the last well filled.
    expect(pieces.length).toBeLessThanOrEqual(Math.ceil(total / 200) + 1);
    expect(Math.min(...sizes.slice(0, -1))).toBeGreaterThan(120);
    // Cut between paragraphs, which are small enough to allow it.
    for (const { span } of pieces.slice(0, -1))
      expect(text.slice(span.end, span.end + 2), `end ${span.end}`).toBe("\n\n");
  });

  it("cuts a huge paragraph without full stops at words, and a huge word between graphemes", () => {
    const words = sentences(400, 90).replace(/\./g, "");
    const word = "x".repeat(5000) + "é".repeat(3000);
    const text = `${words}\n\n${word} end`;
    const pieces = split(text, 64);
    checkInvariants(text, pieces, 64);
    const wordStart = text.indexOf(word);
    for (const c of cuts(text, pieces))
      if (c < wordStart) expect(isSpace(text[c - 1]) || isSpace(text[c]), `cut at ${c}`).toBe(true);
    expect(pieces.filter((p) => p.span.start >= wordStart).length).toBeGreaterThan(10);
  });

  it("overlaps consecutive prose chunks of one section, never across a section change or into code", () => {
    const code = ["```sh", ...Array.from({ length: 30 }, (_, i) => `echo step ${i}`), "```"].join("\n");
    const text = `# One\n\n${sentences(40, 100)}\n\n${code}\n\n# Two\n\n${sentences(40, 101)}`;
    const pieces = split(text, 100, { overlapTokens: 20 });
    checkInvariants(text, pieces, 100, 20);
    let overlaps = 0;
    pieces.forEach((p, i) => {
      if (i === 0) return;
      const previous = pieces[i - 1]!;
      if (p.span.start >= previous.span.end) return;
      overlaps++;
      expect(reference(text.slice(p.span.start, previous.span.end))).toBeLessThanOrEqual(20);
      expect(p.span.headings).toEqual(previous.span.headings);
      expect(text.slice(p.span.start, previous.span.end)).not.toContain("```");
      expect(isSpace(text[p.span.start - 1])).toBe(true);
    });
    expect(overlaps).toBeGreaterThan(4);
    const two = pieces.find((p) => p.text.includes("# Two"))!;
    expect(two.text.startsWith("# Two")).toBe(true);
  });
});

// ---------------------------------------------------------------------------
// Invariants on real and awkward text
// ---------------------------------------------------------------------------

describe("invariants", () => {
  it("counts tokens exactly and stays within max_tokens on the eval corpora and fixtures, at several budgets", () => {
    const docs: Array<[string, string, StructureOptions["flavor"]]> = [
      ["wikitexts", wiki, "markdown"],
      ["chatlogs", chat, "markdown"],
      ["notes.md", notes, "markdown"],
      ["cjk.txt", cjk, "plain"],
      ["emoji.txt", emoji, "plain"],
      ["wikitexts as plain text", wiki.slice(0, 30_000), "plain"],
    ];
    for (const [name, text, flavor] of docs)
      for (const max of [16, 64, 256, 1000]) {
        const pieces = split(text, max, { flavor });
        checkInvariants(text, pieces, max);
        for (const { text: chunk } of pieces)
          if (flavor === "markdown") expect(fencesClosed(chunk), `${name} max ${max}`).toBe(true);
      }
  });

  it("keeps every invariant with overlap, down to the smallest budget", () => {
    const doc = `# Notes\n\n${sentences(30, 130)}\n\n${notes}\n\n${sentences(30, 131)}`;
    for (const text of [doc, wiki.slice(0, 20_000), chat.slice(0, 20_000)])
      for (const [max, overlap] of [
        [16, 8],
        [16, 15],
        [64, 32],
        [400, 64],
      ] as const) {
        const pieces = split(text, max, { overlapTokens: overlap });
        checkInvariants(text, pieces, max, overlap);
        for (const { text: chunk } of pieces) expect(fencesClosed(chunk), `max ${max}`).toBe(true);
      }
  });

  it("maps offsets back to the text for CRLF input", () => {
    const lf = `# Title\n\n${sentences(10, 110)}\n\n\`\`\`js\n${Array.from({ length: 30 }, (_, i) => `call(${i});`).join("\n")}\n\`\`\`\n\n| a | b |\n|---|---|\n${Array.from({ length: 20 }, (_, i) => `| ${i} | ${i * i} |`).join("\n")}\n`;
    const crlf = lf.replace(/\n/g, "\r\n");
    const pieces = split(crlf, 60);
    checkInvariants(crlf, pieces, 60);
    for (const { text: chunk } of pieces) expect(fencesClosed(chunk.replace(/\r\n/g, "\n")), chunk).toBe(true);
    expect(pieces.map((p) => p.span.headings)).toEqual(split(lf, 60).map((p) => p.span.headings));
  });

  it("returns nothing for empty or whitespace-only input, and one chunk for a short text", () => {
    expect(split("", 100)).toEqual([]);
    expect(split(" \n\t\r\n  \n", 100)).toEqual([]);
    const one = split("  Hello there.  ", 100);
    expect(one).toHaveLength(1);
    expect(one[0]!.text).toBe("Hello there.");
  });

  it("rejects budgets it cannot honour", () => {
    expect(() => split("text", 4)).toThrow(RangeError);
    expect(() => split("text", 100, { overlapTokens: 100 })).toThrow(RangeError);
    expect(() => split("text", 100.5)).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

describe("parsing", () => {
  const BLOCK_TYPES = new Set([
    "paragraph",
    "heading",
    "code",
    "table",
    "tableRow",
    "list",
    "listItem",
    "blockquote",
    "html",
    "thematicBreak",
    "definition",
    "footnoteDefinition",
  ]);
  /** Block nodes with their offsets, not descending into inline content. */
  const blocks = (nodes: Nodes[], out: string[] = []) => {
    for (const n of nodes) {
      if (!BLOCK_TYPES.has(n.type)) continue;
      out.push(`${n.type} ${n.position!.start.offset} ${n.position!.end.offset}`);
      if ("children" in n && n.type !== "paragraph" && n.type !== "heading") blocks(n.children as Nodes[], out);
    }
    return out;
  };
  /** Block positions by a whole-document parse of the original: the reference. */
  const whole = (text: string, plain = false) =>
    blocks(
      fromMarkdown(text, {
        extensions: [gfm(), ...(plain ? [{ disable: { null: ["codeIndented"] } }] : [])],
        mdastExtensions: [gfmFromMarkdown()],
      }).children,
    );
  const ours = (text: string, plain = false) => blocks(parseMarkdown(text, { plain }).children);

  /** Blocks that open before a cut point and run past it, pieces far apart, constructs ending in odd places. */
  function tricky(): string {
    // Paragraphs whose skeleton stays long (punctuation is kept): several pieces' worth, with a safe cut before each.
    const filler = Array.from(
      { length: 400 },
      (_, i) => `Paragraph ${i}, with: punctuation; (brackets) [and] more - here!`,
    ).join("\n\n");
    return [
      "Setext title",
      "===",
      "",
      filler,
      "",
      "```bash",
      "echo start",
      "",
      "# a comment at column 0, after a blank line, inside the fence",
      "",
      filler,
      "```",
      "",
      "<!-- a comment",
      "",
      "Looks like a paragraph but is inside the comment",
      "",
      filler,
      "-->",
      "",
      "<script>",
      "",
      "var x = 1;",
      "",
      filler,
      "</script>",
      "",
      '      <Script src="indented.js">',
      "",
      filler,
      "      </script>",
      "",
      filler,
      "",
      "| a | b |",
      "|---|---|",
      "| 1 | 2 |",
      "",
      "- item",
      "",
      "  ```",
      "  code in an item",
      "",
      "Column 0 ends the item and its fence",
      "",
      "> quote",
      "",
      "Term",
      "---",
      "",
      "[ref]: https://example.com 'Title'",
      "",
      "[^1]: A footnote.",
      "",
      "~~~~",
      "```",
      "",
      filler,
      "~~~~",
      "",
      "    indented code",
      "",
      "Done.",
    ].join("\n");
  }

  it("finds the same blocks as a whole-document parse, though it reads a skeleton in pieces", () => {
    for (const text of [tricky(), notes, wiki.slice(0, 40_000), chat]) {
      expect(ours(text)).toEqual(whole(text));
      expect(ours(text, true)).toEqual(whole(text, true));
    }
  });

  it("finds the same blocks whatever inline content they hold, task list items starting with inline markup included", () => {
    const inline = [
      "Text with *emphasis*, **strong**, `code | with pipe`, ~~struck~~, <span>html</span>, a\\*b, &amp; and a hard  ",
      "break, www.example.com, https://example.com/x, mail@example.com, ![image](a.png) and [a link][ref] and [^1].",
      "",
      "- [ ] `code` first: the paragraph keeps its start",
      "- [x] plain text first: the paragraph starts after the space",
      "- [ ] **strong** first",
      "- [ ] [ref] first, a defined reference",
      "- [ ]  two spaces, then text",
      "",
      "> - [x] *emphasis* first, in a quote",
      ">   - [ ] nested `code`",
      "",
      "| a `b|c` | d \\| e |",
      "|---|---|",
      "| *1* | <b>2</b> |",
      "",
      "[ref]: https://example.com 'Title'",
      "",
      "[^1]: A footnote with `code`.",
    ].join("\n");
    for (const text of [inline, `${tricky()}\n\n${inline}`]) {
      expect(ours(text)).toEqual(whole(text));
      expect(ours(text, true)).toEqual(whole(text, true));
    }
  });

  it("keeps line structure and every construct's punctuation in the skeleton", () => {
    const text =
      '# Title with words\n\n<div class="note">\n\n| Column one | Column two |\n|---|---|\n\n</script> --> ?> ]]>\n- item text\n';
    const { text: skeleton, originalOffset } = markdownSkeleton(text);
    expect(skeleton.split("\n").length).toBe(text.split("\n").length);
    expect(skeleton.length).toBeLessThan(text.length);
    for (const marker of ["<div", "|---|---|", "</script>", "-->", "?>", "]]>", "- i", "# T"])
      expect(skeleton).toContain(marker);
    for (let k = 0; k < skeleton.length; k++)
      if (skeleton[k] !== text[originalOffset[k]!]) throw new Error(`skeleton ${k} maps to a different character`);
    expect(originalOffset[skeleton.length]).toBe(text.length);
  });
});

// ---------------------------------------------------------------------------
// Through the tier and the command line
// ---------------------------------------------------------------------------

describe("the structure tier from the command line", () => {
  const chunkCli = (...args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", "scripts/chunk.ts", ...args], {
      cwd: root,
      encoding: "utf8",
      timeout: 60_000,
    });

  it("npm run chunk -- FILE --tier structure --max-tokens N prints structure chunks with headings", () => {
    const file = join(root, "tests/fixtures/notes.md");
    const run = chunkCli(file, "--tier", "structure", "--max-tokens", "40");
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      tier: string;
      metadata: { method: string; max_tokens: number };
      chunks: Array<{
        text: string;
        metadata: { start: number; end: number; token_count: number; headings?: string[] };
      }>;
    };
    expect(result.tier).toBe("structure");
    expect(result.metadata.method).toBe("structure");
    expect(result.metadata.max_tokens).toBe(40);
    for (const chunk of result.chunks) {
      expect(chunk.metadata.token_count).toBe(reference(chunk.text));
      expect(chunk.metadata.token_count).toBeLessThanOrEqual(40);
      expect(chunk.text.includes(notes.slice(chunk.metadata.start, chunk.metadata.end))).toBe(true);
      expect(fencesClosed(chunk.text), chunk.text).toBe(true);
    }
    expect(result.chunks.find((c) => c.text.includes("| Changelog"))!.metadata.headings).toEqual([
      "Release checklist",
      "Owners",
    ]);
    // The same with the options before the file.
    const before = chunkCli("--max-tokens", "40", "--tier", "structure", file);
    expect(before.status, before.stderr).toBe(0);
    expect(JSON.parse(before.stdout)).toEqual(result);
  });

  it("chunks a PDF with the structure tier, pages included", () => {
    const run = chunkCli(join(root, "tests/fixtures/multipage.pdf"), "--tier", "structure", "--max-tokens", "64");
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      metadata: { method: string };
      chunks: Array<{
        text: string;
        metadata: { page_start: number; page_end: number; token_count: number; headings: string[] };
      }>;
    };
    expect(result.metadata.method).toBe("structure");
    expect(result.chunks.length).toBeGreaterThan(1);
    for (const chunk of result.chunks) {
      expect(chunk.metadata.token_count).toBeLessThanOrEqual(64);
      expect(chunk.metadata.page_start).toBeGreaterThanOrEqual(1);
      expect(chunk.metadata.page_end).toBeGreaterThanOrEqual(chunk.metadata.page_start);
      expect(Array.isArray(chunk.metadata.headings)).toBe(true);
    }
    expect(result.chunks[result.chunks.length - 1]!.metadata.page_end).toBe(4);
  });
});

describe("absurdly deep nesting", () => {
  it("estimates container depth from markers and indentation", () => {
    expect(containerDepth("plain\n- a\n  - b\n    - c\n")).toBe(3);
    expect(containerDepth("> > quote\n")).toBe(2);
    expect(containerDepth("**bold** and 3.5 apples\n")).toBe(0);
  });

  it("splits a document nested thousands deep recursively instead of overflowing the stack or hanging", () => {
    // 5,000 nested block quotes overflowed the parse's recursion; 1,000 nested list levels took over half a minute.
    for (const text of [
      "> ".repeat(5000) + "text\n",
      Array.from({ length: 400 }, (_, i) => `${"  ".repeat(i)}- item ${i}`).join("\n"),
    ]) {
      const spans = splitStructure(text, { maxTokens: 200, overlapTokens: 0 });
      expect(spans.length).toBeGreaterThan(0);
      for (const span of spans) expect(encode(text.slice(span.start, span.end)).length).toBe(span.tokenCount);
      expect(Math.max(...spans.map((s) => s.tokenCount))).toBeLessThanOrEqual(200);
    }
  });
});
