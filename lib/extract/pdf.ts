import { z } from "zod";
import { failures } from "@/lib/extract/failures";
import { normalizeNewlines } from "@/lib/extract/text";
import type { ExtractLimits, PageRange } from "@/lib/extract/types";
import { withWorker, type DocumentFailure } from "@/lib/extract/worker";

/** PDF text, page by page, read by unpdf (pdf.js) in a worker thread. */
export interface PdfText {
  text: string;
  pages: PageRange[];
  pageCount: number;
}

export const PAGE_SEPARATOR = "\n\n";

const Opened = z.object({ ok: z.literal(true), pageCount: z.number().int().nonnegative() });
const Read = z.object({ ok: z.literal(true), pages: z.array(z.string()) });

export function extractPdf(bytes: Uint8Array, limits: Pick<ExtractLimits, "maxPages" | "timeoutMs">): Promise<PdfText> {
  return withWorker({ timeoutMs: limits.timeoutMs, damaged: failures.corruptedPdf }, async (worker) => {
    const opened = await worker.call({ op: "pdf-open", data: bytes }, Opened);
    if (!opened.ok) throw refusal(opened);
    // Before reading any text: counting pages is cheap, reading thousands of them is not.
    if (opened.pageCount > limits.maxPages) throw failures.tooManyPages(opened.pageCount, limits.maxPages);
    const read = await worker.call({ op: "pdf-text" }, Read);
    if (!read.ok) throw refusal(read);
    if (read.pages.length !== opened.pageCount) {
      throw failures.extractorUnavailable(new Error(`worker read ${read.pages.length} pages of ${opened.pageCount}`));
    }
    const texts = read.pages.map(cleanPage);
    if (texts.every((t) => t === "")) throw failures.noText();
    return { ...joinPages(texts), pageCount: opened.pageCount };
  });
}

/** pdf.js's exception names are its API for telling a password prompt from a broken file. */
function refusal(failure: DocumentFailure) {
  return failure.name === "PasswordException" ? failures.encryptedPdf() : failures.corruptedPdf();
}

/**
 * pdf.js ends lines with "\n" and pads with spaces where glyphs were spaced
 * out; trailing blanks and NULs (unmapped glyphs) only add noise to chunks.
 */
function cleanPage(raw: string): string {
  return normalizeNewlines(raw)
    .replace(/\u0000/g, "")
    .replace(/[^\S\n]+$/gm, "")
    .replace(/^\n+|\n+$/g, "");
}

/** Joins page texts with PAGE_SEPARATOR; page `n` covers exactly its own text, the separators belong to no page. */
export function joinPages(texts: string[]): { text: string; pages: PageRange[] } {
  const pages: PageRange[] = [];
  let offset = 0;
  texts.forEach((t, i) => {
    if (i > 0) offset += PAGE_SEPARATOR.length;
    pages.push({ number: i + 1, start: offset, end: offset + t.length });
    offset += t.length;
  });
  return { text: texts.join(PAGE_SEPARATOR), pages };
}
