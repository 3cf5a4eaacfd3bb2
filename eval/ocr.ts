import { PDFDocument } from "pdf-lib";
import { chunkExtracted } from "@/lib/pipeline/chunk-result";
import sharp from "sharp";
import type { MethodContext } from "@/lib/pipeline/chunk-result";
import type { ExtractSteps } from "@/lib/extract/steps";
import type { Extracted, ExtractLimits } from "@/lib/extract/types";
import { extract } from "@/lib/extract";
import { RENDER_DPI } from "@/lib/extract/ocr/settings";
import { mulberry32 } from "@/tests/helpers/random";
import { renderPages } from "@/tests/helpers/scans";
import { pk } from "./metrics";
import { alignWords, wordAccuracy, words } from "./ocr-accuracy";

/**
 * OCR in the evaluation: text PDFs made into scans (every page rendered, the
 * images put into a PDF without a text layer), clean and degraded, read by
 * the service's OCR, and scored against the same PDFs' text layers, page by
 * page: the text a reader of the scan should get.
 */

export interface ScanSource {
  name: string;
  pdf: Uint8Array;
}

/** How a page image is spoiled before it is read, as a scanner or a phone would. */
export interface Degradation {
  id: string;
  label: string;
  dpi: number;
  /** Standard deviation of grey noise added to every pixel (0-255). */
  noise: number;
  /** Clockwise rotation in degrees. */
  skew: number;
}

export const DEGRADATIONS: Degradation[] = [
  { id: "clean", label: `clean, ${RENDER_DPI} ppi`, dpi: RENDER_DPI, noise: 0, skew: 0 },
  { id: "150", label: "150 ppi", dpi: 150, noise: 0, skew: 0 },
  { id: "noise", label: `${RENDER_DPI} ppi, grey noise σ 40`, dpi: RENDER_DPI, noise: 40, skew: 0 },
  { id: "skew", label: `${RENDER_DPI} ppi, skewed 1.5°`, dpi: RENDER_DPI, noise: 0, skew: 1.5 },
  { id: "all", label: "150 ppi, noise σ 40, skewed 1.5°", dpi: 150, noise: 40, skew: 1.5 },
];

const NOISE_SEED = 14;

/** `source` as a scan spoiled by `how`: one image a page, each page its original size. */
export async function scanOf(source: ScanSource, how: Degradation): Promise<Uint8Array> {
  const original = await PDFDocument.load(source.pdf);
  const numbers = original.getPages().map((_, i) => i + 1);
  const images = await renderPages(source.pdf, numbers, how.dpi);
  const random = mulberry32(NOISE_SEED);
  const scan = await PDFDocument.create();
  for (const [i, png] of images.entries()) {
    const image = await scan.embedPng(await degrade(png, how, random));
    const { width, height } = original.getPage(i).getSize();
    scan.addPage([width, height]).drawImage(image, { x: 0, y: 0, width, height });
  }
  return scan.save();
}

async function degrade(png: Uint8Array, how: Degradation, random: () => number): Promise<Uint8Array> {
  if (how.noise === 0 && how.skew === 0) return png;
  let page = sharp(png);
  if (how.skew !== 0) page = page.rotate(how.skew, { background: "#ffffff" });
  const { data, info } = await page.toColourspace("b-w").raw().toBuffer({ resolveWithObject: true });
  if (how.noise > 0)
    for (let i = 0; i < data.length; i++) {
      // Box-Muller: a normal deviate from two uniform ones.
      const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
      data[i] = Math.max(0, Math.min(255, Math.round(data[i]! + how.noise * normal)));
    }
  const raw = { width: info.width, height: info.height, channels: 1 as const };
  return new Uint8Array(await sharp(data, { raw }).png().toBuffer());
}

export interface ScanScores {
  pages: number;
  /** Mean word accuracy over pages. */
  accuracy: number;
  /** The lowest page's. */
  worst: number;
  seconds: number;
}

/** A source read from its text layer and from its scan. */
export interface ScanReading {
  text: Extracted;
  scan: Extracted;
  /** Reading the scan, from bytes to text. */
  seconds: number;
}

export async function readScan(
  source: ScanSource,
  text: Extracted,
  how: Degradation,
  limits: ExtractLimits,
  steps: ExtractSteps,
): Promise<ScanReading> {
  const bytes = await scanOf(source, how);
  const started = performance.now();
  const scan = await extract(bytes, {}, limits, steps);
  return { text, scan, seconds: (performance.now() - started) / 1000 };
}

/** Word accuracy of scans against their text layers, page by page. */
export function scoreScans(readings: ScanReading[]): ScanScores {
  const accuracies: number[] = [];
  let seconds = 0;
  for (const { text, scan: read, seconds: s } of readings) {
    seconds += s;
    text.pages!.forEach((page, i) =>
      accuracies.push(wordAccuracy(pageText(text, page), pageText(read, read.pages![i]!))),
    );
  }
  return {
    pages: accuracies.length,
    accuracy: accuracies.reduce((a, b) => a + b, 0) / accuracies.length,
    worst: Math.min(...accuracies),
    seconds,
  };
}

const pageText = (doc: Extracted, range: { start: number; end: number }) => doc.text.slice(range.start, range.end);

export interface ChunkAgreement {
  chunks: [text: number, scan: number];
  /** Pk of the scan's chunk boundaries against the text copy's, over the text copy's words (0: the same cuts). */
  pk: number;
}

/**
 * How alike a tier cuts the scanned copy and the text copy: both chunked,
 * the scan's chunk starts carried onto the text copy's words through a word
 * alignment, and the two sets of cuts compared with Pk.
 */
export async function chunkAgreement(
  text: Extracted,
  scan: Extracted,
  tier: "free" | "structure",
  maxTokens: number,
  context: MethodContext,
): Promise<ChunkAgreement> {
  const options = { maxTokens, overlapTokens: 0 };
  const [fromText, fromScan] = await Promise.all([
    chunkExtracted(text, tier, options, context),
    chunkExtracted(scan, tier, options, context),
  ]);
  const textWords = words(text.text);
  const toText = alignWords(textWords, words(scan.text));
  const wordIndex = (doc: Extracted, offset: number) => words(doc.text.slice(0, offset)).length;
  const reference = fromText.chunks.map((c) => wordIndex(text, c.metadata.start));
  const hypothesis = fromScan.chunks.map((c) => toText[wordIndex(scan, c.metadata.start)] ?? textWords.length);
  return {
    chunks: [fromText.chunks.length, fromScan.chunks.length],
    pk: pk({ length: textWords.length, boundaries: reference }, { length: textWords.length, boundaries: hypothesis }),
  };
}

const percent = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The evaluation's "Scans (OCR)" section: word accuracy per degradation, and chunk agreement of scan and text copies. */
export async function ocrSection(
  sources: ScanSource[],
  limits: ExtractLimits,
  steps: ExtractSteps,
  maxTokens: number,
  context: MethodContext,
): Promise<string> {
  const accuracyRows: string[] = [];
  const readings = new Map<Degradation, ScanReading[]>();
  const texts: Extracted[] = [];
  for (const source of sources) texts.push(await extract(source.pdf, {}, limits, steps));
  for (const how of DEGRADATIONS) {
    const read: ScanReading[] = [];
    for (const [i, source] of sources.entries()) read.push(await readScan(source, texts[i]!, how, limits, steps));
    readings.set(how, read);
    const scores = scoreScans(read);
    console.error(`  ocr ${how.id}: ${scores.seconds.toFixed(1)} s`);
    accuracyRows.push(
      `| ${how.label} | ${scores.pages} | ${percent(scores.accuracy)} | ${percent(scores.worst)} | ${((scores.pages / scores.seconds) * 60).toFixed(1)} |`,
    );
  }
  const agreementRows: string[] = [];
  for (const how of [DEGRADATIONS[0]!, DEGRADATIONS.at(-1)!])
    for (const tier of ["free", "structure"] as const) {
      let [textChunks, scanChunks, pkSum] = [0, 0, 0];
      for (const { text, scan } of readings.get(how)!) {
        const agreement = await chunkAgreement(text, scan, tier, maxTokens, context);
        textChunks += agreement.chunks[0];
        scanChunks += agreement.chunks[1];
        pkSum += agreement.pk;
      }
      agreementRows.push(
        `| ${how.label} | ${tier} | ${textChunks} | ${scanChunks} | ${(100 * (pkSum / sources.length)).toFixed(1)} |`,
      );
    }
  return [
    "### Scans (OCR)",
    "",
    `Text PDFs made into scans (${sources.map((s) => s.name).join(", ")}): every page rendered by the service's PDF renderer, ` +
      "spoiled as the row says (noise seeded), and put back into a PDF without a text layer, which the service reads by OCR " +
      "(tesseract.js, English, two CPU-pool threads). Word accuracy is 1 - word edit distance / words of the same page's text layer " +
      "(letters and digits, case and punctuation ignored); targets: 97% clean, 90% degraded.",
    "",
    "| scan | pages | word accuracy | lowest page | pages a minute |",
    "|---|---|---|---|---|",
    ...accuracyRows,
    "",
    `Chunks of the scanned copy against the text copy, at ${maxTokens} tokens without overlap: the scan's chunk starts carried ` +
      "onto the text copy's words by a word alignment, and Pk (×100, mean over documents) of those cuts against the text copy's " +
      "(0: the same cuts).",
    "",
    "| scan | tier | chunks of the text copy | chunks of the scan | Pk |",
    "|---|---|---|---|---|",
    ...agreementRows,
    "",
  ].join("\n");
}
