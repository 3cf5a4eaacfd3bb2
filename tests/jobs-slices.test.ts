import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { EventEmitter } from "node:events";
import { Worker } from "node:worker_threads";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/ground/config";
import { CpuPool, type CpuRunner } from "@/lib/cpu/pool";
import { startJob, runSlice } from "@/lib/jobs/runner";
import { jobStatus } from "@/lib/jobs/status";
import { receiveStep } from "@/lib/http/step-delivery";
import { createServices, type Services } from "@/lib/services";
import { RedisStore } from "@/lib/store";
import { type ModelStandin, startModelStandin } from "@/standin/model-server";
import { type QStashStandin, startQStashStandin } from "./helpers/qstash-standin";
import { Webhook } from "standardwebhooks";
import { newJobWebhook } from "@/lib/webhooks/job-webhook";
import { type RedisServer, startRedisServer } from "./helpers/redis-server";
import { pdfOfPages } from "./helpers/scans";

/**
 * Jobs in slices (lib/jobs/runner.ts) on a real redis-server, under the function-limit harness
 * (`FUNCTION_LIMIT_MS`: a slice still running then is killed, its writes refused): a 40-page scan and an ai-pro job
 * on a 200-page document complete in many slices, each page OCR'd once and each model call made once; duplicate and
 * stale deliveries do nothing; a killed slice's job resumes. Once in process (no QStash at all), once through QStash's
 * stand-in, which signs its deliveries as QStash does, duplicates them and drops one.
 */

let redis: RedisServer;
let store: RedisStore;
let model: ModelStandin;
let pool: CpuPool;
let ocrCalls = 0;
/** PDF pages whose text layer pdf.js parsed (pages in the extract worker's "pdf-items" answers), for any job. */
let parsedPages = 0;
let scan: Uint8Array;
/** A text PDF (no OCR) of TEXT_PDF_PAGES pages: its reading is all a slice would redo. */
let textPdf: Uint8Array;
const TEXT_PDF_PAGES = 120;
/** The 200-page document's model calls when its job runs in one piece: what every sliced run must make, no more. */
let callsInOnePiece = 0;
const background = new Set<Promise<void>>();
let restoreWorkerEmit = () => undefined as void;
const built: Services[] = [];

const SCAN_PAGES = 40;
const LONG_TEXT = new TextEncoder().encode(
  Array.from(
    { length: 200 },
    (_, page) =>
      `Section ${page + 1}\n\n` +
      Array.from({ length: 6 }, (_, p) =>
        `Paragraph ${p + 1} of section ${page + 1} describes the harbour's ledger, its tides and the ships that came in on day ${page * 6 + p}. `.repeat(
          4,
        ),
      ).join("\n\n"),
  ).join("\n\n"),
);

function services(env: Record<string, string>): Services {
  const config = loadConfig({
    REDIS_URL: redis.url,
    AI_BASE_URL: model.url,
    AI_MODEL: "standin-small",
    AI_PRO_MODEL: "standin-large",
    JOB_LEASE_MS: "3000",
    // One model call at a time: a job's calls take (calls x delay) whatever the machine's speed, so a slice
    // deadline shorter than that always cuts it into several slices.
    AI_PRO_CONCURRENCY: "1",
    ...env,
  });
  const made = createServices(config, {
    store,
    cpu: pool,
    schedule: (work) => {
      const running = work().finally(() => background.delete(running));
      background.add(running);
    },
  });
  built.push(made);
  return made;
}

async function submit(s: Services, tier: "structure" | "ai-pro", bytes: Uint8Array, filename: string) {
  const accepted = await startJob(s, {
    tier,
    input: { kind: "upload", bytes, filename },
    options: { maxTokens: 256, overlapTokens: 0, outputFormat: "raw", includeNotes: true },
    apiBase: "http://chunkwise.test/api",
    payment: { amount: 0, asset: "USDC", network: "solana-localnet", transaction: null },
  });
  return accepted.job_id;
}

/** Polls as a client does (a poll also takes over a job whose lease lapsed), until the job ends. */
async function finished(s: Services, id: string, withinMs: number) {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    const status = await jobStatus(s, id);
    if (status.status !== "processing") return status;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`job ${id} did not end within ${withinMs} ms`);
}

const record = async (s: Services, id: string) => (await s.jobs.get(id))!.record;
const result = async (s: Services, id: string) =>
  JSON.parse(await s.results.load((await record(s, id)).result_id!)) as Record<string, any>;

beforeAll(async () => {
  redis = await startRedisServer();
  store = new RedisStore({ url: redis.url });
  model = await startModelStandin({ port: 0 });
  pool = new CpuPool(loadConfig({}).cpu);
  // Every page OCR'd for a job, counted where it is handed to the CPU pool.
  const forJobs = pool.forJobs;
  const counting: CpuRunner = {
    run: (task, options) => {
      if (task.op === "ocr") ocrCalls++;
      return forJobs.run(task, options);
    },
  };
  Object.defineProperty(pool, "forJobs", { value: counting });
  // Each page the extract worker parses, counted where its answer reaches this thread.
  // Worker inherits emit from EventEmitter: shadowed on Worker.prototype for this file, then removed.
  const emit = Object.getOwnPropertyDescriptor(EventEmitter.prototype, "emit")!.value as EventEmitter["emit"];
  Worker.prototype.emit = function (this: Worker, event: string | symbol, ...args: unknown[]) {
    const reply = args[0] as { ok?: unknown; pages?: unknown } | undefined;
    if (
      event === "message" &&
      reply?.ok === true &&
      Array.isArray(reply.pages) &&
      reply.pages.every((page: { geometry?: unknown }) => page?.geometry instanceof Float64Array)
    )
      parsedPages += reply.pages.length;
    return emit.call(this, event, ...args);
  };
  restoreWorkerEmit = () => void delete (Worker.prototype as { emit?: unknown }).emit;
  const text = await PDFDocument.create();
  const font = await text.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= TEXT_PDF_PAGES; i++) {
    const page = text.addPage([420, 595]);
    page.drawText(`Section ${i}`, { x: 40, y: 540, size: 16, font });
    for (let line = 0; line < 30; line++)
      page.drawText(`Line ${line + 1} of section ${i}: the harbour's ledger, its tides and its ships.`, {
        x: 40,
        y: 510 - line * 15,
        size: 10,
        font,
      });
  }
  textPdf = await text.save();
  // One scanned page of tests/fixtures/structured.pdf, made an image at test time, repeated.
  const structured = new Uint8Array(readFileSync(path.join(process.cwd(), "tests/fixtures/structured.pdf")));
  const one = await PDFDocument.load(await pdfOfPages(structured, [{ page: 1, as: "scan" }]));
  const many = await PDFDocument.create();
  for (let i = 0; i < SCAN_PAGES; i++) many.addPage((await many.copyPages(one, [0]))[0]);
  scan = await many.save();

  model.control({ delayMs: 150 });
  const whole = services({ JOB_SLICE_MS: "3600000" });
  const id = await submit(whole, "ai-pro", LONG_TEXT, "long.txt");
  expect(await finished(whole, id, 600_000)).toMatchObject({ status: "completed" });
  expect((await record(whole, id)).cursor).toBe(0);
  callsInOnePiece = model.counters().completions;
  expect(callsInOnePiece).toBeGreaterThan(20);
}, 900_000);

afterAll(async () => {
  restoreWorkerEmit();
  await Promise.allSettled([...background]);
  await pool?.close();
  await model?.close();
  await store?.close();
  await redis?.stop();
});

describe("in process, no QStash, under the function limit", () => {
  it("runs a 40-page scan in many slices, each page OCR'd exactly once; old deliveries do nothing", async () => {
    const s = services({ JOB_SLICE_MS: "4000", FUNCTION_LIMIT_MS: "120000" });
    ocrCalls = 0;
    parsedPages = 0;
    const id = await submit(s, "structure", scan, "scan.pdf");
    expect(await finished(s, id, 1_500_000)).toMatchObject({ status: "completed", progress: 100 });
    const done = await record(s, id);
    expect(done.cursor).toBeGreaterThanOrEqual(2);
    expect(ocrCalls).toBe(SCAN_PAGES);
    // Resumed slices take the document's reading from the store: each page parsed once, not once a slice.
    expect(parsedPages).toBe(SCAN_PAGES);
    const body = await result(s, id);
    expect(body.metadata.ocr_pages).toEqual(Array.from({ length: SCAN_PAGES }, (_, i) => i + 1));
    expect(body.chunks.at(-1).metadata.page_end).toBe(SCAN_PAGES);
    // Each slice delivered again, late: the cursor has moved on (or the job ended), nothing is done twice.
    for (let cursor = 0; cursor <= done.cursor; cursor++)
      expect(await runSlice(s, { job_id: id, cursor })).toBe("stale");
    expect(ocrCalls).toBe(SCAN_PAGES);
  }, 1_600_000);

  it("runs ai-pro on a 200-page document with a slow model in slices, making each model call once", async () => {
    const s = services({ JOB_SLICE_MS: "1500", FUNCTION_LIMIT_MS: "20000" });
    model.reset();
    model.control({ delayMs: 300 });
    const id = await submit(s, "ai-pro", LONG_TEXT, "long.txt");
    expect(await finished(s, id, 600_000)).toMatchObject({ status: "completed" });
    expect((await record(s, id)).cursor).toBeGreaterThanOrEqual(2);
    expect(model.counters().completions).toBe(callsInOnePiece);
    expect((await result(s, id)).document_summary).toEqual(expect.any(String));
  }, 700_000);

  it("parses each page of a PDF once over all its slices: a resumed slice takes the pages earlier ones read", async () => {
    const s = services({ JOB_SLICE_MS: "1000", FUNCTION_LIMIT_MS: "20000" });
    model.reset();
    model.control({ delayMs: 300 });
    parsedPages = 0;
    const id = await submit(s, "ai-pro", textPdf, "sections.pdf");
    expect(await finished(s, id, 600_000)).toMatchObject({ status: "completed" });
    expect((await record(s, id)).cursor).toBeGreaterThanOrEqual(2);
    expect(parsedPages).toBe(TEXT_PDF_PAGES);
    const body = await result(s, id);
    expect(body.chunks.at(-1).metadata.page_end).toBe(TEXT_PDF_PAGES);
    expect(body.chunks.map((c: { text: string }) => c.text).join("\n")).toContain(`Section ${TEXT_PDF_PAGES}`);
  }, 700_000);

  it("kills a slice that overruns the function limit; the next poll resumes the job, which completes", async () => {
    // Limits with room for a loaded machine's slow slices (a slice's own set-up must not reach the limit), and
    // attempts to spare: only the first slice is meant to be killed.
    const s = services({ JOB_SLICE_MS: "3000", FUNCTION_LIMIT_MS: "10000", JOB_MAX_ATTEMPTS: "10" });
    model.reset();
    // Calls slower than the function limit: the first slice is killed in them.
    model.control({ delayMs: 20_000 });
    const id = await submit(s, "ai-pro", LONG_TEXT, "long.txt");
    const until = Date.now() + 120_000;
    while (model.counters().aborted === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    expect(model.counters().aborted).toBeGreaterThan(0);
    model.control({ delayMs: 50 });
    expect(await finished(s, id, 600_000)).toMatchObject({ status: "completed" });
    expect((await record(s, id)).attempts).toBeGreaterThanOrEqual(2);
  }, 700_000);
});

describe("through QStash (its stand-in): signed, duplicated and dropped deliveries", () => {
  let qstash: QStashStandin;
  let receiver: Server;
  let base: string;
  let s: Services;

  beforeAll(async () => {
    qstash = await startQStashStandin();
    // The step route's core behind a plain HTTP server: what QStash would call on the host.
    receiver = createServer((request, response) => {
      void (async () => {
        const parts: Buffer[] = [];
        for await (const part of request) parts.push(part as Buffer);
        const answer = await receiveStep(
          s,
          new Request(`${base}${request.url}`, {
            method: "POST",
            headers: Object.entries(request.headers).flatMap(([k, v]) =>
              typeof v === "string" ? [[k, v] as [string, string]] : [],
            ),
            body: Buffer.concat(parts),
          }),
        ).catch((error: { status?: number }) => new Response(null, { status: error.status ?? 500 }));
        response.writeHead(answer.status).end(Buffer.from(await answer.arrayBuffer()));
      })();
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    s = services({
      JOB_SLICE_MS: "1500",
      FUNCTION_LIMIT_MS: "20000",
      PUBLIC_BASE_URL: base,
      QSTASH_TOKEN: qstash.token,
      QSTASH_URL: qstash.url,
      QSTASH_CURRENT_SIGNING_KEY: qstash.currentSigningKey,
      QSTASH_NEXT_SIGNING_KEY: qstash.nextSigningKey,
      // The webhook receiver below is on loopback; its retries come quickly.
      URL_FETCH_ALLOW_PRIVATE: "true",
      WEBHOOK_RETRY_BASE_MS: "200",
    });
    expect(s.config.jobs.engine.kind).toBe("qstash");
  });

  afterAll(async () => {
    await qstash?.idle();
    await qstash?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it("completes ai-pro on 200 pages with every delivery made twice and the first one lost, each call made once", async () => {
    model.reset();
    model.control({ delayMs: 300 });
    qstash.behave({ duplicates: 1, dropNext: 1 });
    const id = await submit(s, "ai-pro", LONG_TEXT, "long.txt");
    expect(await finished(s, id, 600_000)).toMatchObject({ status: "completed" });
    await qstash.idle();
    const done = await record(s, id);
    // The lost first delivery: a poll moved the cursor past it and published the next slice.
    expect(done.cursor).toBeGreaterThanOrEqual(3);
    expect(model.counters().completions).toBe(callsInOnePiece);
    const deliveries = qstash.deliveries();
    // Copies of a slice find it claimed (409, delivered again later) or done (200); none ran it twice.
    expect(deliveries.length).toBeGreaterThanOrEqual(2 * done.cursor);
    expect(deliveries.every((d) => [200, 409].includes(d.status))).toBe(true);
    expect(qstash.published().map((p) => p.deduplicationId)).toContain(`${id}-1`);
  }, 700_000);

  it("carries a webhook's tries as steps: the refused first try retried by a delayed message, each try signed", async () => {
    const tries: { status: number; verified: boolean; id: string }[] = [];
    const hooks = createServer((request, response) => {
      void (async () => {
        const parts: Buffer[] = [];
        for await (const part of request) parts.push(part as Buffer);
        let verified = true;
        try {
          new Webhook(hook.secret).verify(
            Buffer.concat(parts).toString("utf8"),
            request.headers as Record<string, string>,
          );
        } catch {
          verified = false;
        }
        const status = tries.length === 0 ? 500 : 204;
        tries.push({ status, verified, id: String(request.headers["webhook-id"]) });
        response.writeHead(status).end();
      })();
    });
    await new Promise<void>((resolve) => hooks.listen(0, "127.0.0.1", resolve));
    const hook = newJobWebhook(`http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`, 5);
    try {
      qstash.behave({ duplicates: 0, dropNext: 0 });
      const accepted = await startJob(s, {
        tier: "structure",
        input: { kind: "upload", bytes: new TextEncoder().encode("# Ledger\n\nShips came in."), filename: "a.md" },
        options: { maxTokens: 256, overlapTokens: 0, outputFormat: "raw", includeNotes: true },
        apiBase: "http://chunkwise.test/api",
        payment: { amount: 0, asset: "USDC", network: "solana-localnet", transaction: null },
        webhook: hook,
      });
      expect(accepted.webhook_secret).toBe(hook.secret);
      expect(await finished(s, accepted.job_id, 600_000)).toMatchObject({ status: "completed" });
      await expect.poll(() => tries.length, { timeout: 120_000, interval: 200 }).toBe(2);
      await qstash.idle();
      expect(tries.map((t) => t.status)).toEqual([500, 204]);
      expect(tries.every((t) => t.verified)).toBe(true);
      expect(new Set(tries.map((t) => t.id)).size).toBe(1);
      const steps = qstash
        .published()
        .filter((p) => !p.deduplicated)
        .map((p) => ({ id: p.deduplicationId, step: JSON.parse(p.body) as { kind: string } }))
        .filter((p) => p.step.kind === "webhook");
      expect(steps.map((p) => p.id)).toEqual([`webhook-${accepted.job_id}-1`, `webhook-${accepted.job_id}-2`]);
      expect((await jobStatus(s, accepted.job_id)).webhook).toMatchObject({ state: "delivered", attempts: 2 });
    } finally {
      hooks.closeAllConnections();
      await new Promise((resolve) => hooks.close(resolve));
    }
  }, 700_000);

  it("refuses a delivery without a signature (401) or signed with another key (403), running nothing", async () => {
    const body = JSON.stringify({ kind: "job-slice", job_id: "ai-pro_00000000000000000000000000000000", cursor: 0 });
    const post = (headers: Record<string, string>) =>
      fetch(`${base}/api/jobs/step`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", ...headers },
      });
    expect((await post({})).status).toBe(401);
    const forged = qstash.sign(`${base}/api/jobs/step`, body, "sig_not-the-servers-key");
    expect((await post({ "upstash-signature": forged })).status).toBe(403);
    const elsewhere = qstash.sign("http://elsewhere.test/api/jobs/step", body);
    expect((await post({ "upstash-signature": elsewhere })).status).toBe(403);
    const signed = qstash.sign(`${base}/api/jobs/step`, body);
    const answer = await post({ "upstash-signature": signed });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ outcome: "stale" });
  });
});

describe("the engine a host gets", () => {
  it("is QStash only when fully configured, and required on Vercel, where a slice left to the process would die", () => {
    const qstash = {
      QSTASH_TOKEN: "qstash-test-token",
      QSTASH_CURRENT_SIGNING_KEY: "sig_current",
      QSTASH_NEXT_SIGNING_KEY: "sig_next",
    };
    expect(loadConfig({}).jobs.engine.kind).toBe("in-process");
    expect(() => loadConfig({ VERCEL: "1" })).toThrow(/QSTASH_TOKEN/);
    expect(() => loadConfig({ QSTASH_TOKEN: "t" })).toThrow(/SIGNING_KEY/);
    expect(() => loadConfig(qstash)).toThrow(/PUBLIC_BASE_URL/);
    const vercel = loadConfig({ VERCEL: "1", ...qstash, PUBLIC_BASE_URL: "https://chunkwise.example/" });
    expect(vercel.jobs.engine).toMatchObject({ kind: "qstash", stepUrl: "https://chunkwise.example/api/jobs/step" });
  });
});
