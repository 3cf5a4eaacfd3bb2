import pLimit from "p-limit";
import { createWorker, OEM, PSM, type Worker } from "tesseract.js";
import type { PdfPageItems } from "@/lib/extract/pdf";
import { languageFolder } from "./language-data";
import { type PlacedItem, scanOrder } from "./scan-order";
import { wordRuns } from "./word-items";

/**
 * Text from a page image: tesseract.js (Tesseract's LSTM engine compiled to
 * WebAssembly, in a worker thread of its own), languages from their npm
 * packages (`language-data.ts`). The words come back as the text items PDF
 * layout recovery reads (`lib/extract/pdf-layout/`), one per run of a line's
 * words without a cell's gap (`word-items.ts`), tables written row by row
 * (`scan-order.ts`), so a scanned page gets the same paragraphs, headings,
 * lists, tables and reading order as a text page.
 */

export interface PageImage {
  /** The page in grey as a binary PGM (P5): Tesseract reads it without decoding anything. */
  image: Uint8Array;
  width: number;
  height: number;
  /** Its pixels per inch: positions and sizes are given in PDF points (1/72 inch), like pdf.js's. */
  dpi: number;
}

export interface OcrPage {
  items: PdfPageItems;
  /** Tesseract's mean word confidence, 0-100 (0 without words). */
  confidence: number;
  words: number;
}

/** One Tesseract per thread, made on first use (~0.3 s) and kept; remade when the languages change. */
let engine: { languages: string; worker: Promise<Worker> } | undefined;

function tesseract(languages: readonly string[]): Promise<Worker> {
  const key = languages.join("+");
  if (engine?.languages === key) return engine.worker;
  const previous = engine?.worker;
  const worker = (async () => {
    await previous?.then((w) => w.terminate()).catch(() => undefined);
    // Language data read from the install (never a CDN) and not cached in the working directory.
    const made = await createWorker([...languages], OEM.LSTM_ONLY, {
      langPath: languageFolder(languages),
      cacheMethod: "none",
      gzip: true,
      // A failed job rejects its promise; without a handler tesseract.js also throws from its message listener,
      // an uncaught exception that ends the CPU pool's thread.
      errorHandler: () => undefined,
    });
    await made.setParameters({
      // Automatic page segmentation: columns, blocks and their reading order (tesseract.js defaults to one block).
      tessedit_pageseg_mode: PSM.AUTO,
      // Sauvola's threshold, set for each neighbourhood, not Otsu's one for the whole page: on a noisy 150-ppi scan
      // Otsu's left speckles Tesseract took for pictures (0% of a page's words, in 19 s), Sauvola's none (100%, 0.6 s);
      // it also keeps text in a photographed page's shadows. Dense clean pages take no longer (npm run bench).
      thresholding_method: "2",
      // Tesseract's progress notes ("Detected 35 diacritics") are not the server log's business.
      debug_file: "/dev/null",
    });
    return made;
  })();
  engine = { languages: key, worker };
  worker.catch(() => {
    if (engine?.worker === worker) engine = undefined;
  });
  return worker;
}

/** One page at a time per Tesseract: a page's resolution is a setting of the engine, not of the call. */
const onePage = pLimit(1);

export async function recognize(page: PageImage, languages: readonly string[]): Promise<OcrPage> {
  const points = 72 / page.dpi;
  // Tesseract fails on images a few pixels across (its JSON comes back empty); none can hold legible text.
  if (page.width < MIN_TEXT_PIXELS || page.height < MIN_TEXT_PIXELS) return noWords(page, points);
  const { data } = await onePage(async () => {
    const worker = await tesseract(languages);
    try {
      await worker.setParameters({ user_defined_dpi: String(Math.round(page.dpi)) });
      return await worker.recognize(Buffer.from(page.image), {}, { blocks: true, text: false });
    } catch (error) {
      // Whatever state the engine is in, the next page gets a new one.
      if (engine?.languages === languages.join("+")) engine = undefined;
      await worker.terminate().catch(() => undefined);
      throw error;
    }
  });
  const placed: (PlacedItem & { confidence: number; lineX: number })[] = [];
  const slopes: number[] = [];
  let words = 0;
  let confidence = 0;
  for (const block of data.blocks ?? [])
    for (const paragraph of block.paragraphs) {
      const usual = median(paragraph.lines.map((line) => line.rowAttributes.rowHeight));
      for (const line of paragraph.lines) {
        const { baseline, rowAttributes } = line;
        // Tesseract's row height (x-height plus ascenders) comes within a pixel or two of the em (30 for 11 pt at
        // 200 dpi) but varies with the letters a line has: a line within 12% of its paragraph's takes the paragraph's,
        // so that a paragraph's last line reads as the same size, and a heading Tesseract put in it does not.
        const own = rowAttributes.rowHeight;
        const size = Math.abs(own - usual) <= 0.12 * usual ? usual : own;
        const runs = wordRuns(line.words, size);
        if (runs.length === 0) continue;
        const { x0 } = line.bbox;
        // Baseline height at the line's start (Tesseract gives it as a line through two points): one for all its
        // runs, which line recovery then joins as one line whatever the page's skew.
        const slope = baseline.x1 !== baseline.x0 ? (baseline.y1 - baseline.y0) / (baseline.x1 - baseline.x0) : 0;
        const baselineY = baseline.y0 + slope * (x0 - baseline.x0);
        slopes.push(slope);
        for (const run of runs) {
          words += run.words;
          confidence += run.confidence * run.words;
          placed.push({
            text: run.text,
            x: run.x0 * points,
            y: (page.height - baselineY) * points,
            lineX: x0 * points,
            size: size * points,
            width: (run.x1 - run.x0) * points,
            confidence: run.confidence,
          });
        }
      }
    }
  // Each line's baseline carried to the page's left edge along the page's skew (the lines' median slope; a short
  // line's own is rough): lines' heights compared across a skewed page, for finding a table's rows.
  const skew = slopes.length > 0 ? median(slopes) : 0;
  for (const item of placed) item.level = item.y + skew * item.lineX;
  const { order, baselines } = scanOrder(placed);
  const ordered = order.map((i) => ({ ...placed[i]!, y: baselines.get(i) ?? placed[i]!.y }));
  const text = ordered.map((item) => item.text);
  const geometry = ordered.flatMap((item) => [item.x, item.y, item.size, item.width, 1]);
  const confidences = ordered.map((item) => item.confidence);
  return {
    items: {
      box: [0, 0, page.width * points, page.height * points],
      // The image is read as it is shown: PDF pages rendered turned, images turned upright by their EXIF orientation.
      rotate: 0,
      text,
      geometry: Float64Array.from(geometry),
      font: new Uint32Array(text.length),
      confidence: Float64Array.from(confidences),
      fonts: ["ocr"],
      monospace: [],
    },
    confidence: words > 0 ? confidence / words : 0,
    words,
  };
}

/** Fewer pixels than a line of legible text is high. */
const MIN_TEXT_PIXELS = 10;

function noWords(page: PageImage, points: number): OcrPage {
  const items = {
    rotate: 0,
    text: [],
    geometry: new Float64Array(),
    font: new Uint32Array(),
    confidence: new Float64Array(),
    fonts: ["ocr"],
    monospace: [],
  };
  return { items: { box: [0, 0, page.width * points, page.height * points], ...items }, confidence: 0, words: 0 };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
