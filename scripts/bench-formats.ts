/**
 * `npm run bench:formats` (part of `npm run bench`): extraction speed per
 * format, in MB of input a second, Chunkwise beside officeparser, over every
 * fixture in tests/fixtures/formats with a reference text (the files the
 * formats evaluation scores; hostile ones have none). Each reader reads each
 * format's files once to warm up, then again and again until at least
 * MIN_SECONDS have passed; the rate is bytes read over time taken, one
 * document at a time in this thread.
 *
 *   npm run bench:formats [-- --seconds 2]
 */
import { parseArgs } from "node:util";
import { loadConfig } from "@/lib/ground/config";
import { chunkwiseReader, type Fixture, formatFixtures, officeparserReader, type Reader } from "@/eval/formats";

async function rate(reader: Reader, fixtures: Fixture[], minSeconds: number): Promise<number | string> {
  try {
    for (const f of fixtures) await reader.read(f.bytes, f.name);
  } catch (error) {
    return `failed (${error instanceof Error ? error.message.slice(0, 50) : String(error)})`;
  }
  let bytes = 0;
  const started = performance.now();
  do {
    for (const f of fixtures) {
      await reader.read(f.bytes, f.name);
      bytes += f.bytes.length;
    }
  } while (performance.now() - started < minSeconds * 1000);
  return bytes / (1024 * 1024) / ((performance.now() - started) / 1000);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: "string", default: "2" } } });
  const minSeconds = Number(values.seconds);
  const config = loadConfig();
  const readers = [
    chunkwiseReader({
      maxUnpackedBytes: config.limits.maxUnpackedBytes,
      markup: config.limits.markup,
      maxChars: config.limits.maxCharsPerRequest,
      maxPages: config.limits.maxPagesPerRequest,
      maxOcrPages: config.ocr.syncMaxPages,
      timeoutMs: config.limits.extractTimeoutMs,
      maxSheetCells: config.limits.maxSheetCells,
      maxEmailDepth: config.limits.maxEmailDepth,
    }),
    officeparserReader,
  ];
  const byFormat = new Map<string, Fixture[]>();
  for (const f of formatFixtures()) byFormat.set(f.format, [...(byFormat.get(f.format) ?? []), f]);
  console.log(`Extraction speed, MB of input a second (node ${process.version}, at least ${minSeconds} s a cell)\n`);
  console.log(`| format | files | KB | ${readers.map((r) => r.label).join(" | ")} |`);
  console.log(`| --- | --- | --- | ${readers.map(() => "---").join(" | ")} |`);
  for (const [format, fixtures] of byFormat) {
    const kb = fixtures.reduce((n, f) => n + f.bytes.length, 0) / 1024;
    const cells: string[] = [];
    for (const reader of readers) {
      const r = await rate(reader, fixtures, minSeconds);
      cells.push(typeof r === "number" ? r.toFixed(2) : r);
    }
    console.log(`| ${format} | ${fixtures.length} | ${kb.toFixed(0)} | ${cells.join(" | ")} |`);
  }
}

await main();
