/** What table recovery works with: text runs, cells, rows and columns on the page, and the table it gives. */
import type { Line } from "../lines";

export interface TableCell {
  text: string;
  /** First column (0-based) and how many it covers. */
  column: number;
  span: number;
  /** Rows it covers, downwards from its own (1 for most). */
  rowSpan: number;
}

export interface Table {
  /** Each row's cells, left to right; a column no cell covers is empty. */
  rows: TableCell[][];
  columns: number;
  /** Rows at the top that are its header (0 when none could be told). */
  headerRows: number;
  /** One line per row, for where the row is on the page. */
  lines: Line[];
  /** Each column's extent across the page, to tell a table continued on the next page. */
  extents: { left: number; right: number }[];
  /** Index of the table's first item in the page's content stream: where it stands among the page's blocks. */
  order: number;
}

/** A run of text on one baseline with no wider gap than a word space. */
export interface Fragment {
  text: string;
  left: number;
  right: number;
  y: number;
  size: number;
  font: string;
  top: number;
  bottom: number;
  items: number[];
}

/** Fragments written one under another: a cell's lines. */
export interface Cell {
  fragments: Fragment[];
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Cells written left to right whose heights overlap. */
export interface Row {
  cells: Cell[];
  top: number;
  bottom: number;
}

export interface Column {
  left: number;
  right: number;
}
