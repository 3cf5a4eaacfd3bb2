import type { OcrPage, PageImage } from "@/lib/extract/ocr/recognize";
import { type PdfPageItems, toPageContent } from "@/lib/extract/pdf";
import { layoutPages, type PageLayout } from "@/lib/extract/pdf-layout";
import type { SliceClock } from "@/lib/jobs/slice-clock";

/**
 * The CPU-heavy steps of extraction, given to it so that the service runs
 * them in its pool of worker threads (lib/cpu) and the command line here.
 */
export interface ExtractSteps {
  /** Page items → one text per page and where its lines are (`pdf-layout/`). */
  layout: (pages: PdfPageItems[]) => Promise<PageLayout[]>;
  /** A page image → its text as page items (`ocr/recognize.ts`). */
  ocr: (page: PageImage) => Promise<OcrPage>;
  /** Told as each page is read by OCR, `done` of `total`: an async job's progress. */
  onPageRead?: (done: number, total: number) => void;
  /** An async job's pages read before (by an earlier slice): taken from here, never rendered or read again. */
  pages?: PageMemo;
  /** An async job's PDF text layer, page by page, as earlier slices parsed it: taken from here, never parsed again. */
  textLayer?: TextLayerMemo;
  /** An async job's slice: each page is read as one of its units, and no page is started that would not fit. */
  slice?: SliceClock;
}

/** Values a job keeps by a number: what `get` finds was `put` by this slice or an earlier one of the same job. */
export interface Memo<T> {
  get: (k: number) => Promise<T | null>;
  put: (k: number, value: T) => Promise<void>;
}

/** OCR'd pages by their place `k` among the document's pages that OCR reads (the same for the same bytes). */
export type PageMemo = Memo<OcrPage>;

/** A PDF's pages as pdf.js parsed them (text items, rules, marks), by page number (1-based). */
export type TextLayerMemo = Memo<PdfPageItems>;

/** The steps in this thread; OCR in `languages` (Tesseract's codes, installed from npm). */
export const stepsHere = (languages: readonly string[]): ExtractSteps => ({
  layout: async (pages) => layoutPages(pages.map(toPageContent)),
  // Loaded on the first scan read: a route that never reads one must not load tesseract.js (its function ships none).
  ocr: async (page) => (await import("@/lib/extract/ocr/recognize")).recognize(page, languages),
});
