/**
 * `npm run bench` (its PDF part): seconds per page of reading a long text
 * PDF into Markdown (tables, lists and headings recovered), beside what a
 * user would pick instead: opendataloader-pdf (its Java CLI, through
 * @opendataloader/pdf, with opendataloader-bench's options) and pdf2md, on
 * the same file, in one run, as ratios.
 *
 * The PDF is printed here by Debian's Chromium from tests/fixtures/layout.html
 * (tables, drawn bullets, two columns) repeated to about 40 pages. Each
 * engine reads it three times after a warm-up; the median counts.
 * opendataloader is timed two ways: a whole call, as a user runs it once,
 * and with the JVM's start taken off (the time of a call on a one-word page).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { convert } from "@opendataloader/pdf";
import { PDFDocument } from "pdf-lib";
import { loadConfig } from "@/lib/ground/config";
import { extract } from "@/lib/extract";
import { type Engine, ODL_OPTIONS, opendataloaderEngine, pdf2mdEngine } from "@/eval/layout-engines";
import { launchChromium, printPdf } from "@/tests/helpers/chromium";

const REPEAT = 30;
const ROUNDS = 3;
const LIMITS = {
  maxUnpackedBytes: 1e8,
  markup: loadConfig({}).limits.markup,
  maxChars: 1e7,
  maxPages: 1000,
  maxOcrPages: 0,
  timeoutMs: 600_000,
};

async function longPdf(): Promise<Uint8Array> {
  const html = readFileSync("tests/fixtures/layout.html", "utf8");
  const body = /<body>([\s\S]*)<\/body>/.exec(html)![1]!;
  const browser = await launchChromium();
  try {
    return await printPdf(browser, html.replace(body, body.repeat(REPEAT)));
  } finally {
    await browser.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

async function timeRounds(run: () => Promise<number>): Promise<number> {
  await run();
  const seconds: number[] = [];
  for (let i = 0; i < ROUNDS; i++) seconds.push(await run());
  return median(seconds);
}

/** The seconds the eval's engine reports for the file (opendataloader's with its JVM start taken off). */
async function engineSeconds(engine: Engine, pdf: Uint8Array, pages: number): Promise<number> {
  return timeRounds(async () => {
    const out = (await engine.convert([{ id: "bench", group: "bench", pdf, pages }])).get("bench");
    if (!out || out.error) throw new Error(`${engine.id}: ${out?.error ?? "no output"}`);
    return out.seconds;
  });
}

/** One call of opendataloader's command line on the file, as a user runs it: JVM start and all. */
async function oneCall(pdf: Uint8Array): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), "bench-odl-"));
  try {
    const file = path.join(dir, "bench.pdf");
    writeFileSync(file, pdf);
    return await timeRounds(async () => {
      const started = performance.now();
      await convert([file], { ...ODL_OPTIONS, outputDir: path.join(dir, "out") });
      return (performance.now() - started) / 1000;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const pdf = await longPdf();
  const pages = (await PDFDocument.load(pdf)).getPageCount();
  const ours = await timeRounds(async () => {
    const started = performance.now();
    await extract(pdf.slice(), { filename: "bench.pdf" }, LIMITS);
    return (performance.now() - started) / 1000;
  });
  const odl = await oneCall(pdf);
  const odlWarm = await engineSeconds(opendataloaderEngine, pdf, pages);
  const pdf2md = await engineSeconds(pdf2mdEngine, pdf, pages);
  const row = (name: string, seconds: number) =>
    `| ${name} | ${seconds.toFixed(2)} | ${(seconds / pages).toFixed(4)} | ${(seconds / ours).toFixed(1)}x |`;
  console.log(`\nPDF reading: a ${pages}-page text PDF printed by Chromium (median of ${ROUNDS} runs)\n`);
  console.log("| engine | seconds | seconds per page | time / Chunkwise's |");
  console.log("| --- | ---: | ---: | ---: |");
  console.log(row("Chunkwise (extract)", ours));
  console.log(row("opendataloader-pdf, one call", odl));
  console.log(row("opendataloader-pdf, JVM start taken off", odlWarm));
  console.log(row("pdf2md", pdf2md));
}

await main();
