/**
 * A scanned job in slices beside the same job in one piece (npm run bench; alone: tsx scripts/bench-jobs.ts).
 *
 * An N-page scan (page 1 of tests/fixtures/structured.pdf made an image, repeated) runs as a `structure` job on a
 * real redis-server, in process: once with slices cut every `--slice-ms` (JOB_SLICE_MS; 60 s by default), once
 * with one slice longer than the job. Reported: each run's total time, its slices, and the pages OCR'd per page
 * of the document (target exactly 1.0: no page read twice), and the sliced run's time against the whole one's
 * (target within 10%).
 *
 *   tsx scripts/bench-jobs.ts [--pages 300] [--slice-ms 60000]
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { PDFDocument } from "pdf-lib";
import { loadConfig } from "@/lib/ground/config";
import { CpuPool, type CpuRunner } from "@/lib/cpu/pool";
import { startJob } from "@/lib/jobs/runner";
import { jobStatus } from "@/lib/jobs/status";
import { createServices } from "@/lib/services";
import { RedisStore } from "@/lib/store";
import { startRedisServer } from "../tests/helpers/redis-server";
import { pdfOfPages } from "../tests/helpers/scans";

const { values } = parseArgs({
  options: { pages: { type: "string", default: "300" }, "slice-ms": { type: "string", default: "60000" } },
});
const pages = Number(values.pages);
const sliceMs = Number(values["slice-ms"]);
if (!Number.isInteger(pages) || pages < 1 || !Number.isInteger(sliceMs) || sliceMs < 1000)
  throw new Error("--pages N (at least 1) --slice-ms MS (at least 1000)");

const structured = new Uint8Array(readFileSync(path.join(process.cwd(), "tests/fixtures/structured.pdf")));
const one = await PDFDocument.load(await pdfOfPages(structured, [{ page: 1, as: "scan" }]));
const many = await PDFDocument.create();
for (let i = 0; i < pages; i++) many.addPage((await many.copyPages(one, [0]))[0]);
const scan = await many.save();

const redis = await startRedisServer();
const store = new RedisStore({ url: redis.url });
const pool = new CpuPool(loadConfig({}).cpu);
let ocrCalls = 0;
/** Each page's OCR, from being handed to the pool to its answer (performance.now() ms). */
let ocrSpans: { start: number; end: number }[] = [];
/** Each slice the in-process engine ran, from its start to its end. */
let sliceSpans: { start: number; end: number }[] = [];
const forJobs = pool.forJobs;
const counting: CpuRunner = {
  run: (task, options) => {
    if (task.op !== "ocr") return forJobs.run(task, options);
    ocrCalls++;
    const span = { start: performance.now(), end: Number.NaN };
    ocrSpans.push(span);
    return forJobs.run(task, options).finally(() => (span.end = performance.now()));
  },
};
Object.defineProperty(pool, "forJobs", { value: counting });

async function run(slice: number) {
  const config = loadConfig({ REDIS_URL: redis.url, JOB_SLICE_MS: String(slice), OCR_JOB_MAX_PAGES: String(pages) });
  const schedule = (work: () => Promise<void>) => {
    const span = { start: performance.now(), end: Number.NaN };
    sliceSpans.push(span);
    void work().finally(() => (span.end = performance.now()));
  };
  const services = createServices(config, { store, cpu: pool, schedule });
  ocrCalls = 0;
  ocrSpans = [];
  sliceSpans = [];
  const started = performance.now();
  const { job_id: id } = await startJob(services, {
    tier: "structure",
    input: { kind: "upload", bytes: scan, filename: "scan.pdf" },
    options: { maxTokens: 512, overlapTokens: 0, outputFormat: "raw", includeNotes: true },
    apiBase: "http://bench.local/api",
    payment: { amount: 0, asset: "USDC", network: "solana-localnet", transaction: null },
  });
  for (;;) {
    const status = await jobStatus(services, id);
    if (status.status === "failed") throw new Error(`job failed: ${JSON.stringify(status.error)}`);
    if (status.status === "completed") break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const seconds = (performance.now() - started) / 1000;
  const record = (await services.jobs.get(id))!.record;
  return { seconds, slices: record.cursor + 1, ocrPerPage: ocrCalls / pages, ...whereTimeGoes(started) };
}

/**
 * Where a run's time went besides OCR: `idle`, the seconds no page was being OCR'd (or queued for it) between the
 * job's acceptance and its last page; per slice, `setup` (its start to its first page handed to OCR: the document
 * loaded, opened, what earlier slices stored fetched, the first page rendered) and `handover` (the previous
 * slice's last page read to this slice's start: the rest of its pages drained, the cursor written, the slice
 * published and started).
 */
function whereTimeGoes(started: number) {
  const spans = [...ocrSpans].sort((a, b) => a.start - b.start);
  let idle = 0;
  let reach = started;
  for (const span of spans) {
    idle += Math.max(0, span.start - reach);
    reach = Math.max(reach, span.end);
  }
  const setups: number[] = [];
  const handovers: number[] = [];
  sliceSpans.forEach((slice, i) => {
    const first = spans.find((span) => span.start >= slice.start);
    if (first && first.start <= slice.end) setups.push(first.start - slice.start);
    if (i === 0) return;
    const lastBefore = Math.max(...spans.filter((span) => span.end <= slice.start).map((span) => span.end));
    if (Number.isFinite(lastBefore)) handovers.push(slice.start - lastBefore);
  });
  const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length / 1000 : 0);
  const ocrSeconds = spans.reduce((sum, span) => sum + (span.end - span.start), 0) / 1000;
  return { idle: idle / 1000, setup: mean(setups), handover: mean(handovers), ocrSeconds };
}

try {
  console.log(
    `# A ${pages}-page scanned job: slices of ${sliceMs / 1000} s beside one piece (${loadConfig({}).cpu.jobThreads} job CPU threads)\n`,
  );
  const sliced = await run(sliceMs);
  console.log(
    `sliced: ${sliced.seconds.toFixed(1)} s, ${sliced.slices} slices, ${sliced.ocrPerPage.toFixed(2)} OCR per page (load ${loadavg()[0]!.toFixed(2)})`,
  );
  // One slice as long as a job may live (JOB_SLICE_MS's maximum): the job in one piece.
  const whole = await run(3600 * 1000);
  console.log(`one piece: ${whole.seconds.toFixed(1)} s (load ${loadavg()[0]!.toFixed(2)})\n`);
  console.log(
    "| run | total | slices | pages OCR'd per page | no page in OCR | setup per slice | handover per slice |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  const row = (name: string, r: Awaited<ReturnType<typeof run>>) =>
    console.log(
      `| ${name} | ${r.seconds.toFixed(1)} s | ${r.slices} | ${r.ocrPerPage.toFixed(2)} | ${r.idle.toFixed(1)} s | ${r.setup.toFixed(2)} s | ${r.slices > 1 ? `${r.handover.toFixed(2)} s` : "-"} |`,
    );
  row(`sliced every ${sliceMs / 1000} s`, sliced);
  row("one piece", whole);
  // On a shared machine the two runs see different loads, and OCR's own speed moves the ratio more than slicing does.
  // Slicing's own cost is the time no page was in OCR beyond the whole run's: added to the whole run's time, it
  // gives the ratio at equal OCR speed.
  const own = sliced.idle - whole.idle;
  console.log(
    `\nOCR in flight: sliced ${(sliced.seconds - sliced.idle).toFixed(1)} s, whole ${(whole.seconds - whole.idle).toFixed(1)} s. ` +
      `Slicing's own cost: ${own.toFixed(1)} s over ${sliced.slices - 1} handovers (${(own / Math.max(1, sliced.slices - 1)).toFixed(2)} s each); ` +
      `at equal OCR speed sliced / whole = ${((whole.seconds + own) / whole.seconds).toFixed(3)}.`,
  );
  const ratio = sliced.seconds / whole.seconds;
  console.log(
    `\nSliced / whole: ${ratio.toFixed(3)} (target at most 1.10); pages OCR'd per page ${sliced.ocrPerPage.toFixed(2)} (target 1.00).`,
  );
} finally {
  await pool.close();
  await store.close();
  await redis.stop();
}
