/** Fragments into cells (a cell's wrapped lines), cells into rows, and rows into runs that may be a table. */
import type { Rect } from "../types";
import { SAME_LINE_EM } from "../lines";
import type { Cell, Fragment, Row } from "./types";

/** A cell's next line starts at most this many sizes below its last. */
const CELL_LINE_EM = 1.7;
/** Rows of a table follow each other within this many sizes. */
const ROW_GAP_EM = 2.5;
/** A cell of more lines than this is prose beside something, not a table cell. */
const CELL_MAX_LINES = 8;

/** Fragments written one under another, overlapping across, join into one cell; a rule between them keeps them apart. */
export function toCells(fragments: Fragment[], horizontals: Rect[]): Cell[] {
  const cells: Cell[] = [];
  let cell: Cell | undefined;
  for (const f of fragments) {
    const last = cell?.fragments.at(-1);
    const below = last !== undefined && last.y - f.y > SAME_LINE_EM * f.size && last.y - f.y <= CELL_LINE_EM * f.size;
    const overlaps = cell !== undefined && f.left < cell.right && f.right > cell.left;
    const ruled =
      last !== undefined &&
      horizontals.some(([l, b, r, t]) => b < last.bottom + 1 && t > f.top - 1 && l < f.right && r > f.left);
    if (cell && below && overlaps && !ruled) {
      cell.fragments.push(f);
      cell.left = Math.min(cell.left, f.left);
      cell.right = Math.max(cell.right, f.right);
      cell.bottom = Math.min(cell.bottom, f.bottom);
      continue;
    }
    cell = { fragments: [f], left: f.left, right: f.right, top: f.top, bottom: f.bottom };
    cells.push(cell);
  }
  return cells;
}

/** Cells written left to right with overlapping heights form a row. */
export function toRows(cells: Cell[]): Row[] {
  const rows: Row[] = [];
  let row: Row | undefined;
  for (const cell of cells) {
    const last = row?.cells.at(-1);
    const size = cell.fragments[0]!.size;
    const rightwards = last !== undefined && cell.left >= last.right - 0.3 * size;
    // Any overlap: a cell centred over two rows (spanning them) overlaps each by less than a line.
    const overlap = row !== undefined && Math.min(row.top, cell.top) - Math.max(row.bottom, cell.bottom) > 0;
    if (row && rightwards && overlap) {
      row.cells.push(cell);
      row.top = Math.max(row.top, cell.top);
      row.bottom = Math.min(row.bottom, cell.bottom);
      continue;
    }
    row = { cells: [cell], top: cell.top, bottom: cell.bottom };
    rows.push(row);
  }
  return rows;
}

export const isTabular = (row: Row) =>
  row.cells.length >= 2 && row.cells.every((c) => c.fragments.length <= CELL_MAX_LINES);

/**
 * Runs of rows that may be a table: rows of two or more cells, one after
 * another down the page, with rows of one short cell (a row label, a row
 * whose other cells are empty) allowed between two of them.
 */
export function* tabularRuns(rows: Row[]): Generator<Row[]> {
  let run: Row[] = [];
  // The run's last row of two or more cells, and how many it has: kept, not searched for, so a run stays linear.
  let lastTabular: Row | undefined;
  let tabular = 0;
  const flush = function* () {
    // A one-cell row at the end is what follows the table, not part of it.
    while (run.length > 0 && !isTabular(run.at(-1)!)) run.pop();
    if (tabular >= 2) yield run;
    run = [];
    lastTabular = undefined;
    tabular = 0;
  };
  for (const row of rows) {
    const prev = run.at(-1);
    const size = row.cells[0]!.fragments[0]!.size;
    const gap = prev === undefined ? Infinity : prev.bottom - row.top;
    // A table is set in one size: a heading in larger type beside the next column's text is not its row.
    const sized = prev === undefined || Math.abs(rowSize(row) - rowSize(prev)) <= 0.15 * rowSize(prev);
    const follows = prev !== undefined && sized && row.top <= prev.bottom + 0.5 * size && gap <= ROW_GAP_EM * size;
    if (isTabular(row)) {
      if (!follows) yield* flush();
      run.push(row);
      lastTabular = row;
      tabular++;
    } else if (follows && gap <= size && lastTabular && isRowLabel(row, lastTabular)) {
      run.push(row);
    } else {
      yield* flush();
    }
  }
  yield* flush();
}

/** The size most of a row's text is set in. */
function rowSize(row: Row): number {
  const sizes = row.cells.flatMap((c) => c.fragments.map((f) => f.size)).sort((a, b) => a - b);
  return sizes[sizes.length >> 1]!;
}

/** A row of one short cell at a row's distance, within the first column or one column: a label of the rows below it. */
function isRowLabel(row: Row, above: Row): boolean {
  const cell = row.cells[0]!;
  if (cell.fragments.length > 2) return false;
  const under = above.cells.filter((c) => c.left < cell.right && c.right > cell.left);
  return under.length <= 1;
}
