/** The CPU-heavy steps of extraction as this thread runs them (the service runs them in its pool, lib/cpu). */
import { toPageContent } from "@/lib/extract/pdf";
import { layoutPages } from "@/lib/extract/pdf-layout";
import type { ExtractSteps } from "@/lib/extract/steps";

/** The steps in this thread; OCR in `languages` (Tesseract's codes, installed from npm). */
export const stepsHere = (languages: readonly string[]): ExtractSteps => ({
  layout: async (pages) => layoutPages(pages.map(toPageContent)),
  // Loaded on the first scan read: a route that never reads one must not load tesseract.js (its function ships none).
  ocr: async (page) => (await import("@/lib/extract/ocr/recognize")).recognize(page, languages),
});
