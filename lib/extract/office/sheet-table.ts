import { failures } from "@/lib/extract/failures";
import { headingText, oneLine } from "@/lib/extract/office/sections";

/**
 * A sheet as read from XLSX, ODS or CSV, and how it becomes Markdown: one
 * GFM table of its used range under a heading with its name. The structure
 * tier splits a long table by rows and repeats its header row in every chunk
 * (lib/chunking/structure/units.ts), so the table is written whole here.
 */
export interface SheetCells {
  name: string;
  /** row → column → value (0-based), non-empty values only. */
  cells: Map<number, Map<number, string>>;
  /** Merged ranges (inclusive, 0-based): the top-left cell's value stands for all of them. */
  merges: CellRange[];
}

export interface CellRange {
  r0: number;
  c0: number;
  r1: number;
  c1: number;
}

/** Rows of a sheet counted as one page for the free quota and prices: about what one printed page holds. */
export const ROWS_PER_PAGE = 50;

export interface SheetTable {
  /** The table under its heading; empty when the sheet has no values. */
  markdown: string;
  /** Rows of data (the header row not counted). */
  dataRows: number;
}

/**
 * Empty rows and columns are dropped (a used range is often padded by
 * formatting, and ODS writes trailing rows as one repeated empty row). Merged
 * cells repeat their value in every row and column of the merge that is kept,
 * so a row cut out of a split table still says which group it belongs to.
 *
 * A first row holding one value over a wider table is its title, written as
 * a line above the table. The header: the (next) first row is the header when there is a row below it and
 * each of its filled cells is text rather than a number, a date or a boolean
 * (how spreadsheets are written: labels over values). Otherwise the table is
 * given the sheet's own column letters (A, B, C, ...) as its header, and the
 * first row is data.
 *
 * `maxCells` bounds the table (rows × columns after dropping empty ones):
 * past it the sheet is refused rather than written, so a sheet of scattered
 * cells (A1 and XFD1048576) cannot make a grid of billions.
 */
export function sheetTable(sheet: SheetCells, maxCells: number): SheetTable {
  const rows = [...sheet.cells.keys()].sort((a, b) => a - b);
  const columnSet = new Set<number>();
  for (const row of sheet.cells.values()) for (const column of row.keys()) columnSet.add(column);
  const columns = [...columnSet].sort((a, b) => a - b);
  if (rows.length === 0 || columns.length === 0) return { markdown: "", dataRows: 0 };
  if (rows.length * columns.length > maxCells)
    throw failures.sheetTooLarge(sheet.name, rows.length, columns.length, maxCells);

  // A title over the table (one cell in the first row, often merged across it) is written above the table.
  const caption =
    rows.length > 2 && columns.length > 1 && sheet.cells.get(rows[0]!)!.size === 1
      ? [...sheet.cells.get(rows[0]!)!.values()][0]!
      : undefined;
  const kept = caption === undefined ? rows : rows.slice(1);
  const grid = kept.map((r) => columns.map((c) => sheet.cells.get(r)?.get(c) ?? ""));
  fillMerges(grid, kept, columns, sheet);

  const first = grid[0]!;
  const hasHeader = grid.length > 1 && first.some((v) => v !== "") && first.every((v) => v === "" || isLabel(v));
  const header = hasHeader ? first : columns.map(columnName);
  const body = hasHeader ? grid.slice(1) : grid;

  const title = caption === undefined ? [] : [oneLine(caption).replace(/^([#>*+|-]|\d+[.)])/, "\\$1"), ""];
  const lines = [
    `# ${headingText(sheet.name)}`,
    "",
    ...title,
    row(header),
    row(header.map(() => "---")),
    ...body.map(row),
  ];
  return { markdown: lines.join("\n"), dataRows: body.length };
}

function row(values: string[]): string {
  return `| ${values.map((v) => oneLine(v).replace(/\\/g, "\\\\").replace(/\|/g, "\\|")).join(" | ")} |`;
}

/** Only over kept rows and columns (binary search into them): a merge over a million empty rows costs nothing. */
function fillMerges(grid: string[][], rows: number[], columns: number[], sheet: SheetCells): void {
  for (const merge of sheet.merges) {
    const value = sheet.cells.get(merge.r0)?.get(merge.c0);
    if (value === undefined) continue;
    for (let i = lowerBound(rows, merge.r0); i < rows.length && rows[i]! <= merge.r1; i++)
      for (let j = lowerBound(columns, merge.c0); j < columns.length && columns[j]! <= merge.c1; j++)
        if (grid[i]![j] === "") grid[i]![j] = value;
  }
}

function lowerBound(sorted: number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const NUMBER_LIKE = /^[-+(]?[$€£¥]?\s*[\d.,\s]+%?\)?$/;
const DATE_LIKE = /^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}([ T]\d{1,2}:\d{2}(:\d{2})?)?$/;
const BOOLEAN_LIKE = /^(true|false)$/i;

function isLabel(value: string): boolean {
  const v = value.trim();
  return !NUMBER_LIKE.test(v) && !DATE_LIKE.test(v) && !BOOLEAN_LIKE.test(v);
}

/** 0 → "A", 25 → "Z", 26 → "AA". */
function columnName(index: number): string {
  let name = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** "AA" → 26. */
function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/** "B3" → { row: 2, column: 1 }; undefined for anything else. */
export function cellRef(ref: string): { row: number; column: number } | undefined {
  const match = /^\$?([A-Za-z]{1,3})\$?(\d{1,7})$/.exec(ref);
  if (!match) return undefined;
  return { row: Number(match[2]) - 1, column: columnIndex(match[1]!) };
}

/** Adds a value, counting it against the document's budget of stored cells. */
export class CellCounter {
  private stored = 0;
  constructor(
    readonly max: number,
    private readonly onExcess: () => Error,
  ) {}
  put(sheet: SheetCells, rowIndex: number, column: number, value: string): void {
    if (value === "") return;
    if (++this.stored > this.max) throw this.onExcess();
    let row = sheet.cells.get(rowIndex);
    if (!row) sheet.cells.set(rowIndex, (row = new Map<number, string>()));
    row.set(column, value);
  }
}
