import { describe, expect, it } from "vitest";
import { planContextBatches, situateChunks } from "@/lib/ai/context";
import { OpenAIModelClient } from "@/lib/ai/model-client";
import { CHUNK_CONTEXT_TASK } from "@/lib/ai/prompts";
import { resolveOptions } from "@/lib/pipeline/chunk-result";
import type { Chunk } from "@/lib/chunking/types";
import { loadConfig } from "@/lib/ground/config";
import { startJob } from "@/lib/jobs/runner";
import { jobStatus } from "@/lib/jobs/status";
import { type Services } from "@/lib/services";
import { RedisStore } from "@/lib/store";
import { countTokens } from "@/lib/tokens";
import { call, json, payFor402, pollUntilDone, upload } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";
import { startRedisServer } from "./helpers/redis-server";

/**
 * `context=true` (lib/ai/context.ts): a model-written context per chunk on the ai and ai-pro tiers, in `embed_text`
 * and `metadata.context`, batched, bounded, cached per document, falling back to the deterministic prefix on a bad
 * reply. On a real redis-server, paid on the local chain, with the hosted model stood in for by the local
 * OpenAI-compatible stand-in (standin/), whose counters say how many calls were made.
 */

const h = serviceHarness({
  chain: true,
  model: true,
  env: () => ({ AI_MAX_RETRIES: "1", AI_BAD_REPLY_RETRIES: "1", AI_TIMEOUT_MS: "20000" }),
});

const TOPICS = [
  "The orchard's apple trees are pruned in late winter, when the sap is low and the buds are still closed.",
  "The invoice lists each delivery with its date, quantity and unit price; payment is due within thirty days.",
  "Basaltic lava flows far because it is hot and runny, while viscous magma traps gas until it explodes.",
  "The parser turns tokens into a syntax tree, and type checking records the type of every expression.",
] as const;

let documents = 0;
/** A titled Markdown document of `sections` sections, distinct per call (so no earlier request's cache answers it). */
function manual(sections: number, extra = ""): string {
  const id = ++documents;
  const parts = [`# Field manual ${id}`];
  for (let s = 0; s < sections; s++) {
    parts.push(`## Part ${s + 1}`);
    for (let p = 0; p < 3; p++) parts.push(`${TOPICS[(s + p) % TOPICS.length]} Note ${id}.${s}.${p}.${extra}`);
  }
  return parts.join("\n\n");
}

const post = (tier: string, document: string, headers: Record<string, string>, fields: Record<string, string>) =>
  call("POST", `/api/chunk/${tier}`, { body: upload(document, "manual.md", fields), headers });

/** Pays what the 402 asks for this request and sends it again with the payment. */
async function paid(tier: string, document: string, fields: Record<string, string>) {
  const signature = await payFor402(h.rpc, h.chain, () => post(tier, document, {}, fields));
  return post(tier, document, { "X-PAYMENT": signature }, fields);
}

const contextCalls = () => h.model.counters().bySchema[CHUNK_CONTEXT_TASK.name] ?? 0;

/** `embed_text` as it must be without a context: the deterministic prefix (document, section) and the text. */
function deterministic(chunk: Record<string, any>, title: string): string {
  const lines = [`Document: ${title}`];
  if (chunk.metadata.headings?.length) lines.push(`Section: ${chunk.metadata.headings.join(" > ")}`);
  return `${lines.join("\n")}\n\n${chunk.text}`;
}

/** Chunks of `texts` as they sit in `texts.join("\n\n")`. */
const chunksOf = (texts: string[]): Chunk[] => {
  let at = 0;
  return texts.map((text, i) => {
    const start = at;
    at += text.length + 2;
    return {
      text,
      metadata: {
        chunk_index: i,
        char_count: text.length,
        start,
        end: start + text.length,
        token_count: countTokens(text),
      },
    };
  });
};

describe("the contexts, in the library", () => {
  it("bounds the calls per document: batches grow to fit the bound, and chunks past the last call are listed", () => {
    const counts = Array.from({ length: 100 }, () => 50);
    const roomy = planContextBatches(counts, 64);
    expect(roomy.asked.length).toBeLessThan(counts.length);
    expect(roomy.asked.flat()).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(roomy.over).toEqual([]);
    const tight = planContextBatches(counts, 3);
    expect(tight.asked).toHaveLength(3);
    expect([...tight.asked.flat(), ...tight.over]).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(tight.over.length).toBeGreaterThan(0);
  });

  it("falls back to the deterministic prefix for a batch whose reply breaks the schema twice, and says why", async () => {
    const texts = Array.from({ length: 20 }, (_, i) => `${TOPICS[i % TOPICS.length]} Item ${i}.`);
    const chunks = chunksOf(texts);
    const client = new OpenAIModelClient(
      loadConfig({ AI_BASE_URL: h.model.url, AI_MODEL: "standin-small", AI_BAD_REPLY_RETRIES: "1" }).ai,
      "standin-small",
    );
    // One call at a time: the first batch gets both bad replies (its try and its one retry).
    h.model.control({ schemaBreakNext: 2 });
    const situated = await situateChunks(chunks, texts.join("\n\n"), client, {
      concurrency: 1,
      maxCalls: 64,
      documentTokens: 30_000,
    });
    const firstBatch = planContextBatches(
      chunks.map((c) => c.metadata.token_count),
      64,
    ).asked[0]!;
    expect(situated.fallback.map((f) => f.chunk_index)).toEqual(firstBatch);
    expect(situated.fallback[0]!.reason).toMatch(/did not match the schema \(2 tries\)/);
    situated.contexts.forEach((context, i) => {
      if (firstBatch.includes(i)) expect(context).toBeNull();
      else expect(context).toMatch(/^From the document that opens/);
    });
    expect(h.model.counters().faults.schema_break).toBe(2);
  });
});

describe("a document longer than the prompt takes whole", () => {
  it("is shown as its summary and the text around each batch, and every chunk still gets its context", async () => {
    const texts = Array.from({ length: 40 }, (_, i) => `${TOPICS[i % TOPICS.length]} Item ${i}. `.repeat(4));
    const text = texts.join("\n\n");
    expect(countTokens(text)).toBeGreaterThan(2000);
    const client = new OpenAIModelClient(
      loadConfig({ AI_BASE_URL: h.model.url, AI_MODEL: "standin-small" }).ai,
      "standin-small",
    );
    const base = { concurrency: 2, maxCalls: 64 };
    const summarised = await situateChunks(chunksOf(texts), text, client, {
      ...base,
      documentTokens: 1000,
      summary: "A field manual of orchards and invoices.",
    });
    expect(summarised.fallback).toEqual([]);
    for (const context of summarised.contexts)
      expect(context).toMatch(/^From the document that opens "A field manual of orchards and invoices\."/);
    // The same document when it fits: shown whole, so the context names its real opening.
    const whole = await situateChunks(chunksOf(texts), text, client, { ...base, documentTokens: 100_000 });
    for (const context of whole.contexts) expect(context).toMatch(/^From the document that opens "The orchard's/);
  });
});

describe("POST /api/chunk/ai with context=true", () => {
  it("gives every chunk a context in embed_text and metadata, in fewer calls than chunks, the text unchanged", async () => {
    h.use();
    const document = manual(8);
    const fields = { max_tokens: "64", context: "true" };
    const response = await paid("ai", document, fields);
    expect(response.status).toBe(200);
    const result = await json(response);
    const chunks = result.chunks as Array<Record<string, any>>;
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) {
      expect(chunk.metadata.context).toMatch(/^From the document that opens "Field manual \d+"/);
      expect(chunk.embed_text).toBe(`${chunk.metadata.context}\n\n${deterministic(chunk, "manual")}`);
      expect(document.slice(chunk.metadata.start, chunk.metadata.end)).toBe(chunk.text);
    }
    const calls = contextCalls();
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThan(chunks.length);
    expect(result.metadata.ai.context).toEqual({ chunks: chunks.length, calls, fallback: [] });
  });

  it("answers the same document asked again from the cache: the same contexts, no new model call", async () => {
    h.use();
    const document = manual(6);
    const fields = { max_tokens: "64", context: "true" };
    const first = await json(await paid("ai", document, fields));
    const callsBefore = contextCalls();
    expect(callsBefore).toBeGreaterThan(0);
    const again = await paid("ai", document, fields);
    expect(again.status).toBe(200);
    const second = await json(again);
    expect(contextCalls()).toBe(callsBefore);
    expect(second.metadata.ai.context).toMatchObject({ calls: 0, fallback: [] });
    expect(second.chunks.map((c: any) => c.embed_text)).toEqual(first.chunks.map((c: any) => c.embed_text));
    expect(second.payment.transaction).not.toBe(first.payment.transaction);
  });

  it("falls back to the deterministic embed_text when the model's replies stay malformed, and flags every chunk", async () => {
    h.use();
    // The marker makes every reply to a message carrying it break the schema: each batch is asked twice.
    const document = manual(4, " STANDIN:SCHEMA_BREAK");
    const response = await paid("ai", document, { max_tokens: "64", context: "true" });
    expect(response.status).toBe(200);
    const result = await json(response);
    const chunks = result.chunks as Array<Record<string, any>>;
    for (const chunk of chunks) {
      expect(chunk.metadata.context).toBeUndefined();
      expect(chunk.embed_text).toBe(deterministic(chunk, "manual"));
    }
    const { context } = result.metadata.ai;
    expect(context.chunks).toBe(0);
    expect(context.fallback.map((f: any) => f.chunk_index)).toEqual(chunks.map((_, i) => i));
    expect(context.fallback[0].reason).toMatch(/did not match the schema/);
    expect(contextCalls()).toBe(2 * context.calls);
  });

  it("is refused with 400 on the tiers without a h.model, before any payment is asked for", async () => {
    h.use();
    for (const tier of ["free", "structure"]) {
      const response = await post(tier, manual(1), {}, { context: "true" });
      expect(response.status).toBe(400);
      const body = await json(response);
      expect(body).toMatchObject({ success: false, code: "invalid_options" });
      expect(body.message).toMatch(/context=true is for the ai and ai-pro tiers/);
    }
    expect(h.model.counters().completions).toBe(0);
  });

  it("gives a batch's documents their contexts on the ai tier, and refuses the option on a batch without a model", async () => {
    h.use();
    const documents = [manual(3), manual(3)];
    const batch = (tier: string, headers: Record<string, string> = {}) =>
      call("POST", `/api/batch/${tier}`, {
        body: JSON.stringify({
          documents: documents.map((text, i) => ({ text, filename: `manual-${i}.md` })),
          max_tokens: 64,
          context: true,
        }),
        headers: { "content-type": "application/json", ...headers },
      });

    const refused = await batch("structure");
    expect(refused.status).toBe(400);
    expect(await json(refused)).toMatchObject({ code: "invalid_options" });

    const signature = await payFor402(h.rpc, h.chain, () => batch("ai"));
    const accepted = await batch("ai", { "X-PAYMENT": signature });
    expect(accepted.status).toBe(202);
    const { job_id } = await json(accepted);
    expect((await pollUntilDone(job_id, 120_000)).at(-1)!.status).toBe("completed");
    const result = await json(await call("GET", `/api/job/${job_id}/result`));
    const chunks = result.chunks as Array<Record<string, any>>;
    expect(new Set(chunks.map((chunk) => chunk.document_index))).toEqual(new Set([0, 1]));
    for (const chunk of chunks) expect(chunk.metadata.context).toMatch(/^From the document that opens "Field manual/);
    expect(contextCalls()).toBeGreaterThan(0);
  });

  it("keeps the option out of a request's options when false, so its payment key is what it was", () => {
    const chunking = loadConfig({}).chunking;
    expect(resolveOptions({ context: false }, chunking)).toEqual(resolveOptions({}, chunking));
    expect(resolveOptions({ context: true }, chunking).context).toBe(true);
  });
});

describe("ai-pro jobs with context=true", () => {
  const submit = async (s: Services, bytes: Uint8Array) =>
    (
      await startJob(s, {
        tier: "ai-pro",
        input: { kind: "upload", bytes, filename: "manual.md" },
        options: { maxTokens: 64, overlapTokens: 0, outputFormat: "raw", includeNotes: true, context: true },
        apiBase: "http://chunkwise.test/api",
        payment: { amount: 0, asset: "USDC", network: "solana-localnet", transaction: null },
      })
    ).job_id;

  async function finished(s: Services, id: string) {
    const until = Date.now() + 600_000;
    while (Date.now() < until) {
      const status = await jobStatus(s, id);
      if (status.status !== "processing") return status;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`job ${id} did not end`);
  }

  it("makes each model call once when the job runs in many slices, as many as in one piece", async () => {
    const bytes = new TextEncoder().encode(manual(24));
    // The job in one piece, on a store of its own: the calls every sliced run must make, no more.
    const other = await startRedisServer();
    const otherStore = new RedisStore({ url: other.url });
    let onePiece: number;
    let contextsInOnePiece: number;
    try {
      const whole = h.use({ JOB_SLICE_MS: "3600000", AI_PRO_CONCURRENCY: "1" }, { store: otherStore });
      const id = await submit(whole, bytes);
      expect(await finished(whole, id)).toMatchObject({ status: "completed" });
      onePiece = h.model.counters().completions;
      contextsInOnePiece = contextCalls();
    } finally {
      await h.drain();
      await otherStore.close();
      await other.stop();
    }
    expect(contextsInOnePiece).toBeGreaterThan(1);

    h.model.reset();
    // One call at a time, each slower than a slice's share: the job is cut into several slices.
    h.model.control({ delayMs: 400 });
    const sliced = h.use({ JOB_SLICE_MS: "1000", FUNCTION_LIMIT_MS: "60000", AI_PRO_CONCURRENCY: "1" });
    const id = await submit(sliced, bytes);
    expect(await finished(sliced, id)).toMatchObject({ status: "completed" });
    expect((await sliced.jobs.get(id))!.record.cursor).toBeGreaterThanOrEqual(2);
    expect(h.model.counters().completions).toBe(onePiece);
    expect(contextCalls()).toBe(contextsInOnePiece);
    const result = JSON.parse(await sliced.results.load((await sliced.jobs.get(id))!.record.result_id!)) as Record<
      string,
      any
    >;
    expect(result.metadata.ai.context.fallback).toEqual([]);
    for (const chunk of result.chunks) {
      expect(chunk.metadata.context).toEqual(expect.any(String));
      expect(chunk.metadata.summary).toEqual(expect.any(String));
      expect(chunk.embed_text.startsWith(`${chunk.metadata.context}\n\n`)).toBe(true);
    }
  }, 700_000);
});
