import { headingText, oneLine } from "@/lib/extract/office/sections";

/**
 * A slide's content, wherever it was read from (PPTX or ODP), and the
 * Markdown it becomes: its title as a heading, its text boxes and tables in
 * reading order, its speaker notes under a marked sub-heading.
 */
export type PlacedBlock = { x: number; y: number } & (
  | { kind: "text"; paragraphs: { text: string; level: number; bullet: boolean }[] }
  | { kind: "table"; rows: string[][] }
  /** A chart's cached data: a header row of series names, a row per category. */
  | { kind: "chart"; title?: string; rows: string[][] }
  /** A picture's alt text. */
  | { kind: "image"; alt: string }
);

export interface SlideContent {
  title?: string;
  blocks: PlacedBlock[];
  /** Present when notes were asked for and the slide has them. */
  notes?: string;
}

/** The heading speaker notes are put under; the tests and the README name it. */
const NOTES_HEADING = "## Notes";

/**
 * Shapes whose tops are this close (as a share of the highest top seen, at
 * least one unit) are on one line and read left to right: two columns'
 * boxes are rarely placed at exactly the same height.
 */
const SAME_LINE = 0.02;

export function slideMarkdown(number: number, content: SlideContent): string {
  const title = content.title?.trim();
  const parts = [`# ${title ? headingText(title) : `Slide ${number}`}`];
  for (const block of readingOrder(content.blocks)) parts.push(blockMarkdown(block));
  if (content.notes?.trim()) parts.push(NOTES_HEADING, content.notes.trim());
  return parts.join("\n\n");
}

/** Top to bottom; shapes whose tops are within SAME_LINE of the line's first are one line, read left to right. */
function readingOrder<T extends { x: number; y: number }>(blocks: T[]): T[] {
  const byTop = [...blocks].sort((a, b) => a.y - b.y || a.x - b.x);
  const tolerance = Math.max(1, SAME_LINE * Math.max(0, ...blocks.map((b) => b.y)));
  const ordered: T[] = [];
  let line: T[] = [];
  for (const block of byTop) {
    if (line.length > 0 && block.y - line[0]!.y > tolerance) {
      ordered.push(...line.sort((a, b) => a.x - b.x));
      line = [];
    }
    line.push(block);
  }
  ordered.push(...line.sort((a, b) => a.x - b.x));
  return ordered;
}

function blockMarkdown(block: PlacedBlock): string {
  switch (block.kind) {
    case "table":
      return tableMarkdown(block.rows);
    case "chart":
      return `${block.title ? `Chart: ${oneLine(block.title)}` : "Chart"}\n\n${tableMarkdown(block.rows)}`;
    case "image":
      return `_(Image: ${oneLine(block.alt).replace(/[_*[\]\\]/g, "\\$&")})_`;
    case "text":
      return textMarkdown(block.paragraphs);
  }
}

function textMarkdown(paragraphs: { text: string; level: number; bullet: boolean }[]): string {
  let out = "";
  let previousBullet = false;
  for (const p of paragraphs) {
    const text = oneLine(p.text);
    if (p.bullet) {
      out += (out ? (previousBullet ? "\n" : "\n\n") : "") + `${"  ".repeat(p.level)}- ${text}`;
    } else {
      out += (out ? "\n\n" : "") + text.replace(/^([#>*+-]|\d+[.)])(\s)/, "\\$1$2");
    }
    previousBullet = p.bullet;
  }
  return out;
}

/** The first row is the header: slide tables are written with one (PowerPoint's "Header Row", on by default). */
function tableMarkdown(rows: string[][]): string {
  const width = Math.max(...rows.map((r) => r.length));
  const cell = (v: string | undefined) =>
    oneLine(v ?? "")
      .replace(/\\/g, "\\\\")
      .replace(/\|/g, "\\|");
  const line = (r: (string | undefined)[]) => `| ${Array.from({ length: width }, (_, i) => cell(r[i])).join(" | ")} |`;
  return [line(rows[0]!), line(Array<string>(width).fill("---")), ...rows.slice(1).map(line)].join("\n");
}
