/**
 * The built-in sentence-embedding model, loaded with the network blocked in
 * this process (sockets, DNS and fetch refuse, and record the attempt): it
 * must come from node_modules. Then what it is for: paragraphs of one
 * WikiText article (tests/fixtures/) score closer than paragraphs of
 * different articles, and the semantic tier run with the default config (the
 * same model) cuts a document where its topic changes.
 */
import { chunkExtracted } from "@/lib/pipeline/chunk-result";
import dns from "node:dns";
import fs from "node:fs";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "@/lib/ground/config";
import { createEmbedder } from "@/lib/embeddings";
import { SENTENCE_ENCODER_ID, SentenceEncoderEmbedder } from "@/lib/embeddings/sentence-encoder";

const attempts: string[] = [];
const realFetch = globalThis.fetch;

beforeAll(() => {
  vi.spyOn(net.Socket.prototype, "connect").mockImplementation(function (this: net.Socket, ...args: unknown[]) {
    attempts.push(`connect ${JSON.stringify(args[0])}`);
    throw new Error("network blocked by the test");
  });
  vi.spyOn(dns, "lookup").mockImplementation((host: string) => {
    attempts.push(`lookup ${host}`);
    throw new Error("network blocked by the test");
  });
  globalThis.fetch = async (input: unknown) => {
    attempts.push(`fetch ${String(input)}`);
    throw new TypeError("network blocked by the test");
  };
});

afterAll(() => {
  vi.restoreAllMocks();
  globalThis.fetch = realFetch;
});

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

/** Paragraphs of each WikiText article, titles as keys. */
function articles(): string[][] {
  const wiki = fs.readFileSync(new URL("fixtures/wikitext-excerpt.md", import.meta.url), "utf8");
  const out: string[][] = [];
  let current: string[] | undefined;
  for (const line of wiki.split("\n")) {
    if (/^ = ([^=].*) = $/.test(line)) out.push((current = []));
    else if (current && line.trim().length > 200 && !/^ = =/.test(line)) current.push(line.trim());
  }
  return out.filter((paragraphs) => paragraphs.length >= 4);
}

describe("the built-in sentence encoder, offline", () => {
  it("blocks the network in this process", async () => {
    await expect(fetch("http://127.0.0.1:9/")).rejects.toThrow("network blocked");
    expect(() => net.connect(9, "127.0.0.1")).toThrow("network blocked");
    attempts.length = 0;
  });

  it("loads from the install and gives unit vectors of 512, a zero vector for empty text", async () => {
    const embedder = new SentenceEncoderEmbedder();
    const vectors = await embedder.embed(["Chunking splits documents for retrieval.", "  ", "A cat sat on the mat."]);
    expect(vectors.map((v) => v.length)).toEqual([512, 512, 512]);
    expect(dot(vectors[0]!, vectors[0]!)).toBeCloseTo(1, 3);
    expect(dot(vectors[1]!, vectors[1]!)).toBe(0);
    expect(attempts).toEqual([]);
  });

  it("scores paragraphs of one article closer than paragraphs of different articles", async () => {
    const embedder = new SentenceEncoderEmbedder();
    const byArticle = articles().map((paragraphs) => paragraphs.slice(0, 3));
    expect(byArticle.length).toBeGreaterThanOrEqual(5);
    const vectors = await Promise.all(byArticle.map((paragraphs) => embedder.embed(paragraphs)));
    let wins = 0;
    let comparisons = 0;
    vectors.forEach((own, a) => {
      vectors.forEach((other, b) => {
        if (a === b) return;
        comparisons++;
        if (dot(own[0]!, own[1]!) > dot(own[0]!, other[0]!)) wins++;
      });
    });
    expect(wins / comparisons).toBeGreaterThan(0.9);
    // Meaning beyond shared words: paraphrases with no content word in common.
    const [car, automobile, recipe] = await embedder.embed([
      "The car would not start this morning.",
      "My automobile refused to turn on today.",
      "Whisk the eggs with sugar until pale.",
    ]);
    expect(dot(car!, automobile!)).toBeGreaterThan(dot(car!, recipe!) + 0.2);
    expect(attempts).toEqual([]);
  });

  it("is what the semantic tier runs by default, and cuts where the topic changes", async () => {
    const config = loadConfig({});
    const embedder = createEmbedder(config.embeddings);
    expect(embedder.id).toBe(SENTENCE_ENCODER_ID);
    const [first, second] = articles();
    const text = [...first!.slice(0, 4), ...second!.slice(0, 4)].join("\n\n");
    const change = first!.slice(0, 4).join("\n\n").length + 2;
    const { chunks } = await chunkExtracted(
      { kind: "text", mediaType: "text/plain", text, pageCount: 1 },
      "semantic",
      { maxTokens: 2048, overlapTokens: 0 },
      { embedder },
    );
    expect(chunks.map((c) => c.metadata.start)).toContain(change);
    expect(attempts).toEqual([]);
  });
});
