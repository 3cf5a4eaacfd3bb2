import pLimit from "p-limit";
import { type Bbox, type Block, createWorker, type Line, OEM, PSM, type Worker } from "tesseract.js";
import type { OcrPage, PageImage } from "@/lib/extract/page-items";
import { languageFolder } from "./language-folder";
import { splitAtColumns, type SplittableItem } from "./column-splits";
import { scanOrder } from "./scan-order";
import { type Box, centredIn, tableAreas } from "./table-areas";
import { bulletMarks, type LineBox } from "./image-marks";
import { imageRules, otsu, type PixelBox } from "./image-rules";
import { type GreyImage, pgmPixels, strokeWidth } from "./ink";
import { TABLE_CELL_GAP_EM, type WordRun, wordRuns } from "./word-items";

/**
 * Text from a page image: tesseract.js (Tesseract's LSTM engine compiled to
 * WebAssembly, in a worker thread of its own), languages from their npm
 * packages (`lib/ground/ocr-language-data.ts`). The words come back as the text items PDF
 * layout recovery reads (`lib/extract/pdf-layout/`), one per run of a line's
 * words without a cell's gap (`word-items.ts`), tables written row by row
 * (`scan-order.ts`), so a scanned page gets the same paragraphs, headings,
 * lists, tables and reading order as a text page.
 */

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
  const lines = await onePage(async () => {
    const worker = await tesseract(languages);
    try {
      await worker.setParameters({ user_defined_dpi: String(Math.round(page.dpi)) });
      const { data } = await worker.recognize(Buffer.from(page.image), {}, { blocks: true, text: false });
      const blocks = data.blocks ?? [];
      const areas = tableAreas(blocks, languages);
      if (areas.length === 0) return pageLines(blocks);
      // A table Tesseract's segmentation lost, read again as one block: row by row (table-areas.ts).
      const reread: PageLine[][] = [];
      await worker.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_BLOCK });
      for (const area of areas) {
        const left = Math.max(0, area.x0);
        const top = Math.max(0, area.y0);
        const rectangle = {
          left,
          top,
          width: Math.min(page.width, area.x1) - left,
          height: Math.min(page.height, area.y1) - top,
        };
        const again = await worker.recognize(Buffer.from(page.image), { rectangle }, { blocks: true, text: false });
        reread.push(pageLines(again.data.blocks ?? []).map((l) => ({ ...l, cellGapEm: TABLE_CELL_GAP_EM })));
      }
      await worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO });
      return withAreasReread(pageLines(blocks), areas, reread);
    } catch (error) {
      // Whatever state the engine is in, the next page gets a new one.
      if (engine?.languages === languages.join("+")) engine = undefined;
      await worker.terminate().catch(() => undefined);
      throw error;
    }
  });
  const grey = pgmPixels(page.image, page.width, page.height);
  const threshold = grey ? otsu(grey) : 0;
  const rules = grey ? imageRules(grey, page.dpi, threshold) : [];
  const lineBoxes: LineBox[] = [];
  const uprights = rules.filter((r) => r.y1 - r.y0 > r.x1 - r.x0);
  const placed: (SplittableItem & { confidence: number; lineX: number; weight?: number })[] = [];
  const slopes: number[] = [];
  let words = 0;
  let confidence = 0;
  // The page's usual row height: the paragraphs', by their words.
  const pageSize = median(lines.flatMap(({ line, usual }) => line.words.map(() => usual)));
  let largeAbove: { size: number; bottom: number } | undefined;
  for (const { line, usual, cellGapEm } of lines) {
    const { baseline, rowAttributes } = line;
    // Tesseract's row height (x-height plus ascenders) comes within a pixel or two of the em (30 for 11 pt at
    // 200 dpi) but varies with the letters a line has: a line within 12% of its paragraph's takes the paragraph's,
    // so that a paragraph's last line reads as the same size, and a heading Tesseract put in it does not.
    const own = rowAttributes.rowHeight;
    const inParagraph = Math.abs(own - usual) <= 0.12 * usual ? usual : own;
    // A paragraph of one line has only its own letters to go by (a bold "Milestones", without descenders, came
    // 14% under the body's): one within PAGE_SIZE_SPREAD of the page's usual size is set in it. Headings set
    // larger by size are 1.15 times the body or more; nearer, only their weight tells them (`boldItems`).
    let size = Math.abs(inParagraph - pageSize) <= PAGE_SIZE_SPREAD * pageSize ? pageSize : inParagraph;
    // A large line right under another of about its size is the same heading wrapped ("… Little Rock" / "Arsenal",
    // a line Tesseract made a paragraph of its own): it keeps the first line's size, so the two stay one heading.
    const above = largeAbove;
    largeAbove = undefined;
    if (size > (1 + PAGE_SIZE_SPREAD) * pageSize) {
      const near = above !== undefined && line.bbox.y0 - above.bottom <= WRAPPED_GAP_EM * above.size;
      if (near && Math.abs(size - above.size) <= HEADING_SIZE_SPREAD * above.size) size = above.size;
      largeAbove = { size, bottom: line.bbox.y1 };
    }
    // A rule drawn between two words parts them however close they stand: a ruled table's cells.
    const { y0, y1 } = line.bbox;
    const borders = uprights
      .filter((r) => r.y0 <= (y0 + y1) / 2 && r.y1 >= (y0 + y1) / 2)
      .map((r) => (r.x0 + r.x1) / 2);
    const runs = wordRuns(line.words, size, cellGapEm, borders);
    if (runs.length === 0) continue;
    const { x0 } = line.bbox;
    // Baseline height at the line's start (Tesseract gives it as a line through two points): one for all its
    // runs, which line recovery then joins as one line whatever the page's skew.
    const slope = baseline.x1 !== baseline.x0 ? (baseline.y1 - baseline.y0) / (baseline.x1 - baseline.x0) : 0;
    const baselineY = baseline.y0 + slope * (x0 - baseline.x0);
    slopes.push(slope);
    const start = line.words.find((w) => w.text.trim() !== "")?.bbox.x0 ?? x0;
    lineBoxes.push({ ...line.bbox, x0: start, baseline: baselineY, em: size });
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
        ...weightOf(grey, run, line.bbox, size),
        ...(run.parts
          ? { parts: run.parts.map((w) => ({ text: w.text, x: w.x0 * points, width: (w.x1 - w.x0) * points })) }
          : {}),
      });
    }
  }
  // Each line's baseline carried to the page's left edge along the page's skew (the lines' median slope; a short
  // line's own is rough): lines' heights compared across a skewed page, for finding a table's rows.
  const skew = slopes.length > 0 ? median(slopes) : 0;
  for (const item of placed) item.level = item.y + skew * item.lineX;
  // Columns set closer than a cell's gap parted by their alignment down the rows, before rows are found.
  const cells = splitAtColumns(placed);
  const { order, baselines } = scanOrder(cells);
  const ordered = order.map((i) => ({ ...cells[i]!, y: baselines.get(i) ?? cells[i]!.y }));
  const bold = boldItems(ordered);
  const toPoints = (r: PixelBox) => [
    r.x0 * points,
    (page.height - r.y1) * points,
    r.x1 * points,
    (page.height - r.y0) * points,
  ];
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
      font: Uint32Array.from(ordered, (_, i) => (bold.has(i) ? 1 : 0)),
      confidence: Float64Array.from(confidences),
      fonts: ["ocr", "ocr-bold"],
      monospace: [],
      rules: Float64Array.from(rules.flatMap(toPoints)),
      marks: Float64Array.from((grey ? bulletMarks(grey, threshold, lineBoxes) : []).flatMap(toPoints)),
    },
    confidence: words > 0 ? confidence / words : 0,
    words,
  };
}

/**
 * A run set this much heavier than the page's usual type (its strokes'
 * width to its size) is bold: a bold face's stems are about 1.6 times its
 * regular's, and measured stroke widths of one face scatter by about a tenth.
 */
const BOLD_WEIGHT = 1.3;
/** Runs of fewer letters than this are too little ink to weigh the page's usual type by. */
const WEIGHED_MIN_LETTERS = 3;

/** A run's stroke width to its size (`ink.ts`), when it has strokes to measure. */
function weightOf(grey: GreyImage | undefined, run: WordRun, line: Bbox, size: number): { weight?: number } {
  if (!grey || size <= 0) return {};
  const stroke = strokeWidth(grey, run.x0, line.y0, run.x1, line.y1);
  return stroke === undefined ? {} : { weight: stroke / size };
}

/** Indices of the items set in bold: heavier by BOLD_WEIGHT than the page's usual weight. */
function boldItems(items: { text: string; weight?: number }[]): Set<number> {
  const weights = items.flatMap((item) =>
    item.weight !== undefined && (item.text.match(/\p{L}/gu)?.length ?? 0) >= WEIGHED_MIN_LETTERS ? [item.weight] : [],
  );
  const bold = new Set<number>();
  if (weights.length === 0) return bold;
  const usual = median(weights);
  items.forEach((item, i) => {
    if (item.weight !== undefined && item.weight >= BOLD_WEIGHT * usual) bold.add(i);
  });
  return bold;
}

/** How far a line's row height strays from the page's usual one with the letters it has (see `recognize`). */
const PAGE_SIZE_SPREAD = 0.15;

/** A heading's wrapped line starts at most this many of its sizes below the line before, and is within this share of its size. */
const WRAPPED_GAP_EM = 0.6;
const HEADING_SIZE_SPREAD = 0.2;

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

/** A line Tesseract read, with its paragraph's usual row height. */
interface PageLine {
  line: Line;
  usual: number;
  /** In an area read again as a table: the gap that parts its cells, in ems. */
  cellGapEm?: number;
}

function pageLines(blocks: Block[]): PageLine[] {
  return blocks.flatMap((block) =>
    block.paragraphs.flatMap((paragraph) => {
      const usual = median(paragraph.lines.map((line) => line.rowAttributes.rowHeight));
      return paragraph.lines.map((line) => ({ line, usual }));
    }),
  );
}

/** The page's lines with those in each area replaced by the area's lines read again, where the first of them was. */
function withAreasReread(lines: PageLine[], areas: Box[], reread: PageLine[][]): PageLine[] {
  const out: PageLine[] = [];
  const placed = new Set<number>();
  for (const item of lines) {
    // An area read again to nothing keeps what the first reading found.
    const k = areas.findIndex((area, j) => reread[j]!.length > 0 && centredIn(item.line.bbox, area));
    if (k === -1) out.push(item);
    else if (!placed.has(k)) {
      placed.add(k);
      out.push(...reread[k]!);
    }
  }
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
