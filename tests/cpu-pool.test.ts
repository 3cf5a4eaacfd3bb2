import { redirectLogs } from "@/lib/observability/log";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireModel } from "@/lib/ai/model-client";
import { TIERS } from "@/lib/tiers";
import { SECTION_STARTS_TASK, sectionStartsMessage } from "@/lib/ai/prompts";
import { buildResult, extractDocument, loaded, resolveOptions } from "@/lib/pipeline/chunk-result";
import { CpuPool } from "@/lib/cpu/pool";
import { memoInstruction } from "@/lib/payments/usdc-transfer";
import { MemoryStore } from "@/lib/store/memory";
import { type ModelStandin, startModelStandin } from "@/standin/model-server";
import * as quotaRoute from "@/app/api/quota/route";
import { PEER_HEADER } from "@/lib/http/client-address";
import { ORIGIN, call, funded, newClient, prose, upload } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";
import { transferToken } from "./helpers/chain";

/**
 * The CPU pool (lib/cpu/pool.ts) through the route handlers, in process:
 * real worker threads (piscina), a worker that fails in each way it can, the
 * bounded line in front of the pool (503 `busy`) with a real payment on the
 * local chain, and the process-wide cap on model calls against the stand-in.
 */

const MISBEHAVING_WORKER = join(import.meta.dirname, "helpers", "misbehaving-worker.mjs");
const STRUCTURE_PRICE = 2000n;

const h = serviceHarness({ store: "memory", chain: true, install: "never" });
const pools: CpuPool[] = [];

/** Fresh services on a memory store and the local chain, with `pool` doing their CPU work. */
function servicesFor(pool: CpuPool, env: Record<string, string> = {}) {
  return h.use(env, { store: new MemoryStore(), cpu: pool });
}

function newPool(settings: { threads: number; queue: number; taskTimeoutMs?: number; heapMb?: number }, file?: string) {
  const pool = new CpuPool({ taskTimeoutMs: 60_000, heapMb: 256, ...settings }, file);
  pools.push(pool);
  return pool;
}

async function remainingPages(client: string): Promise<number> {
  const response = await quotaRoute.GET(new Request(`${ORIGIN}/api/quota`, { headers: { [PEER_HEADER]: client } }));
  expect(response.status).toBe(200);
  const { remaining } = (await response.json()) as { remaining: unknown };
  expect(remaining).toEqual(expect.any(Number));
  return remaining as number;
}

const chunkFree = (text: string, client: string) =>
  call("POST", "/api/chunk/free", { body: upload(text, "doc.md"), client });

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
});

describe("starting the threads", () => {
  it("starts no thread until the first task: a route that runs none (health, OpenAPI) needs no worker file", async () => {
    const logged: unknown[] = [];
    const restoreLogs = redirectLogs({ write: (line) => void logged.push(JSON.parse(line)) });
    try {
      const pool = newPool({ threads: 1, queue: 4 }, join(import.meta.dirname, "helpers", "no-such-worker.mjs"));
      servicesFor(pool);
      const quota = await remainingPages(newClient());
      expect(quota).toBeGreaterThan(0);
      // Time for a started worker to fail to load its file, had one been started.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(pool.stats()).toEqual({ threadIds: [], queued: 0, admitted: 0 });
      expect(logged.filter((line) => (line as { level?: string }).level === "error")).toEqual([]);

      const warm = newPool({ threads: 1, queue: 4 });
      servicesFor(warm);
      expect((await chunkFree(`# Notes\n\n${prose(1)}`, newClient())).status).toBe(200);
      expect(warm.stats().threadIds).toHaveLength(1);
    } finally {
      restoreLogs();
    }
  }, 60_000);
});

describe("a worker that fails", () => {
  let pool: CpuPool;
  beforeAll(async () => {
    pool = newPool({ threads: 1, queue: 4, taskTimeoutMs: 1000 }, MISBEHAVING_WORKER);
    // Its thread started (the first task starts it), so each case below can tell a replaced worker from the same one.
    servicesFor(pool);
    expect((await chunkFree(`# Notes\n\n${prose(1)}`, newClient())).status).toBe(200);
  }, 60_000);

  it.each([
    // A fault of ours gives the pages back; a document too complex (out of time or memory) keeps what it cost.
    { marker: "THROW", status: 500, code: "processing_failed", replaced: false, pagesKept: 0 },
    { marker: "CRASH", status: 500, code: "processing_failed", replaced: true, pagesKept: 0 },
    { marker: "OOM", status: 400, code: "document_too_complex", replaced: true, pagesKept: 1 },
    { marker: "HANG", status: 400, code: "document_too_complex", replaced: true, pagesKept: 1 },
  ])(
    "WORKER:$marker answers $status $code, keeps $pagesKept free page(s), and the pool serves the next request",
    async ({ marker, status, code, replaced, pagesKept }) => {
      servicesFor(pool);
      const client = newClient();
      const before = await remainingPages(client);
      const [worker] = pool.stats().threadIds;

      const response = await chunkFree(`# Notes\n\n${prose(1)}\n\nWORKER:${marker}`, client);
      expect(response.status).toBe(status);
      expect(await response.json()).toMatchObject({ success: false, code, message: expect.any(String) });
      expect(await remainingPages(client)).toBe(before - pagesKept);

      const next = await chunkFree(`# Notes\n\n${prose(1)}`, client);
      expect(next.status).toBe(200);
      const stats = pool.stats();
      expect(stats.threadIds).toHaveLength(1);
      if (replaced) expect(stats.threadIds[0]).not.toBe(worker);
      else expect(stats.threadIds[0]).toBe(worker);
      // Nothing left behind: no task waiting, no place in the line held.
      expect(stats).toMatchObject({ queued: 0, admitted: 0 });
    },
  );

  it("survives a worker that fails while it holds no task (an error the pool has nobody to hand to), and replaces it", async () => {
    servicesFor(pool);
    const client = newClient();
    const [worker] = pool.stats().threadIds;
    const logged: Array<Record<string, unknown>> = [];
    const restoreLogs = redirectLogs({
      write: (line) => void logged.push(JSON.parse(line) as Record<string, unknown>),
    });
    try {
      const response = await chunkFree(`# Notes\n\n${prose(1)}\n\nWORKER:LATE`, client);
      expect(response.status).toBe(200);
      // The worker dies 50 ms after answering; wait (boundedly) for its replacement.
      for (let tries = 0; tries < 100 && pool.stats().threadIds[0] === worker; tries++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(pool.stats().threadIds).toHaveLength(1);
      expect(pool.stats().threadIds[0]).not.toBe(worker);
      expect(logged).toContainEqual(
        expect.objectContaining({
          level: "error",
          event: "fault",
          msg: "A CPU worker failed between tasks",
          err: expect.objectContaining({ message: expect.any(String) }),
        }),
      );
    } finally {
      restoreLogs();
    }
    const next = await chunkFree(`# Notes\n\n${prose(1)}`, client);
    expect(next.status).toBe(200);
  });
});

describe("503 busy", () => {
  let pool: CpuPool;
  beforeAll(() => {
    // One thread, no waiting room: one request at a time.
    pool = newPool({ threads: 1, queue: 0 });
  });

  it("refuses a free request while the line is full, with Retry-After, and counts none of its pages", async () => {
    servicesFor(pool);
    const client = newClient();
    const before = await remainingPages(client);
    const release = pool.admit();
    let refused: Response;
    try {
      refused = await chunkFree(`# Notes\n\n${prose(2)}`, client);
    } finally {
      release();
    }
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ success: false, error: "Service Unavailable", code: "busy" });
    expect(await remainingPages(client)).toBe(before);

    const served = await chunkFree(`# Notes\n\n${prose(2)}`, client);
    expect(served.status).toBe(200);
    expect(await remainingPages(client)).toBe(before - 2);
  });

  it("refuses a paid request while the line is full and leaves its payment usable: the same X-PAYMENT is served later", async () => {
    servicesFor(pool);
    const document = `# Paid report\n\n${prose(2, 7)}`;
    const send = (headers: Record<string, string> = {}) =>
      call("POST", "/api/chunk/structure", { body: upload(document, "report.md"), headers });

    const asked = await send();
    expect(asked.status).toBe(402);
    const { paymentRequirements } = (await asked.json()) as { paymentRequirements: { extra: { reference: string } } };
    const payer = await funded();
    const signature = await transferToken(h.rpc, payer, {
      owner: h.chain.payTo,
      mint: h.chain.usdcMint,
      amount: STRUCTURE_PRICE,
      memo: memoInstruction(paymentRequirements.extra.reference),
    });

    const release = pool.admit();
    let refused: Response;
    try {
      refused = await send({ "x-payment": signature });
    } finally {
      release();
    }
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).not.toBeNull();
    expect(await refused.json()).toMatchObject({ success: false, code: "busy" });

    const served = await send({ "x-payment": signature });
    expect(served.status).toBe(200);
    expect(await served.json()).toMatchObject({
      success: true,
      tier: "structure",
      payment: { transaction: signature, amount: Number(STRUCTURE_PRICE) },
    });
    expect(pool.stats()).toMatchObject({ queued: 0, admitted: 0 });
  });
});

describe("AI_MAX_INFLIGHT", () => {
  let standin: ModelStandin;
  beforeAll(async () => {
    standin = await startModelStandin({ port: 0, delayMs: 100 });
  });
  afterAll(() => standin?.close());

  const ai = (env: Record<string, string>) =>
    servicesFor(newPool({ threads: 1, queue: 0 }), {
      AI_BASE_URL: standin.url,
      AI_MODEL: "standin-small",
      ...env,
    });
  const message = sectionStartsMessage(["About apples.", "About invoices."], 1);

  it("caps the process's chat calls, however many requests make them", async () => {
    standin.reset();
    const model = requireModel(ai({ AI_MAX_INFLIGHT: "3" }).models, TIERS.ai);
    await Promise.all(Array.from({ length: 12 }, () => model.ask(SECTION_STARTS_TASK, message)));
    expect(standin.counters().completions).toBe(12);
    expect(standin.counters().maxInFlight).toBe(3);
  });

  it("counts embedding requests against the same cap", async () => {
    standin.reset();
    const services = ai({
      AI_MAX_INFLIGHT: "1",
      EMBEDDINGS_BASE_URL: standin.url,
      EMBEDDINGS_MODEL: "standin-embed",
      EMBEDDINGS_BATCH_SIZE: "1",
      EMBEDDINGS_CONCURRENCY: "8",
    });
    const model = requireModel(services.models, TIERS.ai);
    await Promise.all([
      model.ask(SECTION_STARTS_TASK, message),
      services.embedder.embed(["one", "two", "three", "four"]),
      model.ask(SECTION_STARTS_TASK, message),
    ]);
    expect(standin.counters()).toMatchObject({ completions: 2, embeddings: 4, maxInFlight: 1 });
  });
});

describe("a remote embedder through the pool", () => {
  let standin: ModelStandin;
  beforeAll(async () => {
    standin = await startModelStandin({ port: 0 });
  });
  afterAll(() => standin?.close());

  it("answers the worker's requests for embeddings from the main thread, and passes its failure on", async () => {
    const services = servicesFor(newPool({ threads: 1, queue: 0 }), {
      EMBEDDINGS_BASE_URL: standin.url,
      EMBEDDINGS_MODEL: "standin-embed",
    });
    const doc = loaded({
      bytes: new TextEncoder().encode(`# Apples\n\n${prose(2, 3)}\n\n# Invoices\n\n${prose(2, 9)}`),
      filename: "doc.md",
    });
    const extracted = await extractDocument(doc, services.config, services.cpu);
    const options = resolveOptions({ max_tokens: 128 }, services.config.chunking);
    const semantic = (cpu?: CpuPool) =>
      buildResult(doc, extracted, "semantic", options, { embedder: services.embedder, cpu });

    const pooled = await semantic(services.cpu);
    expect(pooled.metadata.embedder).toBe("openai:standin-embed");
    expect(pooled.total_chunks).toBeGreaterThan(1);
    const calls = standin.counters().embeddings;
    expect(calls).toBeGreaterThan(0);
    // The same chunks as in this thread, from the same vectors.
    expect((await semantic()).chunksJson).toBe(pooled.chunksJson);
    expect(standin.counters().embeddings).toBe(2 * calls);

    standin.control({ down: true });
    await expect(semantic(services.cpu)).rejects.toMatchObject({ status: 503, code: "embeddings_unavailable" });
    expect(services.cpu.stats()).toMatchObject({ queued: 0, admitted: 0 });
  });
  it("stops a task's clock while its worker waits for the embeddings: a slow provider is not a complex document", async () => {
    standin.reset();
    // Each embedding request takes 2.5 times the task's whole time limit.
    const services = servicesFor(newPool({ threads: 1, queue: 0, taskTimeoutMs: 2000 }), {
      EMBEDDINGS_BASE_URL: standin.url,
      EMBEDDINGS_MODEL: "standin-embed",
    });
    standin.control({ delayMs: 5000 });
    const doc = loaded({ bytes: new TextEncoder().encode(`# Notes\n\n${prose(1, 5)}`), filename: "notes.md" });
    const extracted = await extractDocument(doc, services.config, services.cpu);
    const options = resolveOptions({ max_tokens: 128 }, services.config.chunking);
    const result = await buildResult(doc, extracted, "semantic", options, {
      embedder: services.embedder,
      cpu: services.cpu,
    });
    expect(result.total_chunks).toBeGreaterThan(0);
    expect(standin.counters().embeddings).toBeGreaterThan(0);
  });
});
