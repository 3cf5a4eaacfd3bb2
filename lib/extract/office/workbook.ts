import { failures } from "@/lib/extract/failures";
import { joinSections, type Section } from "@/lib/extract/office/sections";
import { ROWS_PER_PAGE, type SheetCells, sheetTable } from "@/lib/extract/office/sheet-table";
import type { PageRange } from "@/lib/extract/types";

/** A sheet in workbook order; `number` is its position among all the workbook's sheets (1-based, hidden ones counted). */
export interface WorkbookSheet {
  number: number;
  hidden: boolean;
  sheet: SheetCells;
}

export interface WorkbookText {
  text: string;
  /** One range per sheet written: `page_start`/`page_end` of a chunk are sheet numbers. */
  pages: PageRange[];
  /** For the free quota and prices: per sheet, one page per ROWS_PER_PAGE rows (at least one). */
  pageCount: number;
}

/**
 * Sheets → Markdown, one section per sheet. Hidden sheets are left out: they
 * hold lookup tables, scratch calculations and data their author chose not to
 * show, which would be retrieved as if it were the document's content (and
 * paid for as its pages); the heading of a hidden sheet does not appear
 * either. Sheets without values are left out too.
 */
export function workbookText(sheets: WorkbookSheet[], maxCellsPerSheet: number): WorkbookText {
  const sections: Section[] = [];
  let pageCount = 0;
  for (const { number, hidden, sheet } of sheets) {
    if (hidden) continue;
    const table = sheetTable(sheet, maxCellsPerSheet);
    if (!table.markdown) continue;
    sections.push({ number, markdown: table.markdown });
    pageCount += Math.max(1, Math.ceil(table.dataRows / ROWS_PER_PAGE));
  }
  if (sections.length === 0) throw failures.emptyDocument();
  return { ...joinSections(sections), pageCount };
}
