/**
 * What a job's resumed slice does before its first page is in OCR, one step at a time, on an N-page scan (page 1 of
 * tests/fixtures/structured.pdf made an image, repeated; the document of scripts/bench-jobs.ts) with its reading and
 * OCR'd pages already stored on a real redis-server: the document loaded from the store, opened by pdf.js, the
 * stored text layer and OCR'd pages fetched, the first page's image made (the middle page: a resumed slice starts past page 1); beside what parsing every page's text
 * layer again (what a slice did before the reading was kept) takes.
 *
 *   tsx scripts/bench-slice-setup.ts [--pages 60] [--rounds 3]
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { PDFDocument } from "pdf-lib";
import { z } from "zod";
import { failures } from "@/lib/extract/failures";
import { MAX_OCR_PIXELS, RENDER_DPI, SCAN_BLUR_SIGMA } from "@/lib/extract/ocr/settings";
import type { OcrPage, PdfPageItems } from "@/lib/extract/page-items";
import { withWorker } from "@/lib/extract/worker";
import { JobMemo } from "@/lib/jobs/job-memo";
import { RedisStore } from "@/lib/store";
import { startRedisServer } from "../tests/helpers/redis-server";
import { pdfOfPages } from "../tests/helpers/scans";

const { values } = parseArgs({
  options: { pages: { type: "string", default: "60" }, rounds: { type: "string", default: "3" } },
});
const pages = Number(values.pages);
const rounds = Number(values.rounds);

const structured = new Uint8Array(readFileSync(path.join(process.cwd(), "tests/fixtures/structured.pdf")));
const one = await PDFDocument.load(await pdfOfPages(structured, [{ page: 1, as: "scan" }]));
const many = await PDFDocument.create();
for (let i = 0; i < pages; i++) many.addPage((await many.copyPages(one, [0]))[0]);
const bytes = await many.save();

const Anything = z.object({ ok: z.literal(true) }).passthrough();
const Items = z.object({ ok: z.literal(true), pages: z.array(z.any()) });
const session = { timeoutMs: 600_000, damaged: failures.corruptedPdf };
const redis = await startRedisServer();
const store = new RedisStore({ url: redis.url });
try {
  const ttlMs = 600_000;
  await store.set("bench:document", Buffer.from(bytes).toString("base64"), { ttlMs });
  const memo = new JobMemo(store, { id: "bench", expiresAt: Date.now() + ttlMs, killed: new AbortController().signal });
  await withWorker(session, async (worker) => {
    await worker.call({ op: "pdf-open", data: bytes }, Anything);
    const read = await worker.call({ op: "pdf-items" }, Items);
    if (!read.ok) throw new Error("the scan did not parse");
    const parsed = read.pages as PdfPageItems[];
    await memo.textLayer.putMany(parsed.map((page, i) => [i + 1, page]));
    // An OCR'd page about as large as a dense one: 400 words.
    const words = 400;
    const ocr: OcrPage = {
      items: {
        ...parsed[0]!,
        text: Array<string>(words).fill("harbour"),
        geometry: new Float64Array(words * 5),
        font: new Uint32Array(words),
        confidence: new Float64Array(words),
      },
      confidence: 90,
      words,
    };
    await memo.pages.putMany(parsed.map((_, k) => [k, ocr]));
  });

  console.log(`# A resumed slice's setup: ${pages}-page scan, ${(bytes.length / 1e6).toFixed(1)} MB\n`);
  console.log(
    "| round | document from store | opened | stored text layer | stored OCR'd pages | first page's image | every page parsed again | load |",
  );
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (let round = 1; round <= rounds; round++) {
    const ms = (since: number) => `${(performance.now() - since).toFixed(0)} ms`;
    let since = performance.now();
    const document = new Uint8Array(Buffer.from((await store.get("bench:document"))!, "base64"));
    const loaded = ms(since);
    await withWorker(session, async (worker) => {
      since = performance.now();
      await worker.call({ op: "pdf-open", data: document }, Anything);
      const opened = ms(since);
      since = performance.now();
      await memo.textLayer.getMany(Array.from({ length: pages }, (_, i) => i + 1));
      const textLayer = ms(since);
      since = performance.now();
      await memo.pages.getMany(Array.from({ length: pages }, (_, k) => k));
      const ocrPages = ms(since);
      since = performance.now();
      const image = {
        op: "pdf-page-image" as const,
        page: Math.ceil(pages / 2),
        dpi: RENDER_DPI,
        maxPixels: MAX_OCR_PIXELS,
      };
      await worker.call({ ...image, blur: SCAN_BLUR_SIGMA }, Anything);
      const firstImage = ms(since);
      since = performance.now();
      await worker.call({ op: "pdf-items" }, Items);
      const parsedAgain = ms(since);
      console.log(
        `| ${round} | ${loaded} | ${opened} | ${textLayer} | ${ocrPages} | ${firstImage} | ${parsedAgain} | ${loadavg()[0]!.toFixed(2)} |`,
      );
    });
  }
} finally {
  await store.close();
  await redis.stop();
}
