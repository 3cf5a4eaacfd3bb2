/**
 * The two embedders. The local one on real text (the WikiText excerpt in
 * tests/fixtures/). The OpenAI-compatible client against an
 * OpenAI-compatible server started here on 127.0.0.1 (node:http), whose
 * behaviour each test scripts: batching, ordering, retries, failures,
 * timeouts and the headers it receives.
 */
import { chunkExtracted } from "@/lib/pipeline/chunk-result";
import fs from "node:fs";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/ground/config";
import { createEmbedder, embedderId } from "@/lib/embeddings";
import { HashedNgramEmbedder } from "@/lib/embeddings/hashed-ngrams";
import { SENTENCE_ENCODER_ID, SentenceEncoderEmbedder } from "@/lib/embeddings/sentence-encoder";
import { OpenAIEmbedder, type OpenAIEmbedderOptions } from "@/lib/embeddings/openai";
import { parseRetryAfter, retryDelay } from "@/lib/embeddings/retry";
import { ApiError } from "@/lib/ground/errors";
import type { Extracted } from "@/lib/extract/types";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

/** Paragraphs of each WikiText article, titles as keys. */
function articles(): Map<string, string[]> {
  const wiki = fs.readFileSync(new URL("fixtures/wikitext-excerpt.md", import.meta.url), "utf8");
  const out = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of wiki.split("\n")) {
    const title = /^ = ([^=].*) = $/.exec(line);
    if (title) out.set(title[1]!, (current = []));
    else if (current && line.trim().length > 200 && !/^ = =/.test(line)) current.push(line.trim());
  }
  return new Map([...out].filter(([, paragraphs]) => paragraphs.length >= 4));
}

describe("hashed n-gram vectors (the semantic tier's lexical half)", () => {
  const embedder = new HashedNgramEmbedder();

  it("gives the same unit vector for the same text, whatever else is in the batch", async () => {
    const texts = [
      "The quick brown fox jumps over the lazy dog.",
      "Chunking splits documents for retrieval.",
      "日本語の文章も扱えます。",
      "",
    ];
    const once = await embedder.embed(texts);
    const again = await new HashedNgramEmbedder().embed([...texts].reverse());
    expect(again.reverse()).toEqual(once);
    expect((await embedder.embed([texts[1]!]))[0]).toEqual(once[1]);
    for (const vector of once.slice(0, 3)) {
      expect(vector).toHaveLength(1024);
      expect(dot(vector, vector)).toBeCloseTo(1, 5);
    }
    // Nothing to say (no words, or function words only): the zero vector, similar to nothing.
    expect(dot(once[3]!, once[3]!)).toBe(0);
    expect(dot((await embedder.embed(["and the of, to!"]))[0]!, once[0]!)).toBe(0);
  });

  it("scores paragraphs of one article closer than paragraphs of different articles", async () => {
    const byArticle = [...articles().values()].map((paragraphs) => paragraphs.slice(0, 4));
    expect(byArticle.length).toBeGreaterThanOrEqual(5);
    const vectors = await Promise.all(byArticle.map((paragraphs) => embedder.embed(paragraphs)));
    let wins = 0;
    let comparisons = 0;
    vectors.forEach((own, a) => {
      const same = dot(own[0]!, own[1]!);
      vectors.forEach((other, b) => {
        if (a === b) return;
        comparisons++;
        if (same > dot(own[0]!, other[0]!)) wins++;
      });
    });
    expect(wins / comparisons).toBeGreaterThan(0.9);
  });

  it("puts inflections of a word near each other, and unrelated words nowhere near", async () => {
    const [chunk, chunking, zebra] = await embedder.embed(["chunks", "chunking", "zebra"]);
    expect(dot(chunk!, chunking!)).toBeGreaterThan(0.2);
    expect(Math.abs(dot(chunk!, zebra!))).toBeLessThan(0.1);
  });
});

// ---------------------------------------------------------------------------
// An OpenAI-compatible server on 127.0.0.1
// ---------------------------------------------------------------------------

interface Received {
  authorization?: string;
  model: string;
  input: string[];
}

/** What the server does with the n-th request (0-based), given what it received. */
type Behaviour = (n: number, request: Received, response: ServerResponse) => void | Promise<void>;

/** A fake but deterministic embedding: [length, first char code, 1]. */
const fakeVector = (text: string) => [text.length, text.charCodeAt(0) || 0, 1];

function answer(
  response: ServerResponse,
  input: string[],
  order: (items: object[]) => object[] = (items) => items,
): void {
  const data = input.map((text, index) => ({ object: "embedding", index, embedding: fakeVector(text) }));
  response.writeHead(200, { "content-type": "application/json" });
  response.end(
    JSON.stringify({
      object: "list",
      model: "test-model",
      data: order(data),
      usage: { prompt_tokens: 1, total_tokens: 1 },
    }),
  );
}

let server: Server;
let baseUrl: string;
let behaviour: Behaviour;
let received: Received[];
/** Requests received and not yet answered, for the test that counts them (it answers them itself). */
let inFlight = 0;
let maxInFlight = 0;
const hanging = new Set<ServerResponse>();

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (c: Buffer) => chunks.push(c));
    request.on("end", async () => {
      if (request.method !== "POST" || request.url !== "/v1/embeddings") {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { model: string; input: string[] };
      const entry: Received = { authorization: request.headers.authorization, model: body.model, input: body.input };
      received.push(entry);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await behaviour(received.length - 1, entry, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  for (const response of hanging) response.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received = [];
  inFlight = 0;
  maxInFlight = 0;
  behaviour = (_, request, response) => answer(response, request.input);
});

const KEY = "sk-test-0123456789abcdef";
const client = (options: Partial<OpenAIEmbedderOptions> = {}) =>
  new OpenAIEmbedder({
    baseUrl,
    apiKey: KEY,
    model: "test-model",
    batchSize: 4,
    concurrency: 2,
    timeoutMs: 2000,
    retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 50 },
    ...options,
  });

const texts = Array.from({ length: 10 }, (_, i) => `text number ${i}${"!".repeat(i)}`);

/** The ApiError a failed embed call rejects with. */
async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("OpenAI-compatible embedder", () => {
  it("sends batches of batchSize with the model and the key, and returns one vector per text in order", async () => {
    const vectors = await client().embed(texts);
    expect(received.map((r) => r.input)).toEqual([texts.slice(0, 4), texts.slice(4, 8), texts.slice(8)]);
    expect(received.every((r) => r.model === "test-model" && r.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(vectors.map((v) => Array.from(v))).toEqual(texts.map(fakeVector));
    expect(await client().embed([])).toEqual([]);
    expect(received).toHaveLength(3);
  });

  it("sends no Authorization header without a key", async () => {
    await client({ apiKey: undefined }).embed(["one"]);
    expect(received[0]!.authorization).toBeUndefined();
  });

  it("orders the answer by index, not by position", async () => {
    behaviour = (_, request, response) => answer(response, request.input, (items) => [...items].reverse());
    const vectors = await client().embed(texts);
    expect(vectors.map((v) => Array.from(v))).toEqual(texts.map(fakeVector));
  });

  it("keeps at most `concurrency` requests in flight", async () => {
    behaviour = (_, request, response) =>
      void setTimeout(() => {
        inFlight--; // before answering: the client may send the next request as soon as it has the answer
        answer(response, request.input);
      }, 30);
    await client({ batchSize: 1, concurrency: 2 }).embed(texts.slice(0, 6));
    expect(received).toHaveLength(6);
    expect(maxInFlight).toBe(2);
  });

  it("retries after a 429 and succeeds", async () => {
    behaviour = (n, request, response) => {
      if (n === 0) response.writeHead(429, { "retry-after": "0" }).end('{"error":{"message":"slow down"}}');
      else answer(response, request.input);
    };
    const vectors = await client().embed(texts.slice(0, 3));
    expect(received).toHaveLength(2);
    expect(received[1]!.input).toEqual(texts.slice(0, 3));
    expect(vectors.map((v) => Array.from(v))).toEqual(texts.slice(0, 3).map(fakeVector));
  });

  it("gives up after maxAttempts 500s with 503 embeddings_unavailable, without leaking the key", async () => {
    behaviour = (_, __, response) => void response.writeHead(500).end(`{"error":"internal, key ${KEY}"}`);
    const error = await failure(client().embed(["a", "b"]));
    expect(error.status).toBe(503);
    expect(error.code).toBe("embeddings_unavailable");
    expect(error.message).toContain("HTTP 500");
    expect(error.message).not.toContain(KEY);
    expect(JSON.stringify(error)).not.toContain(KEY);
    expect(received).toHaveLength(3);
  });

  it("does not retry a refused request (401), sends no further batches, and stops at a Retry-After longer than it will wait", async () => {
    behaviour = (_, __, response) => void response.writeHead(401).end();
    // Batches not yet sent when one has failed for good are not sent at all.
    expect((await failure(client({ batchSize: 1, concurrency: 1 }).embed(["a", "b", "c", "d"]))).code).toBe(
      "embeddings_unavailable",
    );
    expect(received).toHaveLength(1);
    received = [];
    behaviour = (_, __, response) => void response.writeHead(503, { "retry-after": "3600" }).end();
    expect((await failure(client().embed(["a"]))).status).toBe(503);
    expect(received).toHaveLength(1);
  });

  it("answers 503 to malformed answers: not JSON, wrong shape, missing or duplicate vectors, mixed dimensions", async () => {
    const bad: Array<(input: string[]) => string> = [
      () => "not json",
      () => JSON.stringify({ object: "list" }),
      (input) => JSON.stringify({ data: input.slice(1).map((_, index) => ({ index, embedding: [1, 2] })) }),
      (input) => JSON.stringify({ data: input.map(() => ({ index: 0, embedding: [1, 2] })) }),
      (input) =>
        JSON.stringify({ data: input.map((_, index) => ({ index, embedding: index === 0 ? [1, 2] : [1, 2, 3] })) }),
      (input) => JSON.stringify({ data: input.map((_, index) => ({ index, embedding: ["1", "2"] })) }),
    ];
    for (const body of bad) {
      behaviour = (_, request, response) =>
        void response.writeHead(200, { "content-type": "application/json" }).end(body(request.input));
      const error = await failure(client().embed(["a", "b"]));
      expect(error.status).toBe(503);
      expect(error.code).toBe("embeddings_unavailable");
    }
  });

  it("times out a request that gets no answer, retries it, then answers 503", async () => {
    behaviour = (_, __, response) => void hanging.add(response);
    const error = await failure(
      client({ timeoutMs: 150, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 } }).embed(["a"]),
    );
    expect(error.status).toBe(503);
    expect(error.message).toContain("no answer within 150 ms");
    expect(received).toHaveLength(2);
  });

  it("answers 503 when nothing listens at the base URL", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure(
      client({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
      }).embed(["a"]),
    );
    expect(error.message).toContain("could not be reached");
  });

  it("runs the semantic tier, and a provider failure reaches the caller as 503", async () => {
    const extracted: Extracted = {
      text: "Bees make honey in hives. Bees pollinate flowers in spring.\n\nStocks fell on Tuesday. Bond yields rose again.",
      mediaType: "text/plain",
      pageCount: 1,
    } as Extracted;
    const { chunks } = await chunkExtracted(
      extracted,
      "semantic",
      { maxTokens: 64, overlapTokens: 0 },
      { embedder: client() },
    );
    expect(chunks.map((c) => c.text).join(" ")).toContain("Bees make honey");
    expect(received.length).toBeGreaterThan(0);
    behaviour = (_, __, response) => void response.writeHead(502).end();
    const error = await failure(
      chunkExtracted(extracted, "semantic", { maxTokens: 64, overlapTokens: 0 }, { embedder: client() }),
    );
    expect(error.code).toBe("embeddings_unavailable");
  });
});

describe("retry timing", () => {
  it("reads Retry-After as seconds or an HTTP date", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter("2", now)).toBe(2000);
    expect(parseRetryAfter("0.5", now)).toBe(500);
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it("backs off exponentially within bounds, honours Retry-After up to the maximum, and stops after maxAttempts", () => {
    const policy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 300 };
    const most = () => 1;
    expect([1, 2, 3].map((attempt) => retryDelay(policy, attempt, undefined, most))).toEqual([100, 200, 300]);
    expect(retryDelay(policy, 2, undefined, () => 0)).toBe(0);
    expect(retryDelay(policy, 4, undefined, most)).toBeUndefined();
    expect(retryDelay(policy, 1, 250)).toBe(250);
    expect(retryDelay(policy, 1, 301)).toBeUndefined();
  });
});

describe("createEmbedder", () => {
  it("is the built-in model by default and the OpenAI-compatible one when a base URL is set, with matching ids", () => {
    const local = loadConfig({}).embeddings;
    expect(createEmbedder(local)).toBeInstanceOf(SentenceEncoderEmbedder);
    expect(createEmbedder(local).id).toBe(SENTENCE_ENCODER_ID);
    expect(embedderId(local)).toBe(SENTENCE_ENCODER_ID);
    const remote = loadConfig({
      EMBEDDINGS_BASE_URL: "http://127.0.0.1:9/v1/",
      EMBEDDINGS_MODEL: "nomic-embed-text",
      EMBEDDINGS_API_KEY: "k",
    }).embeddings;
    const embedder = createEmbedder(remote);
    expect(embedder).toBeInstanceOf(OpenAIEmbedder);
    expect(embedder.id).toBe("openai:nomic-embed-text");
    expect(embedderId(remote)).toBe(embedder.id);
  });
});
