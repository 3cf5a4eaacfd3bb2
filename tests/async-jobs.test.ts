import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FreeQuota } from "@/lib/quota/free-quota";
import { call, json, payFor402, pollUntilDone, upload } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";
import { pdfOfPages } from "./helpers/scans";

/**
 * `async=true`: any tier run as a job, with ai-pro's machinery (status,
 * progress, result, expiry, payment released on failure), and a free job's
 * pages taken once its document is read and given back if it fails. A scan
 * over the synchronous OCR limit is the case it is for: here that limit is
 * one page, and the scans are two pages of tests/fixtures/structured.pdf
 * made into images at test time. On a real redis-server, paid on the local
 * chain.
 */

const h = serviceHarness({ chain: true, env: () => ({ OCR_SYNC_MAX_PAGES: "1", FREE_PAGES_PER_DAY: "5" }) });
let scan: Uint8Array;

beforeAll(async () => {
  // A PDF of two scanned pages: images, no text layer.
  const structured = new Uint8Array(readFileSync(path.join(process.cwd(), "tests/fixtures/structured.pdf")));
  scan = await pdfOfPages(structured, [
    { page: 1, as: "scan" },
    { page: 2, as: "scan" },
  ]);
}, 60_000);

const post = (
  endpoint: string,
  bytes: Uint8Array,
  fields: Record<string, string> = {},
  init: { headers?: Record<string, string>; client?: string } = {},
) => call("POST", `/api/chunk/${endpoint}`, { body: upload(bytes, "scan.pdf", fields), ...init });

const pagesLeft = async (client: string) => (await json(await call("GET", "/api/quota", { client }))).remaining;

describe("a scan over the synchronous OCR limit", () => {
  it("is refused synchronously with 413 naming async=true, and taken no pages for", async () => {
    const client = "203.0.113.21";
    const refused = await post("free", scan, {}, { client });
    expect(refused.status).toBe(413);
    const body = await json(refused);
    expect(body).toMatchObject({ success: false, code: "ocr_too_many_pages" });
    expect(body.message).toContain("async=true");
    expect(await pagesLeft(client)).toBe(5);
  });

  it("runs as a free job with async=true: progress page by page, the result with OCR's boxes, its pages taken", async () => {
    const client = "203.0.113.22";
    const accepted = await post("free", scan, { async: "true", max_tokens: "128" }, { client });
    expect(accepted.status).toBe(200);
    const job = await json(accepted);
    expect(job).toMatchObject({ success: true, async: true, status: "processing" });
    expect(job.job_id).toMatch(/^free_[0-9a-f]{32}$/);
    expect(job.status_url).toBe(`http://chunkwise.test/api/job/${job.job_id}/status`);

    const seen = await pollUntilDone(job.job_id, 120_000);
    const done = seen.at(-1)!;
    expect(done).toMatchObject({ status: "completed", progress: 100, result_id: expect.stringMatching(/^standard_/) });
    const progress = seen.map((s) => s.progress as number);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    // Each page read shows in the status as it is read.
    expect(seen.map((s) => s.message)).toContain("Read page 1 of 2 by OCR");

    const result = await json(await call("GET", `/api/job/${job.job_id}/result`));
    expect(result).toMatchObject({
      success: true,
      tier: "free",
      job_id: job.job_id,
      metadata: { ocr_pages: [1, 2], estimated_pages: 2, max_tokens: 128 },
      payment: { amount: 0, transaction: null },
    });
    expect(result.chunks.length).toBeGreaterThan(2);
    for (const { metadata } of result.chunks) {
      expect(metadata.boxes.length).toBeGreaterThan(0);
      expect(metadata.ocr_confidence).toBeGreaterThan(80);
    }
    expect(result.chunks.at(-1).metadata.page_end).toBe(2);
    expect(await pagesLeft(client)).toBe(3);
  });

  it("refuses a free job over the day's pages at acceptance (429), taking nothing", async () => {
    const client = "203.0.113.23";
    // Four of the five pages used by a text document first.
    const text = new TextEncoder().encode("word ".repeat(2400));
    expect((await post("free", text, {}, { client })).status).toBe(200);
    expect(await pagesLeft(client)).toBe(1);
    // The scan's two pages are counted from its page tree before the job is accepted.
    const refused = await post("free", scan, { async: "true" }, { client });
    expect(refused.status).toBe(429);
    expect(await json(refused)).toMatchObject({ success: false, code: "free_quota_exceeded" });
    expect(await pagesLeft(client)).toBe(1);
  });

  it("runs on a paid tier with async=true; a job that fails releases the payment for a retry", async () => {
    const fields = { async: "true" };
    const signature = await payFor402(h.rpc, h.chain, () => post("structure", scan, fields));
    const job = await json(await post("structure", scan, fields, { headers: { "X-PAYMENT": signature } }));
    expect(job.job_id).toMatch(/^structure_[0-9a-f]{32}$/);
    // The same payment for the same request is the same job.
    const again = await json(await post("structure", scan, fields, { headers: { "X-PAYMENT": signature } }));
    expect(again.job_id).toBe(job.job_id);
    expect((await pollUntilDone(job.job_id, 120_000)).at(-1)).toMatchObject({ status: "completed" });
    const result = await json(await call("GET", `/api/job/${job.job_id}/result`));
    expect(result).toMatchObject({ tier: "structure", payment: { transaction: signature } });
    expect(result.chunks.map((c: { text: string }) => c.text).join("\n")).toMatch(/^# Coastal Survey Handbook$/m);

    // A PDF whose body is broken gets past the upload's checks and fails in the job.
    const broken = new Uint8Array(readFileSync(path.join(process.cwd(), "tests/fixtures/corrupted.pdf")));
    const paid = await payFor402(h.rpc, h.chain, () => post("structure", broken, fields));
    const failing = await json(await post("structure", broken, fields, { headers: { "X-PAYMENT": paid } }));
    const failed = (await pollUntilDone(failing.job_id, 60_000)).at(-1)!;
    expect(failed).toMatchObject({ status: "failed", error: { code: "corrupted_pdf" } });
    const retried = await json(await post("structure", broken, fields, { headers: { "X-PAYMENT": paid } }));
    expect(retried.job_id).toMatch(/^structure_/);
    expect(retried.job_id).not.toBe(failing.job_id);
    await pollUntilDone(retried.job_id, 60_000);
  });

  it("takes async as a JSON boolean on the URL endpoint, and refuses other values", async () => {
    const bad = await call("POST", "/api/chunk", {
      body: JSON.stringify({ url: "https://example.com/scan.pdf", tier: "free", async: "yes" }),
      headers: { "content-type": "application/json" },
    });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ code: "invalid_request" });
    const form = await post("free", scan, { async: "maybe" });
    expect(form.status).toBe(400);
    expect((await json(form)).message).toContain("async");
  });
});

describe("free pages given back", () => {
  it("return to the day they were taken from", async () => {
    const quota = new FreeQuota(h.store, 10);
    const taken = await quota.reserve("198.51.100.40", 4);
    expect((await quota.status("198.51.100.40")).remaining).toBe(6);
    await quota.refund("198.51.100.40", 4, taken.takenAt);
    expect((await quota.status("198.51.100.40")).remaining).toBe(10);
    // A day already over has nothing to give back to.
    await quota.refund("198.51.100.40", 4, taken.takenAt - 2 * 86_400_000);
    expect((await quota.status("198.51.100.40")).remaining).toBe(10);
  });
});
