import { z } from "zod";
import { failures } from "@/lib/extract/failures";
import { layoutPages, type PdfPageContent } from "@/lib/extract/pdf-layout";
import type { ExtractLimits, PageRange } from "@/lib/extract/types";
import { withWorker, type DocumentFailure } from "@/lib/extract/worker";

/**
 * PDF text, page by page, as Markdown: unpdf (pdf.js) reads positioned text
 * in a worker thread, lib/extract/pdf-layout.ts turns it into headings,
 * paragraphs and lists without running headers, footers and page numbers.
 */
export interface PdfText {
  text: string;
  pages: PageRange[];
  pageCount: number;
}

export const PAGE_SEPARATOR = "\n\n";

const Opened = z.object({ ok: z.literal(true), pageCount: z.number().int().nonnegative() });
/** One page from the worker's "pdf-items": per text item a string, five numbers (x, y, size, width, upright) and a font index. */
const PageItems = z
  .object({
    box: z.tuple([z.number(), z.number(), z.number(), z.number()]),
    text: z.array(z.string()),
    geometry: z.instanceof(Float64Array),
    font: z.instanceof(Uint32Array),
    fonts: z.array(z.string()),
    monospace: z.array(z.string()),
  })
  .refine(
    (page) =>
      page.geometry.length === page.text.length * 5 &&
      page.font.length === page.text.length &&
      page.font.every((index) => index < page.fonts.length) &&
      page.geometry.every(Number.isFinite),
    "text items whose columns disagree",
  );
const Items = z.object({ ok: z.literal(true), pages: z.array(PageItems) });

export type PdfPageItems = z.infer<typeof PageItems>;

/** Page items → one text per page; the service runs it in its CPU pool (lib/cpu). */
export type PdfLayout = (pages: PdfPageItems[]) => Promise<string[]>;

const layoutHere: PdfLayout = async (pages) => layoutPages(pages.map(toPageContent));

export async function extractPdf(
  bytes: Uint8Array,
  limits: Pick<ExtractLimits, "maxPages" | "timeoutMs">,
  layout: PdfLayout = layoutHere,
): Promise<PdfText> {
  const { pages, pageCount } = await withWorker(
    { timeoutMs: limits.timeoutMs, damaged: failures.corruptedPdf },
    async (worker) => {
      const opened = await worker.call({ op: "pdf-open", data: bytes }, Opened);
      if (!opened.ok) throw refusal(opened);
      // Before reading any text: counting pages is cheap, reading thousands of them is not.
      if (opened.pageCount > limits.maxPages) throw failures.tooManyPages(opened.pageCount, limits.maxPages);
      const read = await worker.call({ op: "pdf-items" }, Items);
      if (!read.ok) throw refusal(read);
      if (read.pages.length !== opened.pageCount) {
        throw failures.extractorUnavailable(new Error(`worker read ${read.pages.length} pages of ${opened.pageCount}`));
      }
      return { pages: read.pages, pageCount: opened.pageCount };
    },
  );
  const texts = await layout(pages);
  if (texts.every((t) => t === "")) throw failures.noText();
  return { ...joinPages(texts), pageCount };
}

/** pdf.js's exception names are its API for telling a password prompt from a broken file. */
function refusal(failure: DocumentFailure) {
  return failure.name === "PasswordException" ? failures.encryptedPdf() : failures.corruptedPdf();
}

export function toPageContent(page: PdfPageItems): PdfPageContent {
  const { text, geometry: g, font, fonts } = page;
  return {
    box: page.box,
    items: text.map((str, i) => ({
      text: str,
      x: g[i * 5]!,
      y: g[i * 5 + 1]!,
      size: g[i * 5 + 2]!,
      width: g[i * 5 + 3]!,
      upright: g[i * 5 + 4] === 1,
      font: fonts[font[i]!]!,
    })),
    monospaceFonts: page.monospace,
  };
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
