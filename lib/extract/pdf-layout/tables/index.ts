/**
 * Tables from a page's positioned text, before it is read as lines: a PDF
 * has no table, only text placed in columns (and often rules drawn between
 * them). Producers (Chromium, Word, LaTeX) write a table's cells in order,
 * row by row and each cell's lines together, so the page's content stream
 * already holds the structure; positions confirm it:
 *
 * 1. fragments: runs of text on one baseline, cut where a gap is wider than
 *    a word space or a vertical rule runs between two items;
 * 2. cells: fragments written one under another (a cell's wrapped lines);
 * 3. rows: cells written left to right whose heights overlap (top-, middle-
 *    or bottom-aligned alike);
 * 4. a table: consecutive rows of two or more cells whose cells line up in
 *    columns. Columns come from the rows with the most cells; a cell that
 *    covers more than one column spans them.
 *
 * Prose in two page columns never forms rows: its lines are written a whole
 * column after the other, not side by side. Whatever is not in a table goes
 * on to line and block recovery as before.
 */
import type { PdfPageContent, PdfTextItem, Rect } from "../types";
import { toTable } from "./columns";
import { toFragments } from "./fragments";
import { isTabular, tabularRuns, toCells, toRows } from "./rows";
import type { Row, Table } from "./types";

export type { Table, TableCell } from "./types";

/** A page's tables and the items they took; `header`, a row that may be the header of a table the next page holds. */
export interface PageTables {
  tables: Table[];
  taken: Set<number>;
  header?: { table: Table; items: number[] };
}

export function findTables(page: PdfPageContent): PageTables {
  const monospace = new Set(page.monospaceFonts);
  const verticals = (page.rules ?? []).filter(([l, b, r, t]) => t - b > 3 * (r - l));
  const horizontals = joinLevel((page.rules ?? []).filter(([l, b, r, t]) => r - l > 3 * (t - b)));
  const fragments = toFragments(page.items, verticals, monospace);
  const rows = toRows(toCells(fragments, horizontals));
  const tables: Table[] = [];
  const taken = new Set<number>();
  for (const run of tabularRuns(rows)) {
    const table = toTable(run, horizontals, verticals);
    if (!table) continue;
    tables.push(table);
    for (const i of itemsOf(run)) taken.add(i);
  }
  // The lowest row on the page, of three or more cells and in no table: a header a page break may have left behind.
  const last = rows.reduce<Row | undefined>((low, row) => (!low || row.bottom < low.bottom ? row : low), undefined);
  const items = last ? itemsOf([last]) : [];
  if (last && last.cells.length >= 3 && isTabular(last) && !items.some((i) => taken.has(i))) {
    const table = toTable([last], horizontals, verticals);
    if (table) return { tables, taken, header: { table, items } };
  }
  return { tables, taken };
}

/** Level rules drawn piece by piece (a border under each cell) joined into the lines they make. */
function joinLevel(rules: Rect[]): Rect[] {
  const sorted = [...rules].sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  const joined: Rect[] = [];
  for (const rule of sorted) {
    const last = joined.at(-1);
    if (last && Math.abs(rule[1] - last[1]) <= 1 && rule[0] <= last[2] + 2) {
      joined[joined.length - 1] = [
        last[0],
        Math.min(last[1], rule[1]),
        Math.max(last[2], rule[2]),
        Math.max(last[3], rule[3]),
      ];
    } else joined.push(rule);
  }
  return joined;
}

const itemsOf = (rows: Row[]) => rows.flatMap((r) => r.cells.flatMap((c) => c.fragments.flatMap((f) => f.items)));

/**
 * A page's header row goes with the table the next page starts with when
 * their columns match and nothing but a running header comes before that
 * table; otherwise it stays text.
 */
export function adoptHeaders(pages: PdfPageContent[], found: PageTables[]): void {
  found.forEach((page, i) => {
    const next = found[i + 1];
    if (!page.header || !next || next.tables.length === 0) return;
    const first = next.tables.reduce((a, b) => (b.order < a.order ? b : a));
    const [, bottom, , top] = pages[i + 1]!.box;
    const body = top - 0.12 * (top - bottom);
    const before = pages[i + 1]!.items.slice(0, first.order).some((item) => item.text.trim() !== "" && item.y < body);
    if (before || !sameColumns(page.header.table, first)) return;
    page.tables.push(page.header.table);
    for (const item of page.header.items) page.taken.add(item);
  });
}

/** Same count, each column over the other's (a header centred over numbers set right overlaps them), in order. */
export function sameColumns(a: Table, b: Table): boolean {
  return (
    a.columns === b.columns &&
    a.extents.every((column, k) => column.left < b.extents[k]!.right + 3 && column.right > b.extents[k]!.left - 3) &&
    a.extents.every((column, k) => k + 1 === a.columns || column.right < b.extents[k + 1]!.left + 2)
  );
}

/** The items left for line recovery, with their indices in the page's content stream. */
export function leftOver(
  page: PdfPageContent,
  { tables, taken }: PageTables,
): { rest: PdfTextItem[]; restOrder: number[] } {
  if (tables.length === 0) return { rest: page.items, restOrder: page.items.map((_, i) => i) };
  // Whitespace items between cells belong to the table too: left behind, they would only separate nothing.
  const first = Math.min(...tables.map((t) => t.order));
  const inside = (i: number) => taken.has(i - 1) || taken.has(i + 1) || tables.some((t) => t.order === i);
  const rest: PdfTextItem[] = [];
  const restOrder: number[] = [];
  page.items.forEach((item, i) => {
    if (taken.has(i) || (item.text.trim() === "" && i > first && inside(i))) return;
    rest.push(item);
    restOrder.push(i);
  });
  return { rest, restOrder };
}
