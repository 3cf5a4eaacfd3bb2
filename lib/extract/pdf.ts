import { z } from "zod";
import { failures } from "@/lib/extract/failures";
import { readPages } from "@/lib/extract/ocr/read-pages";
import { MAX_OCR_PIXELS, RENDER_DPI, SCAN_BLUR_SIGMA } from "@/lib/extract/ocr/settings";
import type { PageLayout, PdfPageContent, Rect } from "@/lib/extract/pdf-layout";
import { type OcrPage, PageItems, type PdfPageItems } from "@/lib/extract/page-items";
import type { ExtractSteps } from "@/lib/extract/steps";
import type { ExtractLimits, PageRange, SourceLine } from "@/lib/extract/types";
import { withWorker, type DocumentFailure, type ExtractWorker } from "@/lib/extract/worker";

/**
 * PDF text, page by page, as Markdown: unpdf (pdf.js) reads positioned text
 * in a worker thread, lib/extract/pdf-layout/ turns it into headings,
 * paragraphs and lists without running headers, footers and page numbers.
 * A page without a text layer (a scan) is read by OCR from its stored image
 * (a page that is one full-page image) or rendered there, and its lines go
 * through the same layout recovery; a page with one is never OCR'd.
 */
export interface PdfText {
  text: string;
  pages: PageRange[];
  lines: SourceLine[];
  pageCount: number;
  /** Pages read by OCR, 1-based. */
  ocrPages: number[];
}

const PAGE_SEPARATOR = "\n\n";

const Opened = z.object({ ok: z.literal(true), pageCount: z.number().int().nonnegative() });
const Items = z.object({ ok: z.literal(true), pages: z.array(PageItems) });
const PageImageReply = z.object({
  ok: z.literal(true),
  image: z.instanceof(Uint8Array),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  dpi: z.number().positive(),
});

export async function extractPdf(
  bytes: Uint8Array,
  limits: Pick<ExtractLimits, "maxPages" | "maxOcrPages" | "maxOcrPagesAsync" | "timeoutMs">,
  steps: ExtractSteps,
): Promise<PdfText> {
  const deadline = performance.now() + limits.timeoutMs;
  const { pages, pageCount, scans } = await withWorker(
    { timeoutMs: limits.timeoutMs, damaged: failures.corruptedPdf },
    async (worker) => {
      const opened = await worker.call({ op: "pdf-open", data: bytes }, Opened);
      if (!opened.ok) throw refusal(opened);
      // Before reading any text: counting pages is cheap, reading thousands of them is not.
      if (opened.pageCount > limits.maxPages) throw failures.tooManyPages(opened.pageCount, limits.maxPages);
      const textPages = await readTextLayer(worker, opened.pageCount, steps);
      const blank = textPages.flatMap((page, i) => (page.text.some((t) => t.trim() !== "") ? [] : [i]));
      if (blank.length > limits.maxOcrPages) throw failures.ocrTooManyPages(blank.length, limits);
      // Read here, while the worker makes the next page's image, and so within the extraction time limit.
      const pageImage = async (k: number) => {
        const request = {
          op: "pdf-page-image" as const,
          page: blank[k]! + 1,
          dpi: RENDER_DPI,
          maxPixels: MAX_OCR_PIXELS,
          blur: SCAN_BLUR_SIGMA,
        };
        const made = await worker.call(request, PageImageReply);
        if (!made.ok) throw refusal(made);
        return made;
      };
      const ocr = await readPages(blank.length, pageImage, steps, deadline);
      return {
        pages: textPages,
        pageCount: opened.pageCount,
        scans: blank.map((index, k) => ({ index, ocr: ocr[k]! })),
      };
    },
  );
  const layouts = await layoutWithScans(pages, scans, steps);
  if (layouts.every((page) => page.text === "")) throw failures.noText(scans.length, "pdf");
  return { ...joinPages(layouts), pageCount, ocrPages: scans.map((s) => s.index + 1) };
}

/**
 * Pages a job's slice parses in one request to the worker: each batch is stored before the next starts, so a slice
 * cut off loses at most one, and a slice whose time is up starts no further batch. About a second of parsing.
 */
const TEXT_LAYER_BATCH_PAGES = 25;

/**
 * Every page's text items, rules and marks, in page order. A job's slice (`steps.textLayer`) takes the pages earlier
 * slices parsed from the store and asks pdf.js for the others only, in batches it stores as they are parsed: parsing
 * every page again (the operator list of each page of a scan decodes its image) was most of a slice's fixed cost.
 */
async function readTextLayer(
  worker: ExtractWorker,
  pageCount: number,
  steps: Pick<ExtractSteps, "textLayer" | "slice">,
): Promise<PdfPageItems[]> {
  const parse = async (numbers?: number[]) => {
    const read = await worker.call(numbers ? { op: "pdf-items", pages: numbers } : { op: "pdf-items" }, Items);
    if (!read.ok) throw refusal(read);
    const expected = numbers?.length ?? pageCount;
    if (read.pages.length !== expected) {
      throw failures.extractorUnavailable(new Error(`worker read ${read.pages.length} pages of ${expected}`));
    }
    return read.pages;
  };
  const { textLayer: memo, slice } = steps;
  if (!memo) return parse();
  const pages = await memo.getMany(Array.from({ length: pageCount }, (_, i) => i + 1));
  const missing = pages.flatMap((page, i) => (page ? [] : [i + 1]));
  for (let from = 0; from < missing.length; from += TEXT_LAYER_BATCH_PAGES) {
    const numbers = missing.slice(from, from + TEXT_LAYER_BATCH_PAGES);
    const parseAndKeep = async () => {
      const parsed = await parse(numbers);
      await memo.putMany(parsed.map((page, j) => [numbers[j]!, page]));
      return parsed;
    };
    const parsed = await (slice ? slice.unit(parseAndKeep) : parseAndKeep());
    parsed.forEach((page, j) => (pages[numbers[j]! - 1] = page));
  }
  return pages as PdfPageItems[];
}

/**
 * The page tree's count only (pdf.js `numPages`, in a worker like every pdf.js call): what the free quota is
 * checked against before any text is read or any page rendered. Opening reads the cross-reference table and
 * the catalog, not the pages.
 */
export async function countPdfPages(
  bytes: Uint8Array,
  limits: Pick<ExtractLimits, "maxPages" | "timeoutMs">,
): Promise<number> {
  const pageCount = await withWorker(
    { timeoutMs: limits.timeoutMs, damaged: failures.corruptedPdf },
    async (worker) => {
      const opened = await worker.call({ op: "pdf-open", data: bytes }, Opened);
      if (!opened.ok) throw refusal(opened);
      return opened.pageCount;
    },
  );
  if (pageCount > limits.maxPages) throw failures.tooManyPages(pageCount, limits.maxPages);
  return pageCount;
}

/**
 * One text per page: the text pages laid out together, the OCR'd ones laid
 * out together. Apart, because OCR'd lines are all in one made-up font:
 * among a document's real fonts they would read as headings.
 */
async function layoutWithScans(
  pages: PdfPageItems[],
  scans: { index: number; ocr: OcrPage }[],
  steps: ExtractSteps,
): Promise<PageLayout[]> {
  const scanned = new Set(scans.map((s) => s.index));
  const textPages = pages.flatMap((page, i) => (scanned.has(i) ? [] : [i]));
  const layouts = new Array<PageLayout>(pages.length);
  const [fromText, fromScans] = await Promise.all([
    textPages.length > 0 ? steps.layout(textPages.map((i) => pages[i]!)) : [],
    scans.length > 0 ? steps.layout(scans.map((s) => s.ocr.items)) : [],
  ]);
  textPages.forEach((page, k) => (layouts[page] = fromText[k]!));
  scans.forEach((scan, k) => (layouts[scan.index] = fromScans[k]!));
  return layouts;
}

/** pdf.js's exception names are its API for telling a password prompt from a broken file. */
function refusal(failure: DocumentFailure) {
  return failure.name === "PasswordException" ? failures.encryptedPdf() : failures.corruptedPdf();
}

export function toPageContent(page: PdfPageItems): PdfPageContent {
  const { text, geometry: g, font, fonts, confidence } = page;
  return {
    box: page.box,
    rotate: page.rotate,
    items: text.map((str, i) => ({
      text: str,
      x: g[i * 5]!,
      y: g[i * 5 + 1]!,
      size: g[i * 5 + 2]!,
      width: g[i * 5 + 3]!,
      upright: g[i * 5 + 4] === 1,
      font: fonts[font[i]!]!,
      ...(confidence ? { confidence: confidence[i]! } : {}),
    })),
    monospaceFonts: page.monospace,
    rules: boxesOf(page.rules),
    marks: boxesOf(page.marks),
  };
}

function boxesOf(flat: Float64Array | undefined): Rect[] {
  const boxes: Rect[] = [];
  if (flat)
    for (let i = 0; i + 3 < flat.length; i += 4) boxes.push([flat[i]!, flat[i + 1]!, flat[i + 2]!, flat[i + 3]!]);
  return boxes;
}

/** Between a table's part on one page and its part on the next: one line break, so the Markdown table runs on. */
const TABLE_PAGE_SEPARATOR = "\n";
/** Between a paragraph's part on one page and its part on the next: a word space, so it reads as one paragraph. */
const PARAGRAPH_PAGE_SEPARATOR = " ";

/**
 * Joins page texts with PAGE_SEPARATOR (TABLE_PAGE_SEPARATOR where a table
 * runs on, PARAGRAPH_PAGE_SEPARATOR where a paragraph does); page `n` covers exactly its own text, the separators belong to
 * no page nor line.
 */
export function joinPages(layouts: PageLayout[]): { text: string; pages: PageRange[]; lines: SourceLine[] } {
  const pages: PageRange[] = [];
  const lines: SourceLine[] = [];
  const separator = (page: PageLayout) =>
    page.continuesTable ? TABLE_PAGE_SEPARATOR : page.continuesParagraph ? PARAGRAPH_PAGE_SEPARATOR : PAGE_SEPARATOR;
  let text = "";
  let offset = 0;
  layouts.forEach((layout, i) => {
    const { text: pageText, lines: laid } = layout;
    if (i > 0) {
      offset += separator(layout).length;
      text += separator(layout);
    }
    text += pageText;
    pages.push({ number: i + 1, start: offset, end: offset + pageText.length });
    // A footnote held back until a paragraph running on from its page has ended keeps its own page.
    for (const { pagesBack, ...line } of laid)
      lines.push({ ...line, start: offset + line.start, end: offset + line.end, page: i + 1 - (pagesBack ?? 0) });
    offset += pageText.length;
  });
  return { text, pages, lines };
}
