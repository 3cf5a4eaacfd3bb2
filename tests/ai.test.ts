import { readFileSync } from "node:fs";
import { chunkExtracted } from "@/lib/pipeline/chunk-result";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type Window, decidingWindows, findBoundaries, mergeAnswers, planWindows } from "@/lib/ai/boundary-windows";
import { BadReplyError, OpenAIModelClient } from "@/lib/ai/model-client";
import { SECTION_STARTS_TASK, sectionStartsMessage } from "@/lib/ai/prompts";
import { boundaryUnits } from "@/lib/ai/units";
import { splitStructure } from "@/lib/chunking/structure";
import { type Config, loadConfig } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";
import type { Extracted } from "@/lib/extract/types";
import { countTokens } from "@/lib/tokens";
import { call, json, payFor402, pollUntilDone, upload } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";

/**
 * The AI tiers and async jobs, in process: the route handlers on a real
 * redis-server, paid on the real Solana runtime (the local chain), with the
 * hosted model stood in for by the local OpenAI-compatible stand-in.
 * Separate instances and killed workers: tests/jobs-instances.test.ts.
 */

const h = serviceHarness({
  chain: true,
  model: true,
  env: () => ({ AI_MAX_RETRIES: "1", AI_TIMEOUT_MS: "5000" }),
});

// ---------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------

const TOPICS = [
  [
    "orchard",
    "apple trees need pruning in late winter, when the sap is low and the buds are still closed. Cut crossing branches and open the centre so light reaches the fruit.",
  ],
  [
    "invoice",
    "the invoice lists each delivery with its date, quantity and unit price. Payment is due within thirty days, and late payment accrues interest at two percent a month.",
  ],
  [
    "volcano",
    "basaltic lava flows far because it is hot and runny. Explosive eruptions come from viscous magma that traps gas until the pressure shatters the rock into ash.",
  ],
  [
    "compiler",
    "the parser turns tokens into a syntax tree. Type checking walks the tree and records the type of every expression before code generation emits instructions.",
  ],
  [
    "football",
    "the midfielder passed the ball wide and the winger crossed it into the box. The striker headed it past the goalkeeper in the final minute of the match.",
  ],
  [
    "bakery",
    "sourdough rises slowly because wild yeast works at room temperature. Bakers feed the starter with flour and water every day to keep it active.",
  ],
] as const;

let documentCounter = 0;
/** Prose in topic runs of `perTopic` paragraphs, with no headings: only a model can see where topics change. Distinct per call. */
function topicDocument(perTopic: number, topics = TOPICS.length, marker?: { topic: number; text: string }): string {
  const id = ++documentCounter;
  const paragraphs: string[] = [];
  for (let t = 0; t < topics; t++) {
    const [name, body] = TOPICS[t % TOPICS.length]!;
    for (let p = 0; p < perTopic; p++) {
      const extra = marker && marker.topic === t && p === 0 ? ` ${marker.text}` : "";
      paragraphs.push(`About the ${name} (${id}.${t}.${p}): ${body}${extra}`);
    }
  }
  return paragraphs.join("\n\n");
}

// ---------------------------------------------------------------------------
// Payments
// ---------------------------------------------------------------------------

const post = (
  endpoint: string,
  document: string,
  headers: Record<string, string> = {},
  fields: Record<string, string> = {},
) => call("POST", `/api/chunk/${endpoint}`, { body: upload(document, "notes.txt", fields), headers });

/** Asks, pays exactly what the 402 asks with its reference, returns the X-PAYMENT signature. */
const payFor = (endpoint: string, document: string, fields: Record<string, string> = {}) =>
  payFor402(h.rpc, h.chain, () => post(endpoint, document, {}, fields));

// ---------------------------------------------------------------------------
// Units, windows and merging (no model)
// ---------------------------------------------------------------------------

describe("units and windows", () => {
  it("cuts paragraphs, keeps a fenced code block whole across blank lines, and splits long paragraphs into sentences", () => {
    const long = Array.from(
      { length: 30 },
      (_, i) => `Sentence number ${i} says something about the subject at hand.`,
    ).join(" ");
    const text = `# Title\n\nFirst paragraph.\n\n\`\`\`js\nconst a = 1;\n\nconst b = 2;\n\`\`\`\n\n${long}\n\nLast.`;
    const units = boundaryUnits(text).map((u) => text.slice(u.start, u.end));
    expect(units.slice(0, 3)).toEqual(["# Title", "First paragraph.", "```js\nconst a = 1;\n\nconst b = 2;\n```"]);
    expect(units.slice(3, -1)).toHaveLength(30);
    expect(units[3]).toBe("Sentence number 0 says something about the subject at hand.");
    expect(units.at(-1)).toBe("Last.");
  });

  it("plans windows that cover every unit, overlap their neighbours and respect both limits", () => {
    const shown = Array.from({ length: 95 }, (_, i) => "x".repeat(50 + (i % 7) * 30));
    const windows = planWindows(shown, { maxUnits: 20, maxChars: 2000, overlapUnits: 4 });
    expect(windows[0]!.from).toBe(0);
    expect(windows.at(-1)!.to).toBe(95);
    for (const [k, w] of windows.entries()) {
      expect(w.to - w.from).toBeLessThanOrEqual(20);
      expect(shown.slice(w.from, w.to).join("").length).toBeLessThanOrEqual(2000);
      if (k > 0) expect(windows[k - 1]!.to - w.from).toBe(4);
    }
  });

  it("lets the window a unit sits most centrally in decide it, and another covering window when that one failed", () => {
    const windows: Window[] = [
      { from: 0, to: 10 },
      { from: 6, to: 16 },
    ];
    // Units 6, 7 are nearer the middle of the first window; 8, 9 of the second.
    expect(
      decidingWindows(windows, 16)
        .slice(6, 10)
        .map((c) => c[0]),
    ).toEqual([0, 0, 1, 1]);
    const first = new Set([3, 7, 8]);
    const second = new Set([9, 12]);
    expect(mergeAnswers(windows, [first, second], 16).starts.flatMap((s, u) => (s ? [u] : []))).toEqual([3, 7, 9, 12]);
    // The second window failed: the first decides what it covers, the rest is undecided.
    const merged = mergeAnswers(windows, [first, null], 16);
    expect(merged.starts.flatMap((s, u) => (s ? [u] : []))).toEqual([3, 7, 8]);
    expect(merged.undecided.flatMap((s, u) => (s ? [u] : []))).toEqual([10, 11, 12, 13, 14, 15]);
  });

  it("starts a section of the structure splitter at a given offset, but not inside a unit or right after a heading", () => {
    const text = "# Intro\n\nAlpha one. Alpha two.\n\nBeta one. Beta two.\n\n- item one\n- item two\n\nGamma.";
    const at = (s: string) => text.indexOf(s);
    const plain = splitStructure(text, { maxTokens: 200, overlapTokens: 0 });
    expect(plain).toHaveLength(1);
    const given = splitStructure(text, {
      maxTokens: 200,
      overlapTokens: 0,
      sectionStarts: [at("Alpha one"), at("Beta one"), at("item two"), at("Gamma")],
    });
    // "Alpha one" follows the heading (kept with it) and "item two" is inside a list kept whole: two sections start, at "Beta" and "Gamma", and no chunk spans them.
    expect(given.map((s) => text.slice(s.start, s.end))).toEqual([
      "# Intro\n\nAlpha one. Alpha two.",
      "Beta one. Beta two.\n\n- item one\n- item two",
      "Gamma.",
    ]);
  });
});

// ---------------------------------------------------------------------------
// The model client and boundaries against the stand-in
// ---------------------------------------------------------------------------

function aiConfig(env: Record<string, string> = {}): Config["ai"] {
  return loadConfig({
    AI_BASE_URL: h.model.url,
    AI_MODEL: "standin-small",
    AI_MAX_RETRIES: "2",
    AI_TIMEOUT_MS: "5000",
    ...env,
  }).ai;
}

describe("the model client", () => {
  const message = sectionStartsMessage(["About apples.", "About invoices."], 1);

  it("retries 429 and 5xx with backoff and then answers", async () => {
    h.model.control({ rateLimitNext: 1, failNext: 1 });
    const answer = await new OpenAIModelClient(aiConfig(), "standin-small").ask(SECTION_STARTS_TASK, message);
    expect(answer.starts).toEqual(expect.any(Array));
    expect(h.model.counters().completions).toBe(3);
  });

  it("gives up with 503 ai_unavailable when the provider keeps failing", async () => {
    h.model.control({ down: true });
    const error = await new OpenAIModelClient(aiConfig(), "standin-small")
      .ask(SECTION_STARTS_TASK, message)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 503, code: "ai_unavailable" });
    expect(h.model.counters().faults.down).toBe(3);
  });

  it("asks again after a reply that is not JSON or breaks the schema, then reports a bad reply", async () => {
    h.model.control({ brokenJsonNext: 1 });
    const client = new OpenAIModelClient(aiConfig({ AI_BAD_REPLY_RETRIES: "1" }), "standin-small");
    expect((await client.ask(SECTION_STARTS_TASK, message)).starts).toEqual(expect.any(Array));
    h.model.control({ brokenJsonNext: 1, schemaBreakNext: 1 });
    const error = await client.ask(SECTION_STARTS_TASK, message).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadReplyError);
    expect((error as BadReplyError).reason).toBe("did not match the schema");
  });
});

describe("boundaries found by the model", () => {
  it("are the same whether the document fits one window or is merged from many overlapping ones", async () => {
    const text = topicDocument(5);
    const client = new OpenAIModelClient(aiConfig(), "standin-small");
    const whole = await findBoundaries(text, client, { concurrency: 4 });
    expect(whole.windows).toBe(1);
    const at = (name: string) => text.indexOf(`About the ${name}`);
    // Every topic change, and nothing else.
    expect(whole.sectionStarts).toEqual(TOPICS.slice(1).map(([name]) => at(name)));

    const windowed = await findBoundaries(text, client, {
      concurrency: 4,
      shape: { maxUnits: 7, maxChars: 100_000, overlapUnits: 3 },
    });
    expect(windowed.windows).toBeGreaterThan(5);
    expect(windowed.sectionStarts).toEqual(whole.sectionStarts);
    expect(windowed.fallback).toEqual([]);
  });

  it("leave a window whose answers stay broken to the structure splitter, and say so; the other windows still count", async () => {
    const text = topicDocument(5, 6, { topic: 2, text: "STANDIN:BROKEN_JSON" });
    const client = new OpenAIModelClient(aiConfig({ AI_BAD_REPLY_RETRIES: "1" }), "standin-small");
    const found = await findBoundaries(text, client, {
      concurrency: 2,
      shape: { maxUnits: 8, maxChars: 100_000, overlapUnits: 2 },
    });
    expect(found.fallback.length).toBeGreaterThan(0);
    for (const range of found.fallback) {
      expect(range.reason).toContain("not valid JSON");
      expect(text.slice(range.start, range.end)).toContain("STANDIN:BROKEN_JSON");
    }
    // Topic changes outside the broken windows are still found.
    expect(found.sectionStarts).toContain(text.indexOf("About the compiler"));
    expect(found.sectionStarts).toContain(text.indexOf("About the bakery"));
  });

  it("never make a chunk longer than max_tokens, whatever the sections' sizes", async () => {
    const text = topicDocument(12);
    const services = h.use();
    for (const maxTokens of [40, 120, 700]) {
      const { chunks, details } = await chunkExtracted(
        { text, kind: "text", mediaType: "text/plain", pageCount: 1 } satisfies Extracted,
        "ai",
        { maxTokens, overlapTokens: 0 },
        { embedder: services.embedder, models: services.models, modelConcurrency: 4 },
      );
      expect(details).toMatchObject({ model: "standin-small", fallback: [] });
      for (const chunk of chunks) expect(countTokens(chunk.text)).toBeLessThanOrEqual(maxTokens);
      // No chunk spans a topic change the model found.
      for (const chunk of chunks)
        expect(new Set([...chunk.text.matchAll(/About the (\w+)/g)].map((m) => m[1])).size).toBeLessThanOrEqual(1);
    }
  });
});

// ---------------------------------------------------------------------------
// The ai tier through the API
// ---------------------------------------------------------------------------

describe("POST /api/chunk/ai", () => {
  it("answers a paid request with the model's sections and says which model found them", async () => {
    h.use();
    const document = topicDocument(3);
    const signature = await payFor("ai", document, { max_tokens: "200" });
    const response = await post("ai", document, { "X-PAYMENT": signature }, { max_tokens: "200" });
    expect(response.status).toBe(200);
    const result = await json(response);
    expect(result.tier).toBe("ai");
    expect(result.metadata).toMatchObject({ method: "ai-boundaries", ai: { model: "standin-small", fallback: [] } });
    expect(result.metadata.ai.sections_found).toBe(TOPICS.length - 1);
    expect(result.payment).toMatchObject({ amount: 10000, transaction: signature });
    expect(result.chunks.length).toBeGreaterThanOrEqual(TOPICS.length);
  });

  it("answers 503 when the provider is down, and the same payment then buys the request once it is back", async () => {
    h.use();
    const document = topicDocument(2);
    const signature = await payFor("ai", document);
    h.model.control({ down: true });
    const down = await post("ai", document, { "X-PAYMENT": signature });
    expect(down.status).toBe(503);
    expect(await json(down)).toMatchObject({ success: false, code: "ai_unavailable" });
    h.model.control({ down: false });
    const retried = await post("ai", document, { "X-PAYMENT": signature });
    expect(retried.status).toBe(200);
    expect((await json(retried)).payment.transaction).toBe(signature);
  });
});

// ---------------------------------------------------------------------------
// The ai-pro tier: async jobs
// ---------------------------------------------------------------------------

describe("POST /api/chunk/ai-pro", () => {
  it("answers at once with a job whose progress rises to 100, then serves the enriched result", async () => {
    h.use();
    h.model.control({ delayMs: 60 });
    const document = topicDocument(10);
    const fields = { max_tokens: "120" };
    const signature = await payFor("ai-pro", document, fields);
    const accepted = await post("ai-pro", document, { "X-PAYMENT": signature }, fields);
    expect(accepted.status).toBe(200);
    const job = await json(accepted);
    expect(job).toMatchObject({
      success: true,
      async: true,
      status: "processing",
      status_url: `http://chunkwise.test/api/job/${job.job_id}/status`,
    });
    expect(job.job_id).toMatch(/^ai-pro_[0-9a-f]{32}$/);

    // Paying again with the same payment for the same request gets the same job.
    expect((await json(await post("ai-pro", document, { "X-PAYMENT": signature }, fields))).job_id).toBe(job.job_id);

    const early = await call("GET", `/api/job/${job.job_id}/result`);
    const seen = await pollUntilDone(job.job_id);
    if (early.status !== 200) expect(await json(early)).toMatchObject({ code: "job_not_finished" });
    const progress = seen.map((s) => s.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.slice(0, -1).every((p) => p < 100)).toBe(true);
    const messages = seen.map((s) => s.message).join("\n");
    expect(messages).toMatch(/Finding boundaries \d+\/\d+/);
    expect(messages).toMatch(/Summarising \d+\/\d+/);
    const done = seen.at(-1)!;
    expect(done).toMatchObject({
      status: "completed",
      progress: 100,
      message: "Completed",
      result_id: expect.stringMatching(/^ai-pro_[0-9a-f]{32}$/),
    });
    expect(done.download_url).toBe(`http://chunkwise.test/api/results/${done.result_id}`);
    expect(Date.parse(done.expires_at) - Date.parse(done.created_at)).toBe(3600_000);

    const result = await json(await call("GET", `/api/job/${job.job_id}/result`));
    expect(await json(await call("GET", `/api/results/${done.result_id}`))).toEqual(result);
    expect(result).toMatchObject({
      success: true,
      tier: "ai-pro",
      job_id: job.job_id,
      result_id: done.result_id,
      payment: { amount: 25000, transaction: signature },
    });
    expect(result.document_summary.length).toBeGreaterThan(20);
    expect(result.metadata.ai).toMatchObject({ model: "standin-large", unenriched: [] });
    for (const chunk of result.chunks) {
      expect(chunk.metadata.summary.length).toBeGreaterThan(10);
      expect(Array.isArray(chunk.metadata.entities)).toBe(true);
      expect(chunk.metadata.token_count).toBeLessThanOrEqual(120);
    }
    // Calls were made for every window and batch, with the larger model.
    expect(h.model.counters().byModel["standin-large"]).toBeGreaterThan(2);
  });

  it("fails the job with the provider's error when it goes down mid-job, and releases the payment for a retry", async () => {
    h.use();
    const document = topicDocument(4);
    const signature = await payFor("ai-pro", document);
    h.model.control({ down: true });
    const job = await json(await post("ai-pro", document, { "X-PAYMENT": signature }));
    const failed = (await pollUntilDone(job.job_id)).at(-1)!;
    expect(failed).toMatchObject({
      status: "failed",
      message: "Failed",
      error: { code: "ai_unavailable", message: expect.stringContaining("503") },
    });
    expect(failed.result_id).toBeUndefined();
    expect(await json(await call("GET", `/api/job/${job.job_id}/result`))).toMatchObject({ code: "job_failed" });

    h.model.control({ down: false });
    const retried = await json(await post("ai-pro", document, { "X-PAYMENT": signature }));
    expect(retried.job_id).not.toBe(job.job_id);
    expect((await pollUntilDone(retried.job_id)).at(-1)).toMatchObject({ status: "completed" });
  });

  it("takes over a job whose worker never renewed its lease, after the lease lapses", async () => {
    h.use({ JOB_LEASE_MS: "1000" });
    const document = topicDocument(2);
    const signature = await payFor("ai-pro", document);
    h.runScheduledWork = false; // the first worker "dies" before it starts
    const job = await json(await post("ai-pro", document, { "X-PAYMENT": signature }));
    const waiting = await json(await call("GET", `/api/job/${job.job_id}/status`));
    expect(waiting).toMatchObject({ status: "processing", progress: 0 });
    h.runScheduledWork = true;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const done = (await pollUntilDone(job.job_id)).at(-1)!;
    expect(done).toMatchObject({ status: "completed", progress: 100 });
  });

  it("fails a job whose workers keep dying, and releases its payment", async () => {
    h.use({ JOB_LEASE_MS: "1000", JOB_MAX_ATTEMPTS: "1" });
    const document = topicDocument(2);
    const signature = await payFor("ai-pro", document);
    h.runScheduledWork = false;
    const job = await json(await post("ai-pro", document, { "X-PAYMENT": signature }));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const status = await json(await call("GET", `/api/job/${job.job_id}/status`));
    expect(status).toMatchObject({ status: "failed", error: { code: "job_abandoned" } });
    h.runScheduledWork = true;
    const retried = await json(await post("ai-pro", document, { "X-PAYMENT": signature }));
    expect(retried.job_id).not.toBe(job.job_id);
  });

  it("expires jobs and their results with 404 expired_or_unknown", async () => {
    h.use({ RESULT_TTL_SECONDS: "2" });
    const document = topicDocument(2);
    const job = await json(await post("ai-pro", document, { "X-PAYMENT": await payFor("ai-pro", document) }));
    const done = (await pollUntilDone(job.job_id)).at(-1)!;
    expect(done.status).toBe("completed");
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(done.expires_at) - Date.now()) + 100));
    for (const path of [
      `/api/job/${job.job_id}/status`,
      `/api/job/${job.job_id}/result`,
      `/api/results/${done.result_id}`,
    ]) {
      const response = await call("GET", path);
      expect(response.status).toBe(404);
      expect(await json(response)).toMatchObject({ success: false, code: "expired_or_unknown" });
    }
  });

  it("refuses an upload no tier can read with 415 before asking for payment or making a job", async () => {
    h.use();
    const gif = new Uint8Array(readFileSync(path.join(process.cwd(), "tests/fixtures/image.gif")));
    const response = await call("POST", "/api/chunk/ai-pro", { body: upload(gif, "scan.gif") });
    expect(response.status).toBe(415);
    expect(await json(response)).toMatchObject({ success: false, code: "unsupported_type" });
  });

  it("answers 404 for a job id that never existed or is malformed", async () => {
    h.use();
    for (const id of ["ai-pro_000000000000", "nonsense", "ai-pro_ZZZ"]) {
      const response = await call("GET", `/api/job/${id}/status`);
      expect(response.status).toBe(404);
      expect(await json(response)).toMatchObject({ code: "expired_or_unknown" });
    }
  });
});
