/**
 * PDF text items → Markdown-ish text, page by page. pdf.js gives positioned
 * runs of text (and the rules and shapes it draws), not structure; this
 * recovers what a reader sees: tables from cells written side by side,
 * lines from shared baselines, paragraphs from vertical gaps and indents,
 * headings from font size against the body text (or a different font at
 * body size), list items from their markers (typed, or drawn as shapes),
 * code from monospaced lines, and drops running headers, footers and page
 * numbers at the page edges. Pure: no pdf.js here, so it is tested on
 * made-up items. One module per step: tables, lines, the body style,
 * running lines, blocks, headings, and rendering them.
 */
import type { PageBox } from "@/lib/extract/types";
import type { PageLayout, PdfPageContent } from "./types";
import { type Block, pageBlocks, toBlocks } from "./blocks";
import { bodyStyle, leadingBySize } from "./body-style";
import { type Footnote, splitFootnotes } from "./footnotes";
import { headingLevels, type HeadingLevels } from "./headings";
import { attachBullets, type Line, toLines } from "./lines";
import { classify, joinWrappedHeadings, render, DocumentWords, type TableLayouts } from "./render";
import { shownRows, spans } from "./render-table";
import { adoptHeaders, findTables, leftOver, sameColumns, type Table } from "./tables";
import { dropRunningLines } from "./running-lines";
import { splitSidebars } from "./sidebars";

export type { PageLayout, PdfPageContent, PdfTextItem, Rect } from "./types";

/** One Markdown text per page, in page order, each with where its lines came from. */
export function layoutPages(pages: PdfPageContent[]): PageLayout[] {
  const found = pages.map(findTables);
  adoptHeaders(pages, found);
  const lined = pages.map((page, i) => {
    const { rest, restOrder } = leftOver(page, found[i]!);
    return attachBullets(toLines({ ...page, items: rest }, restOrder), page.marks ?? []);
  });
  const body = bodyStyle(lined.flat());
  const kept = dropRunningLines(lined, pages, body);
  const leading = leadingBySize(kept, body);
  const split = kept.map((lines, i) => {
    const rules = pages[i]!.rules ?? [];
    const { body: rest, sidebars } = splitSidebars(lines, rules);
    return { sidebars, ...splitFootnotes(rest, rules, body, leading) };
  });
  const blocks = split.map(({ body: lines }, i) => pageBlocks(lines, found[i]!.tables, leading, body));
  const headings = headingLevels(blocks.flat(), body);
  const words = new DocumentWords([...kept, ...found.flatMap((f) => f.tables.map((t) => t.lines))]);
  const tables = tableLayouts(blocks);
  const paragraphRunsOn = blocks.map((page, i) => i > 0 && continuesParagraph(blocks[i - 1]!, page, headings));
  const tableRunsOn = blocks.map((page) => page[0]?.kind === "table" && tables.get(page[0].table)!.parts.continuing);
  // What is read after a page's body: its sidebars, then its footnotes.
  const notes = split.map((s) => [
    ...s.sidebars.flatMap((lines) => toBlocks(lines, leading, body)),
    ...s.notes.map(noteBlock),
  ]);
  const ordered = withFootnotes(
    blocks,
    notes,
    blocks.map((_, i) => paragraphRunsOn[i]! || tableRunsOn[i]!),
  );
  return ordered.map((entries, i) => {
    const from = new Map<Line, number>();
    for (const entry of entries) if (entry.page !== i) for (const line of entry.block.lines) from.set(line, entry.page);
    const placed = joinWrappedHeadings(
      classify(
        entries.map((e) => e.block),
        headings,
      ),
      leading,
    );
    const { text, lines } = render(placed, words, leading, tables);
    return {
      text,
      ...(tableRunsOn[i] ? { continuesTable: true } : {}),
      ...(paragraphRunsOn[i] ? { continuesParagraph: true } : {}),
      lines: lines.map(({ start, end, line }) => {
        const page = from.get(line) ?? i;
        return {
          start,
          end,
          box: pageBox(line, pages[page]!),
          ...(line.confidence === undefined ? {} : { confidence: line.confidence }),
          ...(page === i ? {} : { pagesBack: i - page }),
        };
      }),
    };
  });
}

/**
 * A page's first block goes on with the paragraph (or list item) the page
 * before ends with: that one stops mid-sentence, this one starts in lower
 * case (or in a capital after a full last line) at the same size, and
 * neither is a heading.
 */
function continuesParagraph(before: Block[], page: Block[], headings: HeadingLevels): boolean {
  const last = before.at(-1);
  const first = page[0];
  if (!last || !first || (last.kind !== "text" && last.kind !== "item") || first.kind !== "text") return false;
  if (headings(last, first) !== undefined || headings(first, page[1]) !== undefined) return false;
  const end = last.lines.at(-1)!;
  const start = first.lines[0]!;
  const sameSize = Math.abs(start.size - end.size) <= Math.max(0.5, 0.08 * end.size);
  if (!sameSize || /[.:;!?]["'”’)\]]?$/u.test(end.text)) return false;
  // A name can go on at the next page's head ("Detroit Red" / "Wings"): then the last line must run to the paragraph's edge.
  // "Full" as blocks.ts's endsParagraph has it: ragged-right lines fall short of the edge by less than this.
  const full =
    last.kind === "text" &&
    last.lines.length >= 2 &&
    end.right >= last.right - Math.max(3 * end.size, 0.15 * (last.right - last.left));
  return /^\p{Ll}/u.test(start.text) || (full && /^\p{Lu}/u.test(start.text));
}

function noteBlock(note: Footnote): Block {
  const lines = note.lines;
  return {
    kind: "note",
    marker: note.marker,
    lines,
    left: Math.min(...lines.map((l) => l.left)),
    right: Math.max(...lines.map((l) => l.right)),
  };
}

/**
 * Each page's blocks with its sidebars and footnotes (`notes`) placed: after the page's body, or, when
 * the page's last paragraph (or table) runs on to the next page, after its
 * end there, so that nothing comes between its parts. `page` is where a
 * block is printed.
 */
function withFootnotes(blocks: Block[][], notes: Block[][], runsOn: boolean[]): { block: Block; page: number }[][] {
  let pending: { block: Block; page: number }[] = [];
  return blocks.map((page, i) => {
    const own = notes[i]!.map((block) => ({ block, page: i }));
    const body = page.map((block) => ({ block, page: i }));
    const nextRunsOn = runsOn[i + 1] === true;
    // The part that finishes what the page before began comes before any note held back from there.
    const head = runsOn[i] ? body.slice(0, 1) : [];
    const rest = runsOn[i] ? body.slice(1) : body;
    if (rest.length === 0 && nextRunsOn) {
      pending = [...pending, ...own];
      return head;
    }
    const out = [...head, ...pending, ...rest, ...(nextRunsOn ? [] : own)];
    pending = nextRunsOn ? own : [];
    return out;
  });
}

/**
 * How each table is written. A table that ends one page and one that starts
 * the next with the same columns is one table broken by the page: the second part drops the header the page repeated, and the
 * pages join without a blank line, so the Markdown table runs on.
 */
function tableLayouts(pages: Block[][]): TableLayouts {
  const layouts: TableLayouts = new Map();
  let previous: { table: Table; group: Table[] } | undefined;
  const groups: Table[][] = [];
  pages.forEach((blocks) => {
    blocks.forEach((block, k) => {
      if (block.kind !== "table") return;
      const continued = k === 0 && previous !== undefined && sameColumns(previous.table, block.table);
      const group = continued ? previous!.group : [];
      if (!continued) groups.push(group);
      group.push(block.table);
      previous = k === blocks.length - 1 ? { table: block.table, group } : undefined;
    });
    if (blocks.at(-1)?.kind !== "table") previous = undefined;
  });
  for (const group of groups) {
    const html = group.some(spans);
    const first = group[0]!;
    const header = first.rows.slice(0, first.headerRows).map((row) => row.map((c) => c.text));
    const shown = group.map((table, k) => shownRows(table, k > 0, header));
    const body = shown.flat().slice(first.headerRows);
    group.forEach((table, k) => {
      const parts = { continues: k + 1 < group.length, continuing: k > 0, html, body };
      layouts.set(table, { rows: shown[k]!, parts });
    });
  }
  return layouts;
}

/** Where a line is on its page as shown (turned by `rotate`), from its glyphs' extent in PDF user space; four decimals, a tenth of a point on A4. */
function pageBox(line: Line, page: PdfPageContent): PageBox {
  const [left, bottom, right, top] = page.box;
  const width = right - left || 1;
  const height = top - bottom || 1;
  const share = (value: number) => Math.round(Math.min(1, Math.max(0, value)) * 1e4) / 1e4;
  // Unturned, from the top left: x across, y down.
  const x0 = (line.left - left) / width;
  const x1 = (line.right - left) / width;
  const y0 = (top - line.top) / height;
  const y1 = (top - line.bottom) / height;
  const turned: PageBox = (() => {
    switch ((((page.rotate ?? 0) % 360) + 360) % 360) {
      case 90:
        return [1 - y1, x0, 1 - y0, x1];
      case 180:
        return [1 - x1, 1 - y1, 1 - x0, 1 - y0];
      case 270:
        return [y0, 1 - x1, y1, 1 - x0];
      default:
        return [x0, y0, x1, y1];
    }
  })();
  return turned.map(share) as PageBox;
}
