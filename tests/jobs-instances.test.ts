import { type TransactionSigner, createSolanaRpc, generateKeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "@/localchain";
import { memoInstruction } from "@/lib/payments/usdc-transfer";
import { type ModelStandin, startModelStandin } from "@/standin/model-server";
import { prose, upload } from "./helpers/api";
import { type Rpc, transferToken } from "./helpers/chain";
import { type RedisServer, startRedisServer } from "./helpers/redis-server";
import { type BuiltServer, startBuiltServer } from "./helpers/servers";

/**
 * ai-pro jobs across instances: two built app instances (`server.mjs`)
 * sharing one real redis-server and one local chain, with the model stand-in
 * as their provider. A job paid for on one instance is polled, taken over and
 * fetched on the other; a worker killed mid-job is replaced once its lease
 * lapses; twenty jobs at once each finish with their own document.
 */

const PRICE = 25_000n;
const LEASE_MS = 1500;

let redis: RedisServer;
let chain: LocalChain;
let rpc: Rpc;
let standin: ModelStandin;
let a: BuiltServer;
let b: BuiltServer;
let payer: TransactionSigner;

async function startInstance(): Promise<BuiltServer> {
  return startBuiltServer({
    REDIS_URL: redis.url,
    SOLANA_RPC_URL: chain.rpcUrl,
    PAY_TO_ADDRESS: chain.payTo,
    FEE_PAYER_SECRET_KEY: chain.feePayer.secretKey,
    AI_BASE_URL: standin.url,
    AI_MODEL: "standin-small",
    AI_PRO_MODEL: "standin-large",
    // Few calls at once, so a job of a few dozen pages spans several rounds of model calls.
    AI_PRO_CONCURRENCY: "4",
    AI_MAX_RETRIES: "0",
    JOB_LEASE_MS: String(LEASE_MS),
    // Twenty jobs at once ask for their 402s and post their payments on both instances at the same time: room for all
    // of them, so a slow machine answers them late rather than 503 busy (admission has tests of its own).
    CPU_QUEUE: "64",
    // All twenty come from this one loopback client: its per-client limits (tested in admission.test.ts) make room.
    CLIENT_MAX_CONCURRENT_REQUESTS: "64",
    CLIENT_MAX_ACTIVE_JOBS: "64",
  });
}

beforeAll(async () => {
  redis = await startRedisServer();
  chain = await startLocalChain({ port: 0 });
  rpc = createSolanaRpc(chain.rpcUrl);
  standin = await startModelStandin({ port: 0 });
  [a, b] = await Promise.all([startInstance(), startInstance()]);
  payer = await generateKeyPairSigner();
  const funded = await fetch(`${a.base}/api/dev/faucet`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ address: payer.address }),
  });
  expect(funded.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([a?.stop(), b?.stop()]);
  await standin?.close();
  await chain?.close();
  await redis?.stop();
});

beforeEach(() => standin.reset());

type Json = Record<string, any>;

/** A Markdown report with headings, some named entities, and `marker` (a word no other document holds) in several places. */
function report(marker: string, pages: number, seed: number): string {
  const paragraphs = prose(pages, seed)
    .split("\n\n")
    .map((p) => p.trim())
    .filter(Boolean);
  const parts = [
    `# Field report on the ${marker} archive`,
    `Dr Jane Okafor said the ${marker} archive was catalogued in London in March 2024.`,
  ];
  paragraphs.forEach((paragraph, i) => {
    if (i % 8 === 0) parts.push(`## Part ${i / 8 + 1}: the ${marker} records`);
    parts.push(i % 8 === 3 ? `${paragraph} The ${marker} team at the Acme Research Institute reviewed it.` : paragraph);
  });
  return parts.join("\n\n");
}

const postAiPro = (base: string, document: string, filename: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/api/chunk/ai-pro`, { method: "POST", body: upload(document, filename), headers });

/** The spec's agent flow: the 402 (on `quoteOn`), a transfer carrying its reference, the same request with `X-PAYMENT` (on `payOn`). */
async function createPaidJob(
  quoteOn: BuiltServer,
  payOn: BuiltServer,
  document: string,
  filename: string,
): Promise<{ job: Json; signature: string }> {
  const quote = await postAiPro(quoteOn.base, document, filename);
  expect(quote.status).toBe(402);
  const required = ((await quote.json()) as Json).paymentRequirements;
  expect(required.maxAmountRequired).toBe(String(PRICE));
  const signature = await transferToken(rpc, payer, {
    owner: chain.payTo,
    mint: chain.usdcMint,
    amount: PRICE,
    memo: memoInstruction(required.extra.reference),
  });
  const accepted = await postAiPro(payOn.base, document, filename, { "X-PAYMENT": signature });
  const job = (await accepted.json()) as Json;
  expect(accepted.status, JSON.stringify(job)).toBe(200);
  return { job, signature };
}

async function status(server: BuiltServer, jobId: string): Promise<Json> {
  const response = await fetch(`${server.base}/api/job/${jobId}/status`);
  const body = (await response.json()) as Json;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** Polls until the job leaves `processing` or the deadline passes; every status seen, in order. */
async function pollUntilDone(
  server: BuiltServer,
  jobId: string,
  options: { deadlineMs: number; intervalMs?: number },
): Promise<Json[]> {
  const seen: Json[] = [];
  const deadline = Date.now() + options.deadlineMs;
  while (Date.now() < deadline) {
    const body = await status(server, jobId);
    seen.push(body);
    if (body.status !== "processing") return seen;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
  throw new Error(
    `job ${jobId} still processing after ${options.deadlineMs} ms; last status ${JSON.stringify(seen.at(-1))}`,
  );
}

function expectNeverDecreasing(progress: number[]): void {
  progress.forEach((value, i) => {
    if (i > 0) expect(value, `progress went back: ${progress.join(", ")}`).toBeGreaterThanOrEqual(progress[i - 1]!);
  });
}

async function fetchJson(url: string): Promise<Json> {
  const response = await fetch(url);
  const body = (await response.json()) as Json;
  expect(response.status, `${url}: ${JSON.stringify(body).slice(0, 300)}`).toBe(200);
  return body;
}

const chunkTexts = (result: Json) => (result.chunks as Json[]).map((c) => c.text as string).join("\n");

describe("an ai-pro job across two instances sharing one store", () => {
  it("is created on A, polled on B to completed with rising progress, and its result fetched on B", async () => {
    standin.control({ delayMs: 150 });
    const document = report("Zemblaxone", 12, 11);
    const { job, signature } = await createPaidJob(a, a, document, "one.md");
    expect(job).toMatchObject({ success: true, async: true, status: "processing" });
    expect(job.job_id).toMatch(/^ai-pro_[0-9a-f]{32}$/);
    // The path only: the origin is what Next.js makes of the request (server.mjs names its host "localhost").
    expect(job.status_url).toBe(`${a.base}/api/job/${job.job_id}/status`);

    const seen = await pollUntilDone(b, job.job_id, { deadlineMs: 30_000 });
    const final = seen.at(-1)!;
    expect(final, b.output()).toMatchObject({
      job_id: job.job_id,
      status: "completed",
      progress: 100,
      message: "Completed",
    });
    expect(seen[0]!.status).toBe("processing");
    expectNeverDecreasing(seen.map((s) => s.progress));
    expect(seen.slice(0, -1).every((s) => s.status === "processing" && s.progress < 100)).toBe(true);
    expect(final.result_id).toMatch(/^ai-pro_[0-9a-f]{32}$/);
    expect(final.download_url).toBe(`${a.base}/api/results/${final.result_id}`);

    const result = await fetchJson(`${b.base}/api/job/${job.job_id}/result`);
    expect(result).toMatchObject({
      success: true,
      tier: "ai-pro",
      job_id: job.job_id,
      result_id: final.result_id,
      payment: { amount: 25_000, transaction: signature },
    });
    expect(result.metadata).toMatchObject({ filename: "one.md", method: "ai-boundaries-enriched" });
    expect(result.chunks.length).toBe(result.total_chunks);
    expect(result.total_chunks).toBeGreaterThan(1);
    for (const chunk of result.chunks as Json[]) {
      expect(typeof chunk.metadata.summary).toBe("string");
      expect(chunk.metadata.summary.length).toBeGreaterThan(0);
      expect(Array.isArray(chunk.metadata.entities)).toBe(true);
    }
    const entities = (result.chunks as Json[]).flatMap((c) => c.metadata.entities as Json[]);
    expect(entities).toContainEqual({ text: "London", type: "places" });
    expect(typeof result.document_summary).toBe("string");
    expect(result.document_summary.length).toBeGreaterThan(0);
    expect(chunkTexts(result)).toContain("Zemblaxone");

    // download_url names the origin the job was posted to; the stored result is the same on either instance.
    expect(await fetchJson(final.download_url)).toEqual(result);
    expect(await fetchJson(`${b.base}${new URL(final.download_url).pathname}`)).toEqual(result);

    // Section boundaries, enrichment and the document summary were all asked of the ai-pro model.
    const counters = standin.counters();
    expect(counters.bySchema.section_starts).toBe(result.metadata.ai.windows);
    expect(counters.bySchema.chunk_enrichment).toBeGreaterThan(0);
    expect(counters.bySchema.document_summary).toBe(1);
    expect(Object.keys(counters.byModel)).toEqual(["standin-large"]);
  });
});

describe("a worker killed mid-job", () => {
  it("is replaced by a poll on the other instance once its lease lapses, and the job completes", async () => {
    standin.control({ delayMs: 400 });
    const document = report("Zemblaxtwo", 40, 22);
    const { job } = await createPaidJob(a, a, document, "two.md");

    // Wait, on B, until A's worker has made model calls and written progress.
    const before: Json[] = [];
    const startedBy = Date.now() + 20_000;
    while (Date.now() < startedBy && !(before.at(-1)?.progress > 0)) {
      before.push(await status(b, job.job_id));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const atKill = before.at(-1)!;
    expect(atKill).toMatchObject({ status: "processing" });
    expect(atKill.progress).toBeGreaterThan(0);
    await a.kill();
    const callsByA = standin.counters().bySchema.section_starts ?? 0;
    expect(callsByA).toBeGreaterThan(0);

    const after = await pollUntilDone(b, job.job_id, { deadlineMs: 40_000, intervalMs: 200 });
    const final = after.at(-1)!;
    expect(final, b.output()).toMatchObject({ status: "completed", progress: 100, message: "Completed" });
    expectNeverDecreasing([...before, ...after].map((s) => s.progress));

    const result = await fetchJson(`${b.base}/api/job/${job.job_id}/result`);
    expect(result.total_chunks).toBeGreaterThan(12);
    expect(result.chunks.every((c: Json) => typeof c.metadata.summary === "string")).toBe(true);
    expect(chunkTexts(result)).toContain("Zemblaxtwo");
    // B resumed the job rather than restarting it: every window was asked, but the answers A had stored were not
    // asked again (those in flight when A died were).
    const windows = result.metadata.ai.windows as number;
    expect(windows).toBeGreaterThan(1);
    const calls = standin.counters().bySchema.section_starts!;
    expect(calls).toBeGreaterThanOrEqual(windows);
    expect(calls).toBeLessThan(callsByA + windows);

    // A comes back (same store) for the next test; afterAll stops it.
    a = await startInstance();
  }, 60_000);
});

describe("twenty jobs at once", () => {
  it("all complete across both instances, each with its own document, and a reposted X-PAYMENT returns the same job", async () => {
    standin.control({ delayMs: 50 });
    const letters = "abcdefghijklmnopqrst";
    const markers = Array.from(letters, (l) => `Zemblax${l}${l}q`);
    const documents = markers.map((marker, i) => report(marker, 2 + (i % 3), 100 + i));
    const instance = (i: number) => (i % 2 === 0 ? a : b);
    const other = (i: number) => (i % 2 === 0 ? b : a);

    const jobs = await Promise.all(
      documents.map((document, i) => createPaidJob(other(i), instance(i), document, `doc-${i}.md`)),
    );
    const ids = jobs.map(({ job }) => job.job_id as string);
    expect(new Set(ids).size).toBe(20);

    // The same payment for the same request, on the other instance: the same job, not a second one.
    const replays = await Promise.all(
      jobs.map(({ signature }, i) =>
        postAiPro(other(i).base, documents[i]!, `doc-${i}.md`, { "X-PAYMENT": signature }),
      ),
    );
    const replayed = await Promise.all(
      replays.map(async (r) => ({ status: r.status, body: (await r.json()) as Json })),
    );
    expect(replayed.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(replayed.map((r) => r.body.job_id)).toEqual(ids);

    const finals = await Promise.all(
      ids.map((id, i) =>
        pollUntilDone(other(i), id, { deadlineMs: 45_000, intervalMs: 250 }).then((seen) => seen.at(-1)!),
      ),
    );
    expect(finals.map((f) => f.status)).toEqual(Array(20).fill("completed"));

    const results = await Promise.all(ids.map((id, i) => fetchJson(`${instance(i).base}/api/job/${id}/result`)));
    results.forEach((result, i) => {
      expect(result.job_id).toBe(ids[i]);
      expect(result.metadata.filename).toBe(`doc-${i}.md`);
      expect(result.payment.transaction).toBe(jobs[i]!.signature);
      const text = chunkTexts(result);
      expect(text).toContain(markers[i]);
      for (const [k, marker] of markers.entries()) if (k !== i) expect(text).not.toContain(marker);
      expect(
        (result.chunks as Json[]).every(
          (c) => typeof c.metadata.summary === "string" && Array.isArray(c.metadata.entities),
        ),
      ).toBe(true);
      expect(result.document_summary).toContain(markers[i]);
    });
  }, 60_000);
});
