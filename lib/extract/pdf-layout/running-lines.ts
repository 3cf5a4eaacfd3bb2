/**
 * Running headers, footers and page numbers: lines near the top or bottom
 * edge that repeat from page to page (or count pages), dropped from the text.
 */
import { type BodyStyle, argmax } from "./body-style";
import type { PdfPageContent } from "./types";
import type { Line } from "./lines";

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
export function dropRunningLines(lined: Line[][], pages: PdfPageContent[], body: BodyStyle): Line[][] {
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
