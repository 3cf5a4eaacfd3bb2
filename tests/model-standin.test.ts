/**
 * The model stand-in (standin/), driven as the AI tiers drive a hosted
 * model: through the real `openai` SDK and through plain fetch, on
 * 127.0.0.1. Its answers must parse with the tasks' own schemas
 * (lib/ai/prompts.ts), and every fault it offers must reach the client as a
 * real provider's would.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  CHUNK_ENRICHMENT_TASK,
  ChunkEnrichment,
  DOCUMENT_SUMMARY_TASK,
  DocumentSummary,
  SECTION_STARTS_TASK,
  SectionStarts,
  type Task,
  chunkEnrichmentMessage,
  documentSummaryMessage,
  sectionStartsMessage,
} from "@/lib/ai/prompts";
import { HashedNgramEmbedder } from "@/lib/embeddings/hashed-ngrams";
import { MAX_BODY_BYTES, type ModelStandin, STANDIN_BANNER, startModelStandin } from "@/standin/model-server";

const root = join(import.meta.dirname, "..");

let standin: ModelStandin;
let client: OpenAI;

beforeAll(async () => {
  standin = await startModelStandin();
  client = new OpenAI({ baseURL: standin.url, apiKey: "test", maxRetries: 0 });
});
afterAll(() => standin.close());
beforeEach(() => standin.reset());

/** The request the AI tiers send for `task`. */
function completionBody<T>(task: Task<T>, message: string, model = "standin-small") {
  return {
    model,
    messages: [
      { role: "system" as const, content: task.system },
      { role: "user" as const, content: message },
    ],
    response_format: {
      type: "json_schema" as const,
      json_schema: { name: task.name, strict: true, schema: z.toJSONSchema(task.schema) },
    },
    temperature: 0,
  };
}

async function ask<T>(task: Task<T>, message: string, options: { model?: string; timeout?: number } = {}) {
  return client.chat.completions.create(
    completionBody(task, message, options.model),
    options.timeout ? { timeout: options.timeout } : undefined,
  );
}

/** The parsed answer of a completion, checked against the task's schema. */
async function answer<T>(task: Task<T>, message: string): Promise<T> {
  const completion = await ask(task, message);
  return task.schema.parse(JSON.parse(completion.choices[0]!.message.content!));
}

function post(path: string, body: unknown, init: RequestInit = {}) {
  return fetch(`${standin.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

/** The status, error body (if any) and thrown error class of a call through the SDK. */
async function failure(call: Promise<unknown>) {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "the call should have failed").toBeInstanceOf(OpenAI.APIError);
  return error as InstanceType<typeof OpenAI.APIError>;
}

/** Waits, a bounded number of times, for a condition the server reaches on its own (it learns of a client's leaving asynchronously). */
async function eventually(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(condition()).toBe(true);
}

const PLANTING = [
  "Bare-root fruit trees are planted while they are dormant, from late autumn until early spring, when the soil is neither frozen nor waterlogged.",
  "Dig each planting hole wider than the roots of the tree and no deeper, so that the graft union of the tree stays well above the soil.",
  "Water each newly planted tree thoroughly and mulch the soil around the roots to keep weeds down during its first summer.",
];
const REPLICATION = [
  "Database replication copies every committed transaction from the primary server to one or more standby servers over the network.",
  "When the primary server fails, a standby server is promoted and clients reconnect to it, losing at most the last uncommitted transactions.",
];

describe("what it says it is", () => {
  it("describes itself as a stand-in, not a language model, and lists its models", async () => {
    const description = (await (await fetch(standin.url.replace(/\/v1$/, "/"))).json()) as Record<string, unknown>;
    expect(description.language_model).toBe(false);
    expect(description.description).toContain("NOT a language model");
    expect(description.markers).toEqual(["STANDIN:BROKEN_JSON", "STANDIN:SCHEMA_BREAK", "STANDIN:FAIL_500"]);

    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(["standin-small", "standin-large", "standin-embed"]);
  });

  it("answers a standard chat completion with the stand-in's fingerprint", async () => {
    const completion = await ask(SECTION_STARTS_TASK, sectionStartsMessage(["# Title", "Some text."], 0), {
      model: "standin-large",
    });
    expect(completion).toMatchObject({
      object: "chat.completion",
      model: "standin-large",
      system_fingerprint: "chunkwise-standin",
    });
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]).toMatchObject({ index: 0, finish_reason: "stop", message: { role: "assistant" } });
    const usage = completion.usage!;
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
  });
});

describe("section_starts", () => {
  it("finds headings and a change of topic, and keeps a heading with the unit after it", async () => {
    const units = [
      "# Planting Fruit Trees",
      "## When to Plant",
      ...PLANTING,
      ...REPLICATION,
      "2.1 Scope",
      "This section covers the licence terms that apply to every contributor.",
    ];
    // Numbered from 10 as a later window of a document is: [10] heading, [11] sub-heading right under it (same section),
    // [12-14] planting, [15-16] replication (new topic), [17] numbered heading, [18] its text.
    const message = sectionStartsMessage(units, 10);
    const result = await answer(SECTION_STARTS_TASK, message);
    expect(result.starts).toEqual([10, 15, 17]);
    expect(SectionStarts.safeParse(result).success).toBe(true);
    // Deterministic: the same message gets the same answer.
    expect(await answer(SECTION_STARTS_TASK, message)).toEqual(result);
  });

  it("starts sections at messages and speaker turns, not at header lines that continue a message", async () => {
    const units = [
      "From: Jane Smith <jane@example.com>",
      "Subject: Harvest volunteers",
      "Dear volunteers, the harvest day is on Saturday and we need ten more pickers.",
      "ALICE: Did anyone bring the ladders for the tall pear trees?",
      "BOB: Yes, two of them are in the shed next to the gate.",
      "Note: the shed key is under the stone by the door.",
    ];
    const result = await answer(SECTION_STARTS_TASK, sectionStartsMessage(units, 0));
    expect(result.starts).toEqual([0, 3, 4]);
  });

  it("does not split one topic's paragraphs, nor a numbered list", async () => {
    const units = [...PLANTING, "1 Apples", "2 Pears", "3 Plums"];
    const result = await answer(SECTION_STARTS_TASK, sectionStartsMessage(units, 5));
    expect(result.starts).toEqual([]);
  });
});

describe("chunk_enrichment", () => {
  it("summarises every chunk shown and finds its entities", async () => {
    const chunks = [
      {
        index: 3,
        text: "On March 3, 2024 Acme Widgets Inc signed a supply deal with the University of Oxford. The first deliveries reach London in May. Prices were not disclosed.",
      },
      {
        index: 4,
        text: "## Upgrades\n\nDr. Ada Byrne moved the ledger to Postgres 16 on 2024-05-01, said the NASA team.",
      },
    ];
    const result = await answer(CHUNK_ENRICHMENT_TASK, chunkEnrichmentMessage(chunks));
    expect(ChunkEnrichment.safeParse(result).success).toBe(true);
    expect(result.chunks.map((c) => c.index)).toEqual([3, 4]);

    const [first, second] = result.chunks;
    expect(first!.summary).toBe(
      "On March 3, 2024 Acme Widgets Inc signed a supply deal with the University of Oxford. The first deliveries reach London in May.",
    );
    expect(first!.entities).toEqual(
      expect.arrayContaining([
        { text: "March 3, 2024", type: "dates" },
        { text: "Acme Widgets Inc", type: "organisations" },
        { text: "University of Oxford", type: "organisations" },
        { text: "London", type: "places" },
      ]),
    );
    // The heading is passed over: the summary says what the chunk says.
    expect(second!.summary).toBe("Dr. Ada Byrne moved the ledger to Postgres 16 on 2024-05-01, said the NASA team.");
    expect(second!.entities).toEqual(
      expect.arrayContaining([
        { text: "Dr. Ada Byrne", type: "people" },
        { text: "Postgres 16", type: "products" },
        { text: "2024-05-01", type: "dates" },
        { text: "NASA", type: "organisations" },
      ]),
    );
    for (const chunk of result.chunks) {
      expect(chunk.summary.length).toBeLessThanOrEqual(240);
      expect(new Set(chunk.entities.map((e) => e.text)).size).toBe(chunk.entities.length);
    }
  });

  it("keeps a long first sentence within 240 characters", async () => {
    const long = `${"The committee reviewed every clause of the agreement ".repeat(8).trim()}. Then it adjourned.`;
    const result = await answer(CHUNK_ENRICHMENT_TASK, chunkEnrichmentMessage([{ index: 0, text: long }]));
    const summary = result.chunks[0]!.summary;
    expect(summary.length).toBeLessThanOrEqual(240);
    expect(summary.endsWith("…")).toBe(true);
    expect(long.startsWith(summary.slice(0, -1))).toBe(true);
  });
});

describe("document_summary", () => {
  it("joins the first three section summaries", async () => {
    const summaries = [
      "The orchard needs a sunny, well-drained site",
      "Trees are planted while dormant.",
      "Pruning keeps trees open.",
      "Harvest days need volunteers.",
    ];
    const result = await answer(DOCUMENT_SUMMARY_TASK, documentSummaryMessage(summaries));
    expect(DocumentSummary.safeParse(result).success).toBe(true);
    expect(result.summary).toBe(
      "The orchard needs a sunny, well-drained site. Trees are planted while dormant. Pruning keeps trees open.",
    );

    const many = Array.from(
      { length: 3 },
      (_, k) => `Section ${k + 1} ${"explains the many details of the orchard's year ".repeat(6).trim()}.`,
    );
    expect((await answer(DOCUMENT_SUMMARY_TASK, documentSummaryMessage(many))).summary.length).toBeLessThanOrEqual(600);
  });
});

describe("embeddings", () => {
  const texts = ["Chunking splits documents for retrieval.", "Fruit trees are planted while dormant."];

  it("answers the project's local vectors, in OpenAI's shape, as floats and as base64", async () => {
    const expected = await new HashedNgramEmbedder().embed(texts);
    const response = await post("/embeddings", { model: "standin-embed", input: texts, encoding_format: "float" });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      object: string;
      model: string;
      data: Array<{ object: string; index: number; embedding: number[] }>;
      usage: { prompt_tokens: number };
    };
    expect(body).toMatchObject({ object: "list", model: "standin-embed" });
    expect(body.data.map((d) => [d.object, d.index])).toEqual([
      ["embedding", 0],
      ["embedding", 1],
    ]);
    expect(body.data.map((d) => Float32Array.from(d.embedding))).toEqual(expected);
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);

    // The SDK asks for base64 unless told otherwise, and decodes it.
    const viaSdk = await client.embeddings.create({ model: "standin-embed", input: texts });
    expect(viaSdk.data.map((d) => Float32Array.from(d.embedding))).toEqual(expected);
    const single = await client.embeddings.create({ model: "standin-embed", input: texts[0]! });
    expect(single.data).toHaveLength(1);
    expect(single.data[0]!.embedding).toHaveLength(1024);
    expect(Float32Array.from(single.data[0]!.embedding)).toEqual(expected[0]);
  });
});

describe("faults from the settings", () => {
  const message = sectionStartsMessage(["# Title", "Some text about the title."], 0);

  it("down: every /v1 request answers 503 until it is up again", async () => {
    standin.control({ down: true });
    expect((await failure(ask(SECTION_STARTS_TASK, message))).status).toBe(503);
    expect((await failure(client.models.list())).status).toBe(503);
    expect((await post("/embeddings", { model: "standin-embed", input: "x" })).status).toBe(503);
    standin.control({ down: false });
    expect((await ask(SECTION_STARTS_TASK, message)).choices).toHaveLength(1);
    expect(standin.counters().faults.down).toBe(3);
  });

  it("failNext: that many 500s, then answers", async () => {
    standin.control({ failNext: 2 });
    const error = await failure(ask(SECTION_STARTS_TASK, message));
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.status).toBe(500);
    expect((await failure(ask(SECTION_STARTS_TASK, message))).status).toBe(500);
    expect(
      SectionStarts.parse(JSON.parse((await ask(SECTION_STARTS_TASK, message)).choices[0]!.message.content!)).starts,
    ).toEqual([0]);
    expect(standin.counters().faults.server_error).toBe(2);
    expect(standin.settings().failNext).toBe(0);
  });

  it("rateLimitNext: 429 with Retry-After, 0 by default or the seconds set", async () => {
    standin.control({ rateLimitNext: 2 });
    const error = await failure(ask(SECTION_STARTS_TASK, message));
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.headers?.get("retry-after")).toBe("0");

    standin.control({ retryAfterSeconds: 7 });
    const response = await post("/chat/completions", completionBody(SECTION_STARTS_TASK, message));
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("7");
    expect(await response.json()).toMatchObject({ error: { type: "rate_limit_error", code: "rate_limit_exceeded" } });
    expect((await ask(SECTION_STARTS_TASK, message)).choices).toHaveLength(1);
    expect(standin.counters().faults.rate_limit).toBe(2);
  });

  it("brokenJsonNext: a 200 whose content is not JSON, then a good answer", async () => {
    standin.control({ brokenJsonNext: 1 });
    const broken = await ask(SECTION_STARTS_TASK, message);
    expect(broken.system_fingerprint).toBe("chunkwise-standin");
    expect(() => JSON.parse(broken.choices[0]!.message.content!)).toThrow(SyntaxError);
    expect(
      SectionStarts.safeParse(JSON.parse((await ask(SECTION_STARTS_TASK, message)).choices[0]!.message.content!))
        .success,
    ).toBe(true);
    expect(standin.counters().faults.broken_json).toBe(1);
  });

  it("schemaBreakNext: valid JSON that each task's schema refuses", async () => {
    standin.control({ schemaBreakNext: 3 });
    const tasks = [
      [SECTION_STARTS_TASK, message],
      [CHUNK_ENRICHMENT_TASK, chunkEnrichmentMessage([{ index: 0, text: "Text." }])],
      [DOCUMENT_SUMMARY_TASK, documentSummaryMessage(["A summary."])],
    ] as const;
    for (const [task, text] of tasks) {
      const content = (await ask(task as Task<unknown>, text)).choices[0]!.message.content!;
      expect((task.schema as z.ZodType).safeParse(JSON.parse(content)).success, `${task.name}: ${content}`).toBe(false);
    }
    expect(JSON.parse((await ask(SECTION_STARTS_TASK, message)).choices[0]!.message.content!)).toEqual({ starts: [0] });
    expect(standin.counters().faults.schema_break).toBe(3);
  });

  it("hangNext: no answer until the client's timeout gives up, then answers again", async () => {
    standin.control({ hangNext: 1 });
    const error = await ask(SECTION_STARTS_TASK, message, { timeout: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    await eventually(() => standin.counters().aborted === 1);
    expect((await ask(SECTION_STARTS_TASK, message, { timeout: 5000 })).choices).toHaveLength(1);
    expect(standin.counters().faults.hang).toBe(1);
  });

  it("delayMs: a completion takes at least that long, and a client that leaves ends the wait", async () => {
    standin.control({ delayMs: 250 });
    const started = performance.now();
    await ask(SECTION_STARTS_TASK, message);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);

    standin.control({ delayMs: 60_000 });
    const error = await ask(SECTION_STARTS_TASK, message, { timeout: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    await eventually(() => standin.counters().aborted === 1);
  });
});

describe("faults from markers in the content", () => {
  const window = (marker: string) => sectionStartsMessage(["# Title", `Text that carries ${marker} in it.`], 0);

  it("answers the marked fault on every request, so retries fail too", async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const broken = (await ask(SECTION_STARTS_TASK, window("STANDIN:BROKEN_JSON"))).choices[0]!.message.content!;
      expect(() => JSON.parse(broken)).toThrow(SyntaxError);
      const breaking = (await ask(SECTION_STARTS_TASK, window("STANDIN:SCHEMA_BREAK"))).choices[0]!.message.content!;
      expect(SectionStarts.safeParse(JSON.parse(breaking)).success).toBe(false);
      expect((await failure(ask(SECTION_STARTS_TASK, window("STANDIN:FAIL_500")))).status).toBe(500);
    }
    const unmarked = (await ask(SECTION_STARTS_TASK, window("no marker"))).choices[0]!.message.content!;
    expect(SectionStarts.parse(JSON.parse(unmarked)).starts).toEqual([0]);
    expect(standin.counters().faults).toMatchObject({ broken_json: 2, schema_break: 2, server_error: 2 });
  });
});

describe("counters and the control endpoint", () => {
  it("counts requests by schema, model and fault, and resets", async () => {
    await ask(SECTION_STARTS_TASK, sectionStartsMessage(["One."], 0), { model: "standin-small" });
    await ask(CHUNK_ENRICHMENT_TASK, chunkEnrichmentMessage([{ index: 0, text: "Two." }]), { model: "standin-large" });
    await ask(CHUNK_ENRICHMENT_TASK, chunkEnrichmentMessage([{ index: 1, text: "Three." }]), {
      model: "standin-large",
    });
    await client.embeddings.create({ model: "standin-embed", input: "four" });
    await client.models.list();
    const counters = standin.counters();
    expect(counters).toMatchObject({
      requests: 5,
      completions: 3,
      embeddings: 1,
      bySchema: { section_starts: 1, chunk_enrichment: 2 },
      byModel: { "standin-small": 1, "standin-large": 2, "standin-embed": 1 },
    });
    standin.reset();
    expect(standin.counters()).toMatchObject({ requests: 0, completions: 0, bySchema: {}, byModel: {} });
  });

  it("POST /control merges settings, GET /control shows them with the counters, POST /control/reset clears them", async () => {
    const base = standin.url.replace(/\/v1$/, "");
    const set = await fetch(`${base}/control`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ failNext: 1, retryAfterSeconds: 3 }),
    });
    expect(set.status).toBe(200);
    expect(((await set.json()) as { settings: Record<string, unknown> }).settings).toMatchObject({
      failNext: 1,
      retryAfterSeconds: 3,
      down: false,
    });
    expect((await failure(ask(SECTION_STARTS_TASK, sectionStartsMessage(["One."], 0)))).status).toBe(500);

    const state = (await (await fetch(`${base}/control`)).json()) as {
      settings: Record<string, unknown>;
      counters: { faults: Record<string, number> };
    };
    expect(state.settings).toMatchObject({ failNext: 0, retryAfterSeconds: 3 });
    expect(state.counters.faults.server_error).toBe(1);

    const bad = await fetch(`${base}/control`, { method: "POST", body: JSON.stringify({ failNext: -1 }) });
    expect(bad.status).toBe(400);
    const unknown = await fetch(`${base}/control`, { method: "POST", body: JSON.stringify({ explode: true }) });
    expect(unknown.status).toBe(400);

    await fetch(`${base}/control`, { method: "POST", body: JSON.stringify({ hangNext: 4, down: true }) });
    const reset = (await (await fetch(`${base}/control/reset`, { method: "POST" })).json()) as {
      settings: Record<string, unknown>;
      counters: { requests: number };
    };
    expect(reset.settings).toMatchObject({ hangNext: 0, down: false, retryAfterSeconds: 0 });
    expect(reset.counters.requests).toBe(0);
  });
});

describe("bad requests", () => {
  const message = sectionStartsMessage(["One."], 0);

  it("answers 400 in OpenAI's error shape for a missing or unknown schema, malformed JSON and a wrong shape", async () => {
    const { response_format: _, ...withoutFormat } = completionBody(SECTION_STARTS_TASK, message);
    const cases: Array<[unknown, string]> = [
      [withoutFormat, "response_format_required"],
      [{ ...withoutFormat, response_format: { type: "json_object" } }, "response_format_required"],
      [
        { ...withoutFormat, response_format: { type: "json_schema", json_schema: { name: "poetry", schema: {} } } },
        "unknown_schema",
      ],
      ['{"model": "standin-small", "messages": [', "invalid_json"],
      [{ model: "standin-small", messages: "hello" }, "invalid_request"],
      [{ ...completionBody(SECTION_STARTS_TASK, message), stream: true }, "stream_unsupported"],
    ];
    for (const [body, code] of cases) {
      const response = await post("/chat/completions", body);
      expect(response.status, code).toBe(400);
      expect(await response.json()).toMatchObject({
        error: { type: "invalid_request_error", code, message: expect.any(String) },
      });
    }
    expect((await post("/embeddings", { model: "standin-embed", input: [1, 2] })).status).toBe(400);
    expect(standin.counters()).toMatchObject({ badRequests: 7, completions: 0 });

    const viaSdk = await failure(
      client.chat.completions.create({ model: "standin-small", messages: [{ role: "user", content: message }] }),
    );
    expect(viaSdk).toBeInstanceOf(OpenAI.BadRequestError);
    expect(viaSdk.code).toBe("response_format_required");
  });

  it("answers 404 for an unknown path and 413 for a body over the limit", async () => {
    expect((await post("/completions", { model: "x", prompt: "hi" })).status).toBe(404);
    const huge = JSON.stringify({ model: "standin-embed", input: "x".repeat(MAX_BODY_BYTES) });
    const response = await post("/embeddings", huge);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: "request_too_large" } });
    expect(standin.counters().embeddings).toBe(0);
  });
});

describe("closing", () => {
  it("close() resolves while a request hangs, ending that request", async () => {
    const own = await startModelStandin();
    own.control({ hangNext: 1 });
    const hanging = fetch(`${own.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(completionBody(SECTION_STARTS_TASK, sectionStartsMessage(["One."], 0))),
    }).then(
      () => "answered",
      () => "cut off",
    );
    await eventually(() => own.counters().faults.hang === 1);
    await own.close();
    expect(await hanging).toBe("cut off");
  });
});

describe("npm run model:standin", () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
  });

  it("prints the banner, the URL and the environment, answers, and stops on SIGTERM", async () => {
    child = spawn(
      process.execPath,
      ["--import", "tsx", "scripts/model-standin.ts", "--port", "0", "--delay-ms", "10", "--retry-after", "2"],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (data: Buffer) => (stdout += data.toString()));
    child.stderr!.on("data", (data: Buffer) => (stderr += data.toString()));
    const exited = new Promise<number | null>((resolve) => child!.once("exit", (code) => resolve(code)));

    for (let i = 0; i < 300 && !/AI_PRO_MODEL=/.test(stdout) && child.exitCode === null; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stdout, stderr).toContain(STANDIN_BANNER);
    const url = /AI_BASE_URL=(http:\/\/127\.0\.0\.1:\d+\/v1) AI_MODEL=standin-small AI_PRO_MODEL=standin-large/.exec(
      stdout,
    )?.[1];
    expect(url, stdout).toBeDefined();

    const cli = new OpenAI({ baseURL: url, apiKey: "test", maxRetries: 0 });
    const completion = await cli.chat.completions.create(
      completionBody(SECTION_STARTS_TASK, sectionStartsMessage(["# Heading", "Body text."], 0)),
    );
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ starts: [0] });
    const control = (await (await fetch(url!.replace(/\/v1$/, "/control"))).json()) as {
      settings: { delayMs: number; retryAfterSeconds: number };
    };
    expect(control.settings).toMatchObject({ delayMs: 10, retryAfterSeconds: 2 });

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stdout).toContain("stopped");
  });
});
