/** A run of rows into a table: its columns (from text or drawn rules), each cell's place and span, its header. */
import type { Line } from "../lines";
import type { Rect } from "../types";
import { isTabular } from "./rows";
import type { Cell, Column, Row, Table, TableCell } from "./types";

/** Bullets and numbers in a column of their own are a list's markers, not a table's column. */
const MARKER =
  /^(?:[•◦▪▫‣⁃●○■□∙➢►▶✓✔❖\uf0b7\uf0a7\uf0d8\uf076\uf0fc\uf0a8\-–—*+·]|\(?\d{1,3}[.)]|\(?[a-z][.)]|\(?[ivx]{1,5}[.)])$/u;

export function toTable(run: Row[], horizontals: Rect[], verticals: Rect[]): Table | undefined {
  const most = greatest(run.map((r) => r.cells.length));
  const full = run.filter((r) => r.cells.length === most);
  // Column k spans from the leftmost to the rightmost edge of the k-th cell of every full row.
  let columns: Column[] = [];
  for (let k = 0; k < most; k++) {
    columns.push({
      left: least(full.map((r) => r.cells[k]!.left)),
      right: greatest(full.map((r) => r.cells[k]!.right)),
    });
  }
  for (let k = 1; k < most; k++) if (columns[k]!.left < columns[k - 1]!.right) return undefined;
  // Drawn between the columns, rules say exactly where each one is; text set right or centred only suggests it.
  const ruled = ruledColumns(run, verticals);
  if (ruled && ruled.length >= most) columns = ruled;
  const tabular = run.filter(isTabular);
  const underlined = horizontals.some(([l, , r]) => l <= columns[0]!.left + 2 && r >= columns.at(-1)!.right - 2);
  // Two rows of a table agree on their cells; two lines of prose (words set apart) rarely do. Rules settle it.
  if (run.length > 1 && full.length < 2 && !ruled && !underlined) return undefined;
  if (most === 2) {
    // Two columns is the weakest evidence: a list with its markers set apart, or two short lines side by side, look alike.
    const markers = run.every((r) => MARKER.test(r.cells[0]!.fragments[0]!.text));
    if (markers || (tabular.length < 3 && !underlined)) return undefined;
  }
  const zones = columnZones(columns, full);
  const fits = run.map((row) => placeCells(row, columns, zones));
  // Below its header a table's cells fall into its columns; prose that only looks tabular does not.
  const body = fits.slice(2);
  const misfits = body.reduce((n, fit) => n + fit.misfits, 0);
  if (misfits > 0.2 * body.reduce((n, fit) => n + fit.cells.length, 0)) return undefined;
  const placed = fits.map((fit) => fit.cells);
  widenGroupHeaders(run, placed, columns);
  markRowSpans(run, placed, columns, horizontals);
  const header = headerRows(placed);
  // Under a header that groups columns, the second row names only the grouped ones: the first row's others reach down.
  if (header === 2) {
    for (const cell of placed[0]!)
      if (cell.span === 1 && !placed[1]!.some((c) => c.column === cell.column)) cell.rowSpan = 2;
  }
  // Rows, cells and fragments are made in stream order: the first item of the first is the table's first.
  const order = run[0]!.cells[0]!.fragments[0]!.items[0]!;
  return {
    rows: placed,
    columns: columns.length,
    headerRows: header,
    lines: run.map(rowLine),
    extents: columns,
    order,
  };
}

/**
 * A row's cells in the table's columns: each goes to the columns it covers,
 * or, set in the gap between two, to the nearest; never left of a cell
 * before it (a header centred over a column of numbers set right can sit
 * nearer the column before), and with no column left, into the cell before.
 */
function placeCells(row: Row, columns: Column[], zones: number[]): { cells: TableCell[]; misfits: number } {
  const placed: TableCell[] = [];
  let misfits = 0;
  let next = 0;
  for (const cell of row.cells) {
    const size = cell.fragments[0]!.size;
    const covered = columns.flatMap((c, k) =>
      Math.min(c.right, cell.right) - Math.max(c.left, cell.left) > 0.1 * size ? [k] : [],
    );
    const centre = (cell.left + cell.right) / 2;
    const own = covered[0] ?? zoneOf(zones, centre);
    const first = Math.max(next, own);
    const last = Math.max(first, covered.at(-1) ?? first);
    // Across two columns, or pushed past a cell before it: a cell that does not fall into the columns.
    if (covered.length > 1 || first !== own) misfits++;
    if (first >= columns.length) {
      placed.at(-1)!.text += ` ${cellText(cell)}`;
      continue;
    }
    placed.push({ text: cellText(cell), column: first, span: last - first + 1, rowSpan: 1 });
    next = last + 1;
  }
  return { cells: placed, misfits };
}

/**
 * Columns from rules drawn upright through the table: each pair of
 * neighbouring rules (the table's own edges where its border is not drawn)
 * bounds a column. Undefined when fewer than one inner rule is drawn.
 */
function ruledColumns(run: Row[], verticals: Rect[]): Column[] | undefined {
  const top = greatest(run.map((r) => r.top));
  const bottom = least(run.map((r) => r.bottom));
  const left = least(run.flatMap((r) => r.cells.map((c) => c.left)));
  const right = greatest(run.flatMap((r) => r.cells.map((c) => c.right)));
  const xs = verticals
    .filter(([l, b, r, t]) => b < top && t > bottom && r > left - 12 && l < right + 12)
    .map(([l, , r]) => (l + r) / 2)
    .sort((a, b) => a - b);
  const edges: number[] = [];
  for (const x of xs) if (edges.length === 0 || x - edges.at(-1)! > 2) edges.push(x);
  const inner = edges.filter((x) => x > left + 2 && x < right - 2);
  if (inner.length === 0) return undefined;
  const bounds = [Math.min(left, edges[0]!), ...inner, Math.max(right, edges.at(-1)!)];
  return bounds.slice(1).map((x, k) => ({ left: bounds[k]!, right: x }));
}

/**
 * A header cell with empty columns after it in its row, reaching out past
 * its own column over cells of the row below: it groups those columns ("Revenue"
 * over "2024" and "2025"), so it spans them.
 */
function widenGroupHeaders(run: Row[], rows: TableCell[][], columns: Column[]): void {
  if (rows.length < 3) return;
  const below = rows[1]!;
  rows[0]!.forEach((cell, k) => {
    const source = run[0]!.cells[k]!;
    const end = rows[0]![k + 1]?.column ?? columns.length;
    const reach = source.right > columns[cell.column]!.right + source.fragments[0]!.size;
    const under = below.filter((c) => c.column >= cell.column && c.column < end).length;
    if (end > cell.column + cell.span && reach && under >= 2) cell.span = end - cell.column;
  });
}

/**
 * Where each column's box ends and the next one's begins, for cells set in
 * the gap between their texts (a header centred over a column). A column
 * of numbers set flush right fills its box from the right, so its box
 * reaches back nearly to the column before; text set flush left fills
 * its box from the left. Between two of a kind, or unknown, the middle.
 */
function columnZones(columns: Column[], full: Row[]): number[] {
  const align = columns.map((_, k) => {
    const cells = full.map((r) => r.cells[k]!);
    const spread = (edge: (c: Cell) => number) => greatest(cells.map(edge)) - least(cells.map(edge));
    const numbers = cells.filter((c) => NUMBER.test(cellText(c))).length >= 0.8 * cells.length;
    const right = spread((c) => c.right) <= 1 && (spread((c) => c.left) > 1 || numbers);
    const left = spread((c) => c.left) <= 1 && !right;
    return right ? "right" : left ? "left" : "centre";
  });
  return columns.slice(1).map((column, k) => {
    const before = columns[k]!;
    const gap = column.left - before.right;
    if (align[k + 1] === "right" && align[k] !== "left") return before.right + 0.15 * gap;
    if (align[k] === "left" && align[k + 1] !== "right") return column.left - 0.15 * gap;
    return before.right + 0.5 * gap;
  });
}

const NUMBER = /^[-+−–(]?[$€£¥]?\s?[\d.,]+%?\)?$/u;

/** The column whose box holds `x`, by the boundaries between boxes. */
function zoneOf(zones: number[], x: number): number {
  const k = zones.findIndex((boundary) => x < boundary);
  return k === -1 ? zones.length : k;
}

/**
 * A cell set lower than the rest of its row, halfway down to the next row,
 * where that row has nothing in its columns, spans both rows: a cell
 * spanning two rows is centred on them (top-aligned ones are not told).
 */
function markRowSpans(run: Row[], rows: TableCell[][], columns: Column[], horizontals: Rect[]): void {
  const centre = (cell: Cell) => (cell.top + cell.bottom) / 2;
  for (let r = 0; r + 1 < run.length; r++) {
    const here = run[r]!.cells;
    const below = run[r + 1]!.cells;
    const highest = greatest(here.map(centre));
    const midway = (highest + greatest(below.map(centre))) / 2;
    // Rules drawn between the two rows: where one is missing under a cell, the cell goes on down.
    const between = horizontals.filter(([, b, , t]) => b < run[r]!.bottom + 1 && t > run[r + 1]!.top - 1);
    rows[r]!.forEach((cell, k) => {
      const source = here[k]!;
      const size = source.fragments[0]!.size;
      const free = !rows[r + 1]!.some((c) => c.column < cell.column + cell.span && c.column + c.span > cell.column);
      const lowered = centre(source) < highest - 0.3 * size && Math.abs(centre(source) - midway) < 0.3 * size;
      const { left, right } = { left: columns[cell.column]!.left, right: columns[cell.column + cell.span - 1]!.right };
      const open =
        between.length > 0 && !between.some(([l, , r2]) => l < (left + right) / 2 && r2 > (left + right) / 2);
      if ((lowered || open) && free) cell.rowSpan = 2;
    });
  }
}

/** The header: the first row, and the next when the first groups columns under a spanning cell. */
function headerRows(rows: TableCell[][]): number {
  if (rows[0]!.some((c) => c.span > 1) && rows.length > 2 && rows[1]!.every((c) => c.span === 1)) return 2;
  return 1;
}

/** A cell's lines joined; a word hyphenated at a line end is joined whole. */
function cellText(cell: Cell): string {
  let text = "";
  for (const f of cell.fragments) {
    if (text === "") text = f.text;
    else if (/\p{Ll}-$/u.test(text) && /^\p{Ll}/u.test(f.text)) text = text.slice(0, -1) + f.text;
    else text += ` ${f.text}`;
  }
  return text;
}

/** A row as one line of the page: its extent, and its cells' text for the document's words. */
function rowLine(row: Row): Line {
  const first = row.cells[0]!.fragments[0]!;
  const text = row.cells.map(cellText).join(" ");
  return {
    text,
    raw: text,
    left: least(row.cells.map((c) => c.left)),
    right: greatest(row.cells.map((c) => c.right)),
    y: first.y,
    size: first.size,
    font: first.font,
    fontShare: 1,
    upright: true,
    monospace: false,
    top: row.top,
    bottom: row.bottom,
    order: first.items[0]!,
  };
}

/** Least and greatest of a list without spreading it into arguments: a table can have more cells than a call takes. */
const least = (values: number[]) => values.reduce((a, b) => Math.min(a, b), Infinity);
const greatest = (values: number[]) => values.reduce((a, b) => Math.max(a, b), -Infinity);
