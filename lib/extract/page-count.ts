import type { Detected } from "@/lib/extract/detect";
import { countImagePages } from "@/lib/extract/image";
import { CHARS_PER_PAGE } from "@/lib/extract/index";
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
 *   exact count is settled before chunking (lib/quota.ts `settle`).
 *
 * Exact for PDFs, images and text; the later `settle` corrects the others (characters / 3000 of their text).
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
    case "html":
    case "docx":
    case "epub":
    case "odt":
    case "rtf":
    case "email":
      return 1;
  }
}
