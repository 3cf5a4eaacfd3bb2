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
import type { Line } from "./lines";
import type { PdfPageContent, PdfTextItem, Rect } from "./types";

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
  spans: { left: number; right: number }[];
  /** Index of the table's first item in the page's content stream: where it stands among the page's blocks. */
  order: number;
}

/** A run of text on one baseline with no wider gap than a word space. */
interface Fragment {
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
interface Cell {
  fragments: Fragment[];
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Cells written left to right whose heights overlap. */
interface Row {
  cells: Cell[];
  top: number;
  bottom: number;
}

/** A gap wider than this share of the font size parts two cells: word spaces stay below half an em, even justified. */
const CELL_GAP_EM = 0.8;
/**
 * pdf.js writes the gap between two runs of text as a space item; one wider
 * than this share of the size parts two cells (a space is a quarter to half
 * an em, the half in italic and wide faces; within a line of prose a
 * producer writes its spaces into the run).
 */
const CELL_SPACE_EM = 0.7;
/** Baselines closer than this share of the size are one line. */
const SAME_LINE_EM = 0.45;
/** A cell's next line starts at most this many sizes below its last. */
const CELL_LINE_EM = 1.7;
/** Rows of a table follow each other within this many sizes. */
const ROW_GAP_EM = 2.5;
/** A cell of more lines than this is prose beside something, not a table cell. */
const CELL_MAX_LINES = 8;
const ASCENT_EM = 0.8;
const DESCENT_EM = 0.2;

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
    a.spans.every((column, k) => column.left < b.spans[k]!.right + 3 && column.right > b.spans[k]!.left - 3) &&
    a.spans.every((column, k) => k + 1 === a.columns || column.right < b.spans[k + 1]!.left + 2)
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

export function toFragments(items: PdfTextItem[], verticals: Rect[], monospace: Set<string>): Fragment[] {
  const even = justifiedItems(items);
  const fragments: Fragment[] = [];
  let open: (Fragment & { spaceDue: boolean }) | undefined;
  const close = () => {
    if (open) fragments.push({ ...open, text: open.text.replace(/\s+/g, " ").trim() });
    open = undefined;
  };
  items.forEach((item, i) => {
    const text = item.text.replace(/\u0000/g, "");
    // Code keeps its own alignment: set apart as code, never read as a table.
    if (!item.upright || monospace.has(item.font)) return close();
    if (text.trim() === "") {
      // pdf.js writes the gap between two cells as one wide space.
      if (open && item.width > CELL_SPACE_EM * item.size && !even.has(open.items.at(-1)!)) close();
      else if (open && text !== "") open.spaceDue = true;
      return;
    }
    const sameLine = open !== undefined && even.has(i) && even.has(open.items.at(-1)!);
    if (open && (sameLine || continues(open, item, verticals))) {
      const gap = item.x - open.right;
      const spaced = open.spaceDue || gap > 0.18 * item.size;
      open.text += (spaced && !/\s$/.test(open.text) && !/^\s/.test(text) ? " " : "") + text;
      open.right = Math.max(open.right, item.x + item.width);
      open.top = Math.max(open.top, item.y + ASCENT_EM * item.size);
      open.bottom = Math.min(open.bottom, item.y - DESCENT_EM * item.size);
      open.items.push(i);
      open.spaceDue = false;
      return;
    }
    close();
    open = {
      text,
      left: item.x,
      right: item.x + item.width,
      y: item.y,
      size: item.size,
      font: item.font,
      top: item.y + ASCENT_EM * item.size,
      bottom: item.y - DESCENT_EM * item.size,
      items: [i],
      spaceDue: false,
    };
  });
  close();
  return fragments.filter((f) => f.text !== "");
}

/**
 * Items of justified lines, which some producers write a few words at a
 * time: a line whose gaps are all one stretched space (within a tenth of an
 * em, under two ems, three or more gaps, or two beside a line set flush to
 * the same edges) and that has the same left and right edges as a line
 * next to it. A table's header may be spaced as evenly, but its rows below
 * are not; justified words are never cells.
 */
function justifiedItems(items: PdfTextItem[]): Set<number> {
  interface Run {
    items: number[];
    left: number;
    right: number;
    even: boolean;
  }
  const runs: Run[] = [];
  let current: number[] = [];
  const flush = () => {
    if (current.length === 0) return;
    const first = items[current[0]!]!;
    const last = items[current.at(-1)!]!;
    const gaps = current.slice(1).map((i, k) => items[i]!.x - (items[current[k]!]!.x + items[current[k]!]!.width));
    const size = first.size;
    const words = current.some((i) => /\p{L}{2}/u.test(items[i]!.text));
    const even =
      words && gaps.length >= 2 && Math.max(...gaps) - Math.min(...gaps) <= 0.1 * size && Math.max(...gaps) <= 2 * size;
    runs.push({ items: current, left: first.x, right: last.x + last.width, even });
    current = [];
  };
  items.forEach((item, i) => {
    if (item.text.trim() === "") return;
    const last = current.length > 0 ? items[current.at(-1)!]! : undefined;
    const follows =
      last !== undefined &&
      Math.abs(item.y - last.y) <= SAME_LINE_EM * item.size &&
      item.x >= last.x + last.width - 0.5 * item.size;
    if (!follows) flush();
    current.push(i);
  });
  flush();
  const flush2 = (a: Run | undefined, b: Run) =>
    a !== undefined &&
    Math.abs(a.left - b.left) <= 1.5 &&
    Math.abs(a.right - b.right) <= 1.5 &&
    (a.even || a.items.length === 1);
  const even = new Set<number>();
  runs.forEach((run, k) => {
    if (run.even && (flush2(runs[k - 1], run) || flush2(runs[k + 1], run))) for (const i of run.items) even.add(i);
  });
  return even;
}

function continues(open: Fragment, item: PdfTextItem, verticals: Rect[]): boolean {
  if (Math.abs(item.y - open.y) > SAME_LINE_EM * Math.max(item.size, open.size)) return false;
  const gap = item.x - open.right;
  if (gap > CELL_GAP_EM * Math.max(item.size, open.size) || gap < -open.size) return false;
  // A rule drawn between them parts two cells however close they sit.
  return !verticals.some(([l, b, r, t]) => l >= open.right - 1 && r <= item.x + 1 && b <= item.y && t >= item.y);
}

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

const isTabular = (row: Row) => row.cells.length >= 2 && row.cells.every((c) => c.fragments.length <= CELL_MAX_LINES);

/**
 * Runs of rows that may be a table: rows of two or more cells, one after
 * another down the page, with rows of one short cell (a row label, a row
 * whose other cells are empty) allowed between two of them.
 */
export function* tabularRuns(rows: Row[]): Generator<Row[]> {
  let run: Row[] = [];
  const flush = function* () {
    // A one-cell row at the end is what follows the table, not part of it.
    while (run.length > 0 && !isTabular(run.at(-1)!)) run.pop();
    if (run.filter(isTabular).length >= 2) yield run;
    run = [];
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
    } else if (follows && gap <= size && run.length > 0 && isRowLabel(row, run.filter(isTabular).at(-1)!)) {
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

/** Bullets and numbers in a column of their own are a list's markers, not a table's column. */
const MARKER =
  /^(?:[•◦▪▫‣⁃●○■□∙➢►▶✓✔❖\uf0b7\uf0a7\uf0d8\uf076\uf0fc\uf0a8\-–—*+·]|\(?\d{1,3}[.)]|\(?[a-z][.)]|\(?[ivx]{1,5}[.)])$/u;

export function toTable(run: Row[], horizontals: Rect[], verticals: Rect[] = []): Table | undefined {
  const most = Math.max(...run.map((r) => r.cells.length));
  const full = run.filter((r) => r.cells.length === most);
  // Column k spans from the leftmost to the rightmost edge of the k-th cell of every full row.
  let columns: Column[] = [];
  for (let k = 0; k < most; k++) {
    columns.push({
      left: Math.min(...full.map((r) => r.cells[k]!.left)),
      right: Math.max(...full.map((r) => r.cells[k]!.right)),
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
  const order = Math.min(...run.flatMap((r) => r.cells.flatMap((c) => c.fragments.flatMap((f) => f.items))));
  return {
    rows: placed,
    columns: columns.length,
    headerRows: header,
    lines: run.map(rowLine),
    spans: columns,
    order,
  };
}

interface Column {
  left: number;
  right: number;
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
  const top = Math.max(...run.map((r) => r.top));
  const bottom = Math.min(...run.map((r) => r.bottom));
  const left = Math.min(...run.flatMap((r) => r.cells.map((c) => c.left)));
  const right = Math.max(...run.flatMap((r) => r.cells.map((c) => c.right)));
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
    const spread = (edge: (c: Cell) => number) => Math.max(...cells.map(edge)) - Math.min(...cells.map(edge));
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
    const highest = Math.max(...here.map(centre));
    const midway = (highest + Math.max(...below.map(centre))) / 2;
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
  const fragments = row.cells.flatMap((c) => c.fragments);
  const first = fragments[0]!;
  return {
    text: row.cells.map(cellText).join(" "),
    raw: row.cells.map(cellText).join(" "),
    left: Math.min(...row.cells.map((c) => c.left)),
    right: Math.max(...row.cells.map((c) => c.right)),
    y: first.y,
    size: first.size,
    font: first.font,
    fontShare: 1,
    upright: true,
    monospace: false,
    top: row.top,
    bottom: row.bottom,
    order: Math.min(...fragments.flatMap((f) => f.items)),
  };
}
