import { randomBytes } from "node:crypto";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { afterAll, describe, expect, it } from "vitest";
import * as quotaRoute from "@/app/api/quota/route";
import { CpuPool } from "@/lib/cpu/pool";
import { PEER_HEADER } from "@/lib/http/client-address";
import { setServices, type Services } from "@/lib/services";
import { ORIGIN, call, newClient, pollUntilDone, prose, upload } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";

/**
 * Admission before work (issue 26, part A), through the route handlers on a real redis-server and the local
 * chain: the free quota is checked and taken from a cheap page count before any extraction, at a job's
 * acceptance too; a client's damaged upload keeps what it cost; per-client caps on requests in progress and
 * active jobs; a body must arrive in time, and no instance place is held while it arrives or while a payment
 * is looked for on chain; MCP bodies are bounded before the SDK parses them.
 */

const h = serviceHarness({ chain: true, install: "never" });
const pools: CpuPool[] = [];

/** A pool that counts the tasks it runs: a text PDF's extraction runs its layout here, so zero means none ran. */
class CountingPool extends CpuPool {
  tasks = 0;
  override run: CpuPool["run"] = (task, options) => {
    this.tasks++;
    return super.run(task, options);
  };
}

/** Jobs' work held until `runJobs`: what is accepted can be seen before any of it runs. */
function heldSchedule() {
  const held: Array<() => Promise<void>> = [];
  return {
    schedule: (work: () => Promise<void>) => void held.push(work),
    runJobs: async () => {
      const works = held.splice(0);
      await Promise.all(works.map((work) => work()));
    },
  };
}

function servicesFor(
  env: Record<string, string>,
  overrides: { schedule?: Services["schedule"]; pool?: CpuPool } = {},
): Services {
  const pool = overrides.pool ?? new CountingPool({ threads: 1, queue: 0, taskTimeoutMs: 60_000, heapMb: 256 });
  pools.push(pool);
  return h.use(env, { cpu: pool, ...(overrides.schedule ? { schedule: overrides.schedule } : {}) });
}

async function remainingPages(client: string): Promise<number> {
  const response = await quotaRoute.GET(new Request(`${ORIGIN}/api/quota`, { headers: { [PEER_HEADER]: client } }));
  expect(response.status).toBe(200);
  return ((await response.json()) as { remaining: number }).remaining;
}

/** Spends a client's pages down to `left` with a text document (one page per 3000 characters). */
async function spendDownTo(client: string, left: number, limit: number): Promise<void> {
  const spent = await call("POST", "/api/chunk/free", { body: upload(prose(limit - left), "spend.md"), client });
  expect(spent.status).toBe(200);
  expect(await remainingPages(client)).toBe(left);
}

async function textPdf(pages: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= pages; i++)
    pdf.addPage([300, 300]).drawText(`Page ${i}: retrieval chunks of a document.`, { x: 20, y: 250, size: 10, font });
  return pdf.save();
}

/** A body that sends `first` bytes at once, then one byte every `everyMs` until `total` bytes or until cancelled. */
function tricklingBody(prefix: Uint8Array, everyMs: number, bytes: number) {
  let sent = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(prefix);
    },
    async pull(controller) {
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      if (cancelled) return;
      if (sent++ >= bytes) return controller.close();
      controller.enqueue(new Uint8Array([0x61]));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, wasCancelled: () => cancelled };
}

const MULTIPART_HEAD = (boundary: string) =>
  new TextEncoder().encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.md"\r\nContent-Type: text/markdown\r\n\r\n# Slow\n\n`,
  );

function slowUpload(client: string, everyMs: number, bytes: number) {
  const boundary = `b${randomBytes(8).toString("hex")}`;
  const body = tricklingBody(MULTIPART_HEAD(boundary), everyMs, bytes);
  const response = call("POST", "/api/chunk/free", {
    body: body.stream,
    client,
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
  });
  return { response, wasCancelled: body.wasCancelled };
}

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
});

describe("the free quota, before any work", () => {
  it("refuses a 5-page PDF from a client with 2 pages left before extracting anything", async () => {
    const services = servicesFor({ FREE_PAGES_PER_DAY: "6" });
    const client = newClient();
    await spendDownTo(client, 2, 6);
    const tasksBefore = (services.cpu as CountingPool).tasks;

    const refused = await call("POST", "/api/chunk/free", { body: upload(await textPdf(5), "five.pdf"), client });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: "free_quota_exceeded" });
    // No layout task ran: the PDF was only opened and counted.
    expect((services.cpu as CountingPool).tasks).toBe(tasksBefore);
    expect(await remainingPages(client)).toBe(2);

    // What fits is served, and its pages are the PDF's real count.
    const served = await call("POST", "/api/chunk/free", { body: upload(await textPdf(2), "two.pdf"), client });
    expect(served.status).toBe(200);
    expect((services.cpu as CountingPool).tasks).toBeGreaterThan(tasksBefore);
    expect(await remainingPages(client)).toBe(0);
  });

  it("takes a job's pages when it is accepted: six async jobs with 2 pages left, two accepted, four refused", async () => {
    const { schedule, runJobs } = heldSchedule();
    servicesFor({ FREE_PAGES_PER_DAY: "4", CLIENT_MAX_ACTIVE_JOBS: "10" }, { schedule });
    const client = newClient();
    await spendDownTo(client, 2, 4);

    const answers: Response[] = [];
    for (let i = 0; i < 6; i++)
      answers.push(
        await call("POST", "/api/chunk/free", {
          body: upload(prose(1, i + 2), `job${i}.md`, { async: "true" }),
          client,
        }),
      );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    expect(statuses.filter((status) => status === 429)).toHaveLength(4);
    for (const refused of answers.filter((answer) => answer.status === 429))
      expect(await refused.json()).toMatchObject({ code: "free_quota_exceeded" });
    // Moved at acceptance, before any job ran.
    expect(await remainingPages(client)).toBe(0);

    await runJobs();
    for (const accepted of answers.filter((answer) => answer.status !== 429)) {
      const { job_id } = (await accepted.json()) as { job_id: string };
      expect((await pollUntilDone(job_id)).at(-1)).toMatchObject({ status: "completed" });
    }
    expect(await remainingPages(client)).toBe(0);
  });

  it("keeps a page taken for a damaged upload, so resending it is not free", async () => {
    servicesFor({ FREE_PAGES_PER_DAY: "5" });
    const client = newClient();
    const damaged = new TextEncoder().encode("%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage without an end");
    for (let i = 1; i <= 2; i++) {
      const refused = await call("POST", "/api/chunk/free", { body: upload(damaged, "broken.pdf"), client });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ code: "corrupted_pdf" });
      expect(await remainingPages(client)).toBe(5 - i);
    }
  });
});

describe("per-client caps", () => {
  it("answers a client's third concurrent request 429 too_many_requests with Retry-After; another client is served", async () => {
    servicesFor({ CLIENT_MAX_CONCURRENT_REQUESTS: "2", BODY_READ_TIMEOUT_MS: "60000", BODY_MIN_BYTES_PER_SECOND: "0" });
    const client = newClient();
    const held = [slowUpload(client, 100, 1_000_000), slowUpload(client, 100, 1_000_000)];
    // Both are reading their bodies (each holds a place) once a byte has gone through.
    await new Promise((resolve) => setTimeout(resolve, 300));

    const refused = await call("POST", "/api/chunk/free", { body: upload(prose(1), "third.md"), client });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: "too_many_requests" });

    const other = await call("POST", "/api/chunk/free", { body: upload(prose(1), "other.md"), client: newClient() });
    expect(other.status).toBe(200);

    // Abandoned by the client: the places are freed, and the client is served again.
    for (const request of held) void request.response.then((r) => r.body?.cancel());
    setServices(undefined);
  });

  it("answers a client's job past its cap 429 too_many_jobs; another client's is accepted; a finished job frees its place", async () => {
    const { schedule, runJobs } = heldSchedule();
    servicesFor({ CLIENT_MAX_ACTIVE_JOBS: "2" }, { schedule });
    const client = newClient();
    const job = (who: string, seed: number) =>
      call("POST", "/api/chunk/free", { body: upload(prose(1, seed), "job.md", { async: "true" }), client: who });

    expect((await job(client, 1)).status).toBe(200);
    expect((await job(client, 2)).status).toBe(200);
    const refused = await job(client, 3);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: "too_many_jobs" });
    const before = await remainingPages(client);

    expect((await job(newClient(), 4)).status).toBe(200);
    // The refusal took no pages.
    expect(await remainingPages(client)).toBe(before);

    await runJobs();
    expect((await job(client, 5)).status).toBe(200);
    await runJobs();
  });
});

describe("slots that cannot be held hostage", () => {
  it("cuts a trickling body at its deadline (408 body_timeout), and tricklers never make another client's request busy", async () => {
    servicesFor({ BODY_READ_TIMEOUT_MS: "1500", BODY_MIN_RATE_GRACE_MS: "500", BODY_MIN_BYTES_PER_SECOND: "1024" });
    // More tricklers than the instance has places (one thread, no queue), each from its own address.
    const tricklers = Array.from({ length: 4 }, () => slowUpload(newClient(), 200, 1_000));
    await new Promise((resolve) => setTimeout(resolve, 200));

    const served = await call("POST", "/api/chunk/free", { body: upload(prose(1), "doc.md"), client: newClient() });
    expect(served.status).toBe(200);

    for (const trickler of tricklers) {
      const answer = await trickler.response;
      expect(answer.status).toBe(408);
      expect(await answer.json()).toMatchObject({ code: "body_timeout" });
      expect(trickler.wasCancelled()).toBe(true);
    }
  });

  it("holds no instance place while a made-up X-PAYMENT signature is looked for on chain", async () => {
    servicesFor({ PAYMENT_CONFIRM_TIMEOUT_MS: "15000" });
    // The pool's thread started and warm first, so the request below waits for nothing but a place.
    expect(
      (await call("POST", "/api/chunk/free", { body: upload(prose(1), "warm.md"), client: newClient() })).status,
    ).toBe(200);
    let bogusDone = false;
    const bogus = call("POST", "/api/chunk/structure", {
      body: upload(prose(1, 9), "paid.md"),
      client: newClient(),
      // A well-formed signature of no transaction: polled for until the confirm timeout.
      headers: { "x-payment": randomBase58Signature() },
    }).finally(() => (bogusDone = true));
    await new Promise((resolve) => setTimeout(resolve, 500));

    const served = await call("POST", "/api/chunk/free", { body: upload(prose(1), "doc.md"), client: newClient() });
    expect(served.status).toBe(200);
    const servedWhilePolling = !bogusDone;
    const refused = await bogus;
    expect(refused.status).toBe(402);
    expect(await refused.json()).toMatchObject({ code: "payment_not_found" });
    expect(servedWhilePolling).toBe(true);
  });
});

describe("MCP bodies", () => {
  it("refuses an over-limit body 413 before the SDK parses it, while the instance has no place free", async () => {
    const services = servicesFor({ MAX_UPLOAD_BYTES: "1024" });
    const release = services.cpu.admit();
    try {
      // Streamed, without a Content-Length: counted as it arrives.
      const big = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 10; i++) controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
          controller.close();
        },
      });
      const refused = await call("POST", "/api/mcp", {
        body: big,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      });
      expect(refused.status).toBe(413);
      expect(await refused.json()).toMatchObject({ code: "file_too_large" });
    } finally {
      release();
    }
  });

  it("cuts a trickling MCP body at its deadline (408)", async () => {
    servicesFor({ BODY_READ_TIMEOUT_MS: "1500", BODY_MIN_RATE_GRACE_MS: "500", BODY_MIN_BYTES_PER_SECOND: "1024" });
    const body = tricklingBody(new TextEncoder().encode('{"jsonrpc":"2.0",'), 200, 100);
    const refused = await call("POST", "/api/mcp", {
      body: body.stream,
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    });
    expect(refused.status).toBe(408);
    expect(await refused.json()).toMatchObject({ code: "body_timeout" });
  });
});

function randomBase58Signature(): string {
  const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  let value = BigInt(`0x${randomBytes(64).toString("hex")}`);
  let text = "";
  while (value > 0n) {
    text = alphabet[Number(value % 58n)] + text;
    value /= 58n;
  }
  return text;
}
