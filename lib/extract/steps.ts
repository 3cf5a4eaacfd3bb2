import type { OcrPage, PageImage, PdfPageItems } from "@/lib/extract/page-items";
import type { PageLayout } from "@/lib/extract/pdf-layout";

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
  slice?: SliceUnits;
}

/** Values a job keeps by a number: what `get` finds was `put` by this slice or an earlier one of the same job. */
interface Memo<T> {
  /** The values kept under `ks`, null where none is: fetched a few requests at a time, not one after another. */
  getMany: (ks: number[]) => Promise<(T | null)[]>;
  put: (k: number, value: T) => Promise<void>;
  /** Several kept, a few requests at a time. */
  putMany: (entries: [number, T][]) => Promise<void>;
}

/** OCR'd pages by their place `k` among the document's pages that OCR reads (the same for the same bytes). */
export type PageMemo = Memo<OcrPage>;

/** A PDF's pages as pdf.js parsed them (text items, rules, marks), by page number (1-based). */
export type TextLayerMemo = Memo<PdfPageItems>;

/**
 * The part of a job's slice clock (lib/jobs/slice-clock.ts) extraction uses: whether another page fits in the
 * slice's time, running a page as one of its units, ending the slice. Declared here so extraction needs no jobs.
 */
interface SliceUnits {
  fits: () => boolean;
  unit: <T>(work: () => Promise<T>) => Promise<T>;
  end: () => Promise<never>;
}
