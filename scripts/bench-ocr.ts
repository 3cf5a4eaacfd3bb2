/**
 * `npm run bench` (its OCR part): pages per minute of a scanned PDF read by
 * the service (each page's stored image decoded by pdf.js, read by
 * tesseract.js in the CPU pool, two worker threads), beside the Tesseract command line (Debian's
 * `tesseract-ocr` 5, native code, what a user would run instead), two pages
 * at a time with one thread each, on the same page images. Word accuracy of
 * both on those pages says they did the same work.
 *
 * The scan is made here, deterministically: the WikiText excerpt of the tests
 * (CC BY-SA 3.0) set in 11 pt Helvetica on A4 pages with pdf-lib, each page
 * rendered at 200 pixels per inch by the service's own PDF worker
 * (tests/helpers/scans.ts), and the images put back into a PDF without a
 * text layer.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pLimit from "p-limit";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { loadConfig } from "@/lib/ground/config";
import { CpuPool, extractStepsOnCpu } from "@/lib/cpu/pool";
import { extract } from "@/lib/extract";
import { RENDER_DPI } from "@/lib/extract/ocr/settings";
import { wordAccuracy } from "../eval/ocr-accuracy";
import { renderPages } from "../tests/helpers/scans";

const PAGES = 12;
const THREADS = 2;
const LIMITS = {
  maxUnpackedBytes: 1e8,
  markup: loadConfig({}).limits.markup,
  maxChars: 1e7,
  maxPages: 1000,
  maxOcrPages: 1000,
  timeoutMs: 600_000,
};

/** The excerpt's prose, one paragraph a line; titles, blank lines and paragraphs beyond ASCII (Helvetica's WinAnsi) dropped. */
function paragraphs(): string[] {
  return readFileSync(path.join(process.cwd(), "tests/fixtures/wikitext-excerpt.md"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 80 && !line.startsWith("=") && /^[\x20-\x7e]+$/.test(line));
}

/** A text PDF of `pages` dense pages, and each page's words as set. */
async function typesetPdf(pages: number): Promise<{ pdf: Uint8Array; pageTexts: string[] }> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const [size, leading, margin, width, height] = [11, 14, 60, 595, 842];
  const pageTexts: string[] = [];
  const source = paragraphs();
  let next = 0;
  for (let p = 0; p < pages; p++) {
    const page = pdf.addPage([width, height]);
    const lines: string[] = [];
    let y = height - margin;
    while (y > margin + leading) {
      const words = source[next++ % source.length]!.split(/\s+/);
      let line = "";
      for (const word of words) {
        const candidate = line ? `${line} ${word}` : word;
        if (font.widthOfTextAtSize(candidate, size) <= width - 2 * margin) {
          line = candidate;
          continue;
        }
        page.drawText(line, { x: margin, y, size, font });
        lines.push(line);
        line = word;
        y -= leading;
        if (y <= margin) break;
      }
      if (y > margin && line) {
        page.drawText(line, { x: margin, y, size, font });
        lines.push(line);
      }
      y -= leading * 1.6;
    }
    pageTexts.push(lines.join(" "));
  }
  return { pdf: await pdf.save(), pageTexts };
}

async function scanPdf(images: Uint8Array[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  for (const bytes of images) {
    const image = await pdf.embedPng(bytes);
    const scale = 72 / RENDER_DPI;
    pdf
      .addPage([image.width * scale, image.height * scale])
      .drawImage(image, { x: 0, y: 0, width: image.width * scale, height: image.height * scale });
  }
  return pdf.save();
}

const run = promisify(execFile);

async function tesseractCli(images: Uint8Array[]): Promise<{ seconds: number; texts: string[] } | string> {
  try {
    await run("tesseract", ["--version"]);
  } catch {
    return "not installed (apt-get install tesseract-ocr)";
  }
  const dir = mkdtempSync(path.join(tmpdir(), "bench-ocr-"));
  try {
    const files = images.map((bytes, i) => {
      const file = path.join(dir, `page-${i + 1}.png`);
      writeFileSync(file, bytes);
      return file;
    });
    const limit = pLimit(THREADS);
    const started = performance.now();
    const texts = await Promise.all(
      files.map((file) =>
        limit(async () => {
          const args = [file, "-", "-l", "eng", "--psm", "3", "--dpi", String(RENDER_DPI)];
          const { stdout } = await run("tesseract", args, { env: { ...process.env, OMP_THREAD_LIMIT: "1" } });
          return stdout;
        }),
      ),
    );
    return { seconds: (performance.now() - started) / 1000, texts };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  console.log(
    `OCR: ${PAGES} dense A4 pages rendered at ${RENDER_DPI} dpi, ${THREADS} threads (${availableParallelism()} cores here)`,
  );
  const { pdf, pageTexts } = await typesetPdf(PAGES);
  const images = await renderPages(
    pdf,
    Array.from({ length: PAGES }, (_, i) => i + 1),
    RENDER_DPI,
  );
  const scan = await scanPdf(images);

  const pool = new CpuPool({ threads: THREADS, queue: 16, taskTimeoutMs: 600_000, heapMb: 1024 });
  const steps = extractStepsOnCpu(pool, ["eng"]);
  try {
    // Each thread starts its Tesseract once (~0.5 s); a running service has.
    await extract(await scanPdf(images.slice(0, THREADS)), {}, LIMITS, steps);
    const started = performance.now();
    const doc = await extract(scan, {}, LIMITS, steps);
    const seconds = (performance.now() - started) / 1000;
    const ours = pageTexts.map((expected, i) =>
      wordAccuracy(expected, doc.text.slice(doc.pages![i]!.start, doc.pages![i]!.end)),
    );
    const cli = await tesseractCli(images);

    const rows: [string, number, number][] = [["Chunkwise (tesseract.js in the CPU pool)", seconds, mean(ours)]];
    if (typeof cli !== "string")
      rows.push([
        "tesseract 5 command line",
        cli.seconds,
        mean(pageTexts.map((expected, i) => wordAccuracy(expected, cli.texts[i]!))),
      ]);
    console.log("| reader | s for the scan | pages/min | word accuracy |\n|---|---|---|---|");
    for (const [name, s, accuracy] of rows)
      console.log(`| ${name} | ${s.toFixed(1)} | ${((PAGES / s) * 60).toFixed(1)} | ${(accuracy * 100).toFixed(1)}% |`);
    if (typeof cli === "string") console.log(`tesseract command line: ${cli}`);
    else console.log(`Chunkwise / command line, time: ${(seconds / cli.seconds).toFixed(2)}×`);
  } finally {
    await pool.close();
  }
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

await main();
