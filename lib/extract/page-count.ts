import type { Detected } from "@/lib/extract/detect";
import { countImagePages } from "@/lib/extract/image";
import { CHARS_PER_PAGE } from "@/lib/extract/index";
import { ROWS_PER_PAGE } from "@/lib/extract/office/sheet-table";
import { countPdfPages } from "@/lib/extract/pdf";
import type { ExtractLimits } from "@/lib/extract/types";

/**
 * A document's pages as far as they can be known cheaply, before extraction
 * or OCR: what the free quota is checked against and taken from before any
 * work is done.
 *
 * - PDF: the page tree's count (pdf.js opens the document; no page is read).
 * - Image: its frames, from the header.
 * - Text and Markdown: the same rule as the extraction's (characters / 3000, at least 1) on the decoded text,
 *   so the estimate is the exact count.
 * - HTML, DOCX, ODT, RTF, EPUB and e-mail: one page, the least any document costs. Their size says little about their text (markup,
 *   embedded images: a 200 KB web page is often two pages of text), so a size rule would refuse ordinary
 *   documents near the end of a day's pages; their conversion is bounded by the parsers' own budgets, and the
 *   exact count is settled before chunking (lib/quota/free-quota.ts `settle`).
 *
 * - PPTX, XLSX, ODS: one page, as DOCX: their size says little about their slides' or rows' count, and
 *   `settle` corrects it.
 * - CSV: its lines / 50 (ROWS_PER_PAGE), at least 1: close to the exact count, which counts records (a quoted
 *   field may span lines) and leaves out blank lines.
 *
 * Exact for PDFs, images and text; the later `settle` corrects HTML, DOCX, ODT, RTF, EPUB, e-mails, decks, workbooks and CSV (characters / 3000, or
 * slides and rows).
 */
export async function estimatePages(
  bytes: Uint8Array,
  detected: Detected,
  limits: Pick<ExtractLimits, "maxPages" | "timeoutMs">,
): Promise<number> {
  switch (detected.kind) {
    case "pdf":
      return countPdfPages(bytes, limits);
    case "image":
      return countImagePages(bytes, limits);
    case "text":
    case "markdown":
      return Math.max(1, Math.ceil(detected.text.length / CHARS_PER_PAGE));
    case "csv":
      return Math.max(1, Math.ceil(lineCount(detected.text) / ROWS_PER_PAGE));
    case "html":
    case "docx":
    case "epub":
    case "odt":
    case "rtf":
    case "email":
    case "pptx":
    case "odp":
    case "xlsx":
    case "ods":
      return 1;
  }
}

/** Lines after the first (the header row), without counting a final line break. */
function lineCount(text: string): number {
  let lines = 0;
  for (let at = text.indexOf("\n"); at !== -1 && at < text.length - 1; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}
