import { failures } from "@/lib/extract/failures";
import { openArchive } from "@/lib/extract/office/archive";
import { csvSheet } from "@/lib/extract/office/csv";
import { readOdp } from "@/lib/extract/office/odp";
import { readOds } from "@/lib/extract/office/ods";
import { readPptx } from "@/lib/extract/office/pptx";
import { joinSections } from "@/lib/extract/office/sections";
import { CellCounter } from "@/lib/extract/office/sheet-table";
import { workbookText } from "@/lib/extract/office/workbook";
import { readXlsx } from "@/lib/extract/office/xlsx";
import { ElementBudget } from "@/lib/extract/xml";
import type { ExtractLimits, PageRange } from "@/lib/extract/types";

/**
 * Slide decks and spreadsheets → Markdown with one section per slide or
 * sheet, each section a "page" (`page_start`/`page_end` = slide or sheet
 * number). The zip-based ones go through the same archive budgets as DOCX.
 */
export interface OfficeText {
  text: string;
  pages: PageRange[];
  /** Slides: one page each. Sheets: one page per ROWS_PER_PAGE rows of each sheet (at least one). */
  pageCount: number;
}

export type OfficeLimits = Pick<ExtractLimits, "maxUnpackedBytes" | "markup" | "timeoutMs"> & { maxSheetCells: number };

/** What a reader may be asked to leave out. */
export interface ReadingOptions {
  /** Speaker notes of slides, under "## Notes" (default: included). */
  includeNotes: boolean;
}

export async function extractPresentation(
  bytes: Uint8Array,
  format: "pptx" | "odp",
  limits: OfficeLimits,
  options: ReadingOptions,
): Promise<OfficeText> {
  const deadline = Date.now() + limits.timeoutMs;
  const archive = await openArchive(bytes, limits, () => failures.corruptedOffice("presentation"));
  const budget = new ElementBudget(limits.markup.maxElements);
  const sections =
    format === "odp" ? readOdp(archive, budget, options) : await readPptx(archive, budget, options, deadline);
  return { ...joinSections(sections), pageCount: sections.length };
}

export async function extractSpreadsheet(
  bytes: Uint8Array,
  format: "xlsx" | "ods",
  limits: OfficeLimits,
): Promise<OfficeText> {
  const deadline = Date.now() + limits.timeoutMs;
  const archive = await openArchive(bytes, limits, () => failures.corruptedOffice("spreadsheet"));
  const counter = cellCounter(limits);
  const sheets =
    format === "xlsx"
      ? await readXlsx(archive, new ElementBudget(limits.markup.maxElements), counter, deadline)
      : await readOds(archive, counter, deadline);
  return workbookText(sheets, counter.max);
}

export function extractCsv(
  text: string,
  name: string,
  options: { tabHinted: boolean },
  limits: Pick<OfficeLimits, "maxSheetCells">,
): OfficeText {
  const counter = cellCounter(limits);
  const { sheet } = csvSheet(text, name, options, counter);
  return workbookText([{ number: 1, hidden: false, sheet }], counter.max);
}

function cellCounter(limits: Pick<OfficeLimits, "maxSheetCells">): CellCounter {
  return new CellCounter(limits.maxSheetCells, () => failures.tooManyCells(limits.maxSheetCells));
}
