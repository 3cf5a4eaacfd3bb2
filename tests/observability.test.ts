import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { createKeyPairSignerFromPrivateKeyBytes, getAddressEncoder, getBase58Decoder } from "@solana/kit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSigner, wrapFetchWithPayment } from "x402-fetch";
import { logger, redirectLogs } from "@/lib/observability/log";
import { call, funded, ORIGIN, prose, upload } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";

/**
 * What an operator sees: JSON log lines with the request id on each, payment and job events without secrets,
 * and the Prometheus endpoint behind its token. Paid with x402 v1 (X-PAYMENT carries the whole signed
 * transaction, co-signed here with the fee payer's secret key) on the local chain; a real redis-server.
 */

const METRICS_TOKEN = "metrics-token-for-tests-0123456789";

/** Every log line written while the tests run, parsed (each must be one JSON object). */
const lines: Array<Record<string, any>> = [];
let restoreLogs: () => void;
let restoreLevel: () => void;

/** Each request the x402 client sent, with its X-PAYMENT, its answer and the log lines written while it ran. */
interface Sent {
  xPayment?: string;
  response: Response;
  lines: Array<Record<string, any>>;
}
let sent: Sent[] = [];

beforeAll(async () => {
  // The suite runs with LOG_LEVEL=warn (vitest.config.ts); these tests read the info lines.
  const level = logger().level;
  logger().level = "info";
  restoreLevel = () => (logger().level = level);
  restoreLogs = redirectLogs({
    write: (line) => {
      for (const text of line.split("\n").filter(Boolean)) lines.push(JSON.parse(text) as Record<string, any>);
    },
  });
});

const h = serviceHarness({ chain: true, feePayer: true });
beforeAll(() => void h.use({ METRICS_TOKEN }));

afterEach(() => {
  sent = [];
});

afterAll(async () => {
  restoreLogs?.();
  restoreLevel?.();
});

/** The route handlers as x402-fetch's fetch, recording each request's X-PAYMENT and the lines it logged. */
const recordingFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  const headers = Object.fromEntries(new Headers(init?.headers).entries());
  const from = lines.length;
  const response = await call(init?.method ?? "GET", url.pathname, { body: init?.body ?? undefined, headers });
  sent.push({ xPayment: headers["x-payment"], response: response.clone(), lines: lines.slice(from) });
  return response;
}) as typeof fetch;

/** A funded payer whose secret x402's createSigner takes (base58 of seed then public key). */
async function x402Fetch() {
  const seed = randomBytes(32);
  const payer = await funded(await createKeyPairSignerFromPrivateKeyBytes(seed));
  const secret = getBase58Decoder().decode(new Uint8Array([...seed, ...getAddressEncoder().encode(payer.address)]));
  const signer = await createSigner("solana-devnet", secret);
  return {
    payer: payer.address,
    fetch: wrapFetchWithPayment(recordingFetch, signer, 100_000n, undefined, { svmConfig: { rpcUrl: h.chain.rpcUrl } }),
  };
}

const events = (from: Array<Record<string, any>>, name: string) => from.filter((line) => line.event === name);

/** Nothing secret in any line written so far: the fee payer's key, the X-PAYMENT values sent, `text`. */
function expectNoSecrets(texts: string[]) {
  const all = lines.map((line) => JSON.stringify(line)).join("\n");
  expect(all).not.toContain(h.chain.feePayer.secretKey);
  for (const { xPayment } of sent) {
    if (!xPayment) continue;
    expect(all).not.toContain(xPayment);
    // The signed transaction inside it, as base64.
    const transaction = JSON.parse(Buffer.from(xPayment, "base64").toString("utf8")).payload.transaction;
    expect(transaction.length).toBeGreaterThan(100);
    expect(all).not.toContain(transaction);
  }
  for (const text of texts) expect(all).not.toContain(text);
}

/** One sample of the Prometheus text: the value of `name` whose labels include `labels` (summed over the rest). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  let found = false;
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const has = Object.entries(labels).every(([key, value]) => (match[3] ?? "").includes(`${key}="${value}"`));
    if (!has) continue;
    found = true;
    total += Number(match[4]);
  }
  return found ? total : 0;
}

const scrape = async () => {
  const response = await call("GET", "/api/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
};

describe("logs", () => {
  it("a paid request: its id on every line it wrote, echoed in X-Request-Id; the payment's events; no secret", async () => {
    const document = `# Observability ${randomBytes(6).toString("hex")}\n\n${prose(1, 7)}`;
    const secretSentence = document.split("\n")[2]!.slice(0, 80);
    const { fetch: paying, payer } = await x402Fetch();
    sent = [];
    const response = await paying(`${ORIGIN}/api/chunk/standard`, {
      method: "POST",
      body: upload(document, "observability.md"),
    });
    expect(response.status).toBe(200);

    // The 402 and the paid retry: two requests, two ids, each on every line of its own.
    expect(sent.map((s) => s.response.status)).toEqual([402, 200]);
    const ids = sent.map((s) => s.response.headers.get("x-request-id"));
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[0]).not.toBe(ids[1]);
    for (const [i, request] of sent.entries()) {
      expect(request.lines.length).toBeGreaterThan(0);
      for (const line of request.lines) expect(line.request_id, JSON.stringify(line)).toBe(ids[i]);
    }

    const paid = sent[1]!.lines;
    expect(events(paid, "payment.verified")).toEqual([
      expect.objectContaining({ tier: "structure", amount: "2000", payer, header: "X-PAYMENT" }),
    ]);
    const [settled] = events(paid, "payment.settled");
    expect(settled).toMatchObject({ tier: "structure", amount: "2000", payer, level: "info", service: "chunkwise" });
    expect(settled?.transaction).toBe((await response.clone().json()).payment.transaction);
    expect(events(paid, "request.completed")).toEqual([
      expect.objectContaining({ route: "/api/chunk/standard", tier: "structure", status: 200, method: "POST" }),
    ]);
    expect(events(sent[0]!.lines, "request.refused")).toEqual([
      expect.objectContaining({ status: 402, code: "payment_required", tier: "structure" }),
    ]);
    expectNoSecrets([secretSentence]);
  });

  it("a failed job: the accepting request's id on every line of its work, its events, the payment released", async () => {
    const broken = new Uint8Array(readFileSync(path.join(process.cwd(), "tests/fixtures/corrupted.pdf")));
    const { fetch: paying } = await x402Fetch();
    sent = [];
    const from = lines.length;
    const response = await paying(`${ORIGIN}/api/chunk/structure`, {
      method: "POST",
      body: upload(broken, "broken.pdf", { async: "true" }, "application/pdf"),
    });
    const accepted = (await response.json()) as Record<string, any>;
    expect(response.status, JSON.stringify(accepted)).toBe(200);
    // The job runs after the answer, in the scope of the request that accepted it.
    await h.drain();
    const id = response.headers.get("x-request-id")!;
    const start = from + lines.slice(from).findIndex((line) => line.request_id === id);
    const work = lines.slice(start);
    for (const line of work) expect(line.request_id, JSON.stringify(line)).toBe(id);

    expect(events(work, "payment.settled")).toEqual([expect.objectContaining({ tier: "structure", amount: "2000" })]);
    expect(events(work, "job.accepted")).toEqual([
      expect.objectContaining({ job_id: accepted.job_id, tier: "structure" }),
    ]);
    expect(events(work, "job.failed")).toEqual([
      expect.objectContaining({ job_id: accepted.job_id, code: "corrupted_pdf", level: "warn" }),
    ]);
    expect(events(work, "payment.released")).toEqual([
      expect.objectContaining({ job_id: accepted.job_id, tier: "structure" }),
    ]);
    const status = (await (await call("GET", `/api/job/${accepted.job_id}/status`)).json()) as Record<string, any>;
    expect(status).toMatchObject({ status: "failed", error: { code: "corrupted_pdf" } });
    expectNoSecrets([]);
  });

  it("keeps a sane incoming X-Request-Id and replaces any other", async () => {
    const kept = await call("GET", "/api/quota", { headers: { "x-request-id": "ops-trace.42:a" } });
    expect(kept.headers.get("x-request-id")).toBe("ops-trace.42:a");
    expect(events(lines, "request.completed").at(-1)).toMatchObject({
      request_id: "ops-trace.42:a",
      route: "/api/quota",
    });
    for (const bad of ["two words", "x".repeat(129), "<script>"]) {
      const replaced = await call("GET", "/api/quota", { headers: { "x-request-id": bad } });
      expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
    // Unknown paths and wrong methods get ids too, with bounded route labels.
    const unknown = await call("GET", "/api/no/such/thing/here");
    expect(unknown.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(events(lines, "request.refused").at(-1)).toMatchObject({ route: "/api/{unknown}", code: "not_found" });
  });
});

describe("metrics", () => {
  it("are served to the token's holder only, and move with requests, payments, pages, jobs, quota and busy", async () => {
    expect((await call("GET", "/api/metrics")).status).toBe(401);
    const wrong = await call("GET", "/api/metrics", { headers: { authorization: "Bearer not-the-token-at-all" } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await wrong.json()).toMatchObject({ code: "metrics_unauthorized" });

    const before = await scrape();
    const { fetch: paying } = await x402Fetch();
    const paid = await paying(`${ORIGIN}/api/chunk/standard`, {
      method: "POST",
      body: upload(`# Metrics\n\n${prose(2, 11)}`, "metrics.md"),
    });
    expect(paid.status).toBe(200);
    const free = await call("POST", "/api/chunk/free", {
      body: upload(prose(1, 12), "free.txt"),
      client: "203.0.113.9",
    });
    expect(free.status).toBe(200);
    // Every place of the instance held: the next request is refused busy.
    const held = Array.from({ length: h.services.cpu.capacity }, () => h.services.cpu.admit());
    const busy = await call("POST", "/api/chunk/free", {
      body: upload(prose(1, 13), "busy.txt"),
      client: "203.0.113.10",
    });
    for (const release of held) release();
    expect(busy.status).toBe(503);
    const after = await scrape();

    const moved = (name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(moved("chunkwise_http_requests_total", { tier: "structure", status: "200" })).toBe(1);
    expect(moved("chunkwise_http_requests_total", { tier: "structure", status: "402" })).toBe(1);
    expect(moved("chunkwise_http_requests_total", { tier: "free", status: "200" })).toBe(1);
    expect(moved("chunkwise_http_requests_total", { tier: "free", status: "503" })).toBe(1);
    expect(moved("chunkwise_http_request_duration_seconds_count", { tier: "structure", status_class: "2xx" })).toBe(1);
    expect(moved("chunkwise_http_errors_total", { code: "busy", status: "503" })).toBe(1);
    expect(moved("chunkwise_cpu_busy_total")).toBe(1);
    expect(moved("chunkwise_payments_total", { outcome: "settled", tier: "structure" })).toBe(1);
    expect(moved("chunkwise_usdc_settled_base_units_total", { tier: "structure" })).toBe(2000);
    expect(moved("chunkwise_pages_total", { method: "read" })).toBeGreaterThanOrEqual(2);
    // The busy request's page was taken before its refusal and given back.
    expect(moved("chunkwise_free_pages_total", { outcome: "taken" })).toBe(2);
    expect(moved("chunkwise_free_pages_total", { outcome: "returned" })).toBe(1);
    expect(after).toMatch(/^chunkwise_cpu_queue_depth(\{[^}]*\})? \d+/m);
    expect(after).toMatch(/^chunkwise_cpu_admitted_requests(\{[^}]*\})? \d+/m);
    // The failed job of the logs' test above; routes labelled by their tier endpoint, never an id.
    expect(sample(after, "chunkwise_jobs_total", { state: "failed", tier: "structure" })).toBeGreaterThanOrEqual(1);
    expect(sample(after, "chunkwise_http_requests_total", { route: "/api/chunk/standard" })).toBeGreaterThanOrEqual(2);
    expect(after).toMatch(/route="\/api\/job\/\{id\}\/status"/);
  });

  it("without METRICS_TOKEN the endpoint does not exist", async () => {
    h.use();
    try {
      const response = await call("GET", "/api/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: "not_found" });
    } finally {
      h.use({ METRICS_TOKEN });
    }
  });
});
