/**
 * A table as Markdown: a GFM pipe table when every cell covers one column
 * and one row (what every Markdown reader and the structure tier's row
 * splitting understand), an HTML table when a cell spans (GFM has no way to
 * say so: a spanning cell would shift every cell after it). One row per
 * line either way, no blank line inside, so the table is one block and a
 * chunker can split it between rows with its header repeated.
 */
import type { Table, TableCell } from "./tables";

/** A table part's text and where each of its rows starts in it. */
export interface RenderedTable {
  text: string;
  starts: number[];
}

export interface TableParts {
  /** Another part follows on the next page: leave the table open. */
  continues: boolean;
  /** This part continues the previous page's table: its header rows, repeated, are dropped. */
  continuing: boolean;
  /** The whole table (all its parts) is written as HTML. */
  html: boolean;
  /** The rows below the header in all its parts. */
  body: TableCell[][];
}

export const spans = (table: Table) => table.rows.some((row) => row.some((c) => c.span > 1 || c.rowSpan > 1));

/** Rows a continued part shows: without the header the previous part already had. */
export function shownRows(table: Table, continuing: boolean, header: string[][]): TableCell[][] {
  if (!continuing) return table.rows;
  const repeated =
    table.rows.length > header.length &&
    header.every((row, r) => row.join("\u0000") === table.rows[r]!.map((c) => c.text).join("\u0000"));
  return repeated ? table.rows.slice(header.length) : table.rows;
}

export function renderTable(table: Table, rows: TableCell[][], parts: TableParts): RenderedTable {
  return parts.html ? html(table, rows, parts) : pipes(table, rows, parts);
}

function pipes(table: Table, rows: TableCell[][], parts: TableParts): RenderedTable {
  const lines: string[] = [];
  const starts: number[] = [];
  let at = 0;
  rows.forEach((row, r) => {
    starts.push(at);
    const cells = Array.from({ length: table.columns }, (_, k) => row.find((c) => c.column === k)?.text ?? "");
    let line = `| ${cells.map(escapePipe).join(" | ")} |`;
    if (r === 0 && !parts.continuing) line += `\n${delimiterRow(table.columns, parts.body)}`;
    lines.push(line);
    at += line.length + 1;
  });
  return { text: lines.join("\n"), starts };
}

/** `---`, or `---:` for a column whose body cells (in every part of the table) are numbers: they are set flush right. */
function delimiterRow(columns: number, body: TableCell[][]): string {
  const cells = Array.from({ length: columns }, (_, k) => {
    const values = body.map((row) => row.find((c) => c.column === k)?.text ?? "").filter((t) => t !== "");
    const numeric = values.length > 0 && values.filter(isNumber).length >= 0.8 * values.length;
    return numeric ? "---:" : "---";
  });
  return `| ${cells.join(" | ")} |`;
}

const isNumber = (text: string) => /^[-+−–(]?[$€£¥]?\s?[\d.,]+%?\)?$|^[-–—]$/u.test(text.trim());

function escapePipe(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|");
}

function html(table: Table, rows: TableCell[][], parts: TableParts): RenderedTable {
  const header = parts.continuing ? 0 : Math.min(table.headerRows, rows.length);
  const lines: string[] = [];
  const starts: number[] = [];
  let at = 0;
  const push = (line: string, startsRow: boolean) => {
    if (startsRow) starts.push(at);
    lines.push(line);
    at += line.length + 1;
  };
  // Columns a cell above still covers, by row: no cell of their own is written there.
  const covered = new Map<number, Set<number>>();
  rows.forEach((row, r) => {
    const tag = r < header ? "th" : "td";
    let cells = "";
    for (let k = 0; k < table.columns;) {
      const cell = row.find((c) => c.column === k);
      if (!cell) {
        if (!covered.get(r)?.has(k)) cells += `<${tag}></${tag}>`;
        k++;
        continue;
      }
      for (let below = 1; below < cell.rowSpan; below++) {
        const set = covered.get(r + below) ?? new Set<number>();
        for (let c = k; c < k + cell.span; c++) set.add(c);
        covered.set(r + below, set);
      }
      const span =
        (cell.span > 1 ? ` colspan="${cell.span}"` : "") + (cell.rowSpan > 1 ? ` rowspan="${cell.rowSpan}"` : "");
      cells += `<${tag}${span}>${escapeHtml(cell.text)}</${tag}>`;
      k += cell.span;
    }
    const opening = [
      ...(r === 0 && !parts.continuing ? ["<table>"] : []),
      ...(r === 0 && header > 0 ? ["<thead>"] : []),
      ...(r === header && r > 0 ? ["</thead>"] : []),
      ...(r === header && !(parts.continuing && r === 0) ? ["<tbody>"] : []),
    ];
    // A row's range starts at the tags that open it, so the first row covers the table's start.
    push([...opening, `<tr>${cells}</tr>`].join("\n"), true);
  });
  if (!parts.continues) {
    const closing = header >= rows.length ? ["</thead>", "</table>"] : ["</tbody>", "</table>"];
    lines[lines.length - 1] += `\n${closing.join("\n")}`;
  }
  return { text: lines.join("\n"), starts };
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
