/**
 * The semantic tier's splitter on real text (excerpts of the WikiText
 * articles and chat logs in tests/fixtures/, and the project's own) with
 * the hashed n-gram vectors standing in for the model (tests/sentence-encoder.test.ts
 * runs the model itself): it finds the seam between two unrelated
 * texts, and whatever it decides, its chunks are exact ranges of the input,
 * in order, within the token budget by gpt-tokenizer's own count.
 */
import { chunkExtracted } from "@/lib/pipeline/chunk-result";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { join } from "node:path";
import { checkChunks, referenceTokens as reference } from "./helpers/chunk-invariants";
import { describe, expect, it } from "vitest";
import { apiInfo } from "@/lib/service-info/api-info";
import { bestSegmentation } from "@/lib/chunking/semantic/best-segmentation";
import { mergeSmallSegments } from "@/lib/chunking/semantic/merge-small";
import { splitSemantic } from "@/lib/chunking/semantic";
import { sentenceSpans } from "@/lib/chunking/text/line-sentences";
import type { Span } from "@/lib/chunking/types";
import { loadConfig } from "@/lib/ground/config";
import { HashedNgramEmbedder } from "@/lib/embeddings/hashed-ngrams";
import type { Embedder } from "@/lib/embeddings/types";

const root = join(import.meta.dirname, "..");
const wiki = fs.readFileSync(join(root, "tests/fixtures/wikitext-excerpt.md"), "utf8");
const chat = fs.readFileSync(join(root, "tests/fixtures/chatlogs-excerpt.md"), "utf8");
const embedder = new HashedNgramEmbedder();

/** WikiText articles: " = Title = " opens one; section heading lines are left out. */
function articles(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of wiki.split("\n")) {
    const title = /^ = ([^=].*) = $/.exec(line);
    if (title) out.set(title[1]!, (current = []));
    else if (current && line.trim() && !/^ = =/.test(line)) current.push(line.trim());
  }
  return out;
}
const ARTICLES = articles();

/** The first `count` sentences of an article, its paragraphs kept apart by blank lines. */
function opening(title: string, count: number): string {
  const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });
  const paragraphs: string[] = [];
  let left = count;
  for (const paragraph of ARTICLES.get(title)!) {
    if (left === 0) break;
    const sentences = [...segmenter.segment(paragraph)].map((s) => s.segment).slice(0, left);
    left -= sentences.length;
    paragraphs.push(sentences.join("").trim());
  }
  return paragraphs.join("\n\n");
}

/** Every invariant of a result (tests/helpers/chunk-invariants.ts); the semantic tier never rewrites a chunk's text. */
const checkSpans = (text: string, spans: Span[], maxTokens: number, overlapTokens = 0): number =>
  checkChunks(text, spans, { maxTokens, overlapTokens, trimmed: true, graphemes: "whole" });

/** Index of the sentence of `text` containing `offset`. */
function sentenceAt(text: string, offset: number): number {
  return sentenceSpans(text).findIndex((s) => s.end > offset);
}

describe("sentence spans", () => {
  it("reads hard-wrapped prose as sentences across lines, and keeps Markdown lines apart", () => {
    const wrapped =
      "The committee met on Tuesday to discuss the budget for the coming\nyear, which had been delayed by several weeks. Members agreed that the\nreserve fund should not be touched until the audit was complete.\n\nA second meeting was planned.";
    expect(sentenceSpans(wrapped).map((s) => wrapped.slice(s.start, s.end))).toEqual([
      "The committee met on Tuesday to discuss the budget for the coming\nyear, which had been delayed by several weeks.",
      "Members agreed that the\nreserve fund should not be touched until the audit was complete.",
      "A second meeting was planned.",
    ]);
    const markdown =
      "# Install the package first\n- run the installer from the command line\n- then restart the service afterwards";
    expect(sentenceSpans(markdown).map((s) => markdown.slice(s.start, s.end))).toEqual([
      "# Install the package first",
      "- run the installer from the command line",
      "- then restart the service afterwards",
    ]);
  });

  it("covers a long unpunctuated run in pieces that end at spaces", () => {
    const words = Array.from({ length: 3000 }, (_, i) => `word${i % 97}`).join(" ");
    const spans = sentenceSpans(words);
    expect(spans.length).toBeGreaterThan(1);
    expect(spans.map((s) => words.slice(s.start, s.end)).join(" ")).toBe(words);
  });
});

describe("best segmentation", () => {
  const none = { minTokens: 0, shortPenalty: 0 };
  const tokensBefore = (n: number, each = 10) => Array.from({ length: n + 1 }, (_, i) => i * each);

  it("cuts exactly at the gaps of positive gain when everything fits", () => {
    const gain = [0, -1, 2, -0.5, 0.1, -3];
    expect(
      bestSegmentation({ units: 6, gain, maxEnd: [6, 6, 6, 6, 6, 6], tokensBefore: tokensBefore(6), ...none }),
    ).toEqual([0, 2, 4]);
  });

  it("adds the least bad cuts where a segment would not fit, and avoids slivers under the soft minimum", () => {
    // At most 3 units per segment; the best forced cut is the least negative gap.
    const gain = [0, -5, -1, -5, -5, -2];
    const maxEnd = [3, 4, 5, 6, 6, 6];
    expect(bestSegmentation({ units: 6, gain, maxEnd, tokensBefore: tokensBefore(6), ...none })).toEqual([0, 2, 5]);
    // A weak positive cut leaving a one-unit segment is dropped once slivers cost more than it gains.
    const weak = [0, 0.2, -1, -1];
    const fits = [4, 4, 4, 4];
    expect(bestSegmentation({ units: 4, gain: weak, maxEnd: fits, tokensBefore: tokensBefore(4), ...none })).toEqual([
      0, 1,
    ]);
    expect(
      bestSegmentation({
        units: 4,
        gain: weak,
        maxEnd: fits,
        tokensBefore: tokensBefore(4),
        minTokens: 20,
        shortPenalty: 1,
      }),
    ).toEqual([0]);
  });
});

describe("merging small segments", () => {
  const unit = (...values: number[]) => Float32Array.from(values);
  // Units 0-1 about x, 2 a small one leaning to y, 3-4 about y; 10 tokens each.
  const vectors = [unit(1, 0), unit(1, 0), unit(0.3, 1), unit(0, 1), unit(0, 1)];
  const tokensBefore = [0, 10, 20, 30, 40, 50];

  it("joins a segment under the minimum to the neighbour it is more similar to", () => {
    const merged = mergeSmallSegments({
      starts: [0, 2, 3],
      units: 5,
      vectors,
      tokensBefore,
      maxEnd: [5, 5, 5, 5, 5],
      minTokens: 15,
    });
    expect(merged).toEqual([0, 2]);
  });

  it("leaves it alone where the merge would not fit, and leaves big enough segments alone", () => {
    // Units 2..4 do not fit together; 0..2 do.
    expect(
      mergeSmallSegments({
        starts: [0, 2, 3],
        units: 5,
        vectors,
        tokensBefore,
        maxEnd: [3, 3, 3, 5, 5],
        minTokens: 15,
      }),
    ).toEqual([0, 3]);
    expect(
      mergeSmallSegments({
        starts: [0, 2, 3],
        units: 5,
        vectors,
        tokensBefore,
        maxEnd: [2, 3, 3, 5, 5],
        minTokens: 15,
      }),
    ).toEqual([0, 2, 3]);
    expect(
      mergeSmallSegments({
        starts: [0, 2, 3],
        units: 5,
        vectors,
        tokensBefore,
        maxEnd: [5, 5, 5, 5, 5],
        minTokens: 10,
      }),
    ).toEqual([0, 2, 3]);
  });
});

describe("semantic splitter", () => {
  const pairs: Array<[string, string]> = [
    ["Valkyria Chronicles III", "Tower Building of the Little Rock Arsenal"],
    ["Cicely Mary Barker", "Gambia women 's national football team"],
    ["Plain maskray", "2011 – 12 Columbus Blue Jackets season"],
  ];

  it.each(pairs)(
    "finds the seam between %s and %s, at a paragraph break and inside a paragraph",
    async (first, second) => {
      expect(ARTICLES.has(first) && ARTICLES.has(second)).toBe(true);
      for (const joiner of ["\n\n", " "]) {
        const a = opening(first, 8);
        const text = `${a}${joiner}${opening(second, 8)}`;
        const spans = await splitSemantic(text, { maxTokens: 1000, overlapTokens: 0 }, embedder);
        checkSpans(text, spans, 1000);
        const seam = a.length + joiner.length;
        // The cut closest to the seam is within two sentences of it, and there is at most one other cut.
        const cuts = spans.slice(1).map((s) => s.start);
        expect(cuts.length).toBeGreaterThanOrEqual(1);
        expect(cuts.length).toBeLessThanOrEqual(2);
        const nearest = cuts.reduce((best, c) => (Math.abs(c - seam) < Math.abs(best - seam) ? c : best));
        expect(Math.abs(sentenceAt(text, nearest) - sentenceAt(text, seam))).toBeLessThanOrEqual(2);
      }
    },
  );

  it("keeps every chunk within max_tokens, exactly counted, at several budgets, with and without overlap", async () => {
    const texts = [
      wiki.slice(0, 30_000),
      chat.slice(0, 15_000),
      fs.readFileSync(join(root, "tests/fixtures/cjk.txt"), "utf8"),
      fs.readFileSync(join(root, "tests/fixtures/notes.md"), "utf8"),
    ];
    for (const text of texts) {
      for (const maxTokens of [32, 64, 100, 257, 512, 1000]) {
        const plain = await splitSemantic(text, { maxTokens, overlapTokens: 0 }, embedder);
        checkSpans(text, plain, maxTokens);
        const overlapTokens = Math.floor(maxTokens / 4);
        const overlapped = await splitSemantic(text, { maxTokens, overlapTokens }, embedder);
        checkSpans(text, overlapped, maxTokens, overlapTokens);
        // Overlap moves starts back, never the ends the boundaries chose.
        expect(overlapped.map((s) => s.end)).toEqual(plain.map((s) => s.end));
      }
    }
  });

  it("carries whole trailing sentences of the previous chunk as overlap, or its last words when no sentence fits", async () => {
    const text = `${opening("Valkyria Chronicles III", 12)}\n\n${opening("Plain maskray", 12)}`;
    const overlapTokens = 60;
    const spans = await splitSemantic(text, { maxTokens: 200, overlapTokens }, embedder);
    checkSpans(text, spans, 200, overlapTokens);
    const sentences = sentenceSpans(text);
    let whole = 0;
    spans.forEach((span, i) => {
      const previous = spans[i - 1];
      if (!previous || span.start >= previous.end) return;
      if (sentences.some((s) => s.start === span.start)) whole++;
      else {
        // Words only when the previous chunk's last sentence is too big to carry whole.
        const last = sentences.findLast((s) => s.start < previous.end)!;
        expect(span.start).toBeGreaterThan(last.start);
        expect(
          reference(text.slice(last.start, previous.end)) > overlapTokens ||
            reference(text.slice(last.start, span.end)) > 200,
        ).toBe(true);
      }
    });
    expect(whole).toBeGreaterThan(0);
  });

  it("handles empty text, one sentence, a huge sentence and a huge word", async () => {
    expect(await splitSemantic("", { maxTokens: 64, overlapTokens: 0 }, embedder)).toEqual([]);
    expect(await splitSemantic(" \n\n\t ", { maxTokens: 64, overlapTokens: 0 }, embedder)).toEqual([]);

    const one = "  A single sentence about nothing in particular.  \n";
    expect(await splitSemantic(one, { maxTokens: 64, overlapTokens: 8 }, embedder)).toEqual([
      { start: 2, end: one.trimEnd().length, tokenCount: reference(one.trim()) },
    ]);

    const huge = `Short opening line here. ${Array.from({ length: 4000 }, (_, i) => ["alpha", "beta", "gamma", "delta"][i % 4]).join(" ")} and a short end. Then another sentence.`;
    for (const overlapTokens of [0, 16]) {
      const spans = await splitSemantic(huge, { maxTokens: 100, overlapTokens }, embedder);
      expect(spans.length).toBeGreaterThan(30);
      checkSpans(huge, spans, 100, overlapTokens);
    }

    const word = `Before. ${"x".repeat(20_000)} After.`;
    checkSpans(word, await splitSemantic(word, { maxTokens: 64, overlapTokens: 0 }, embedder), 64);
  });

  it("refuses an embedder that answers with the wrong number of vectors", async () => {
    const broken: Embedder = { id: "broken", embed: async (texts) => texts.slice(1).map(() => new Float32Array(4)) };
    const text = `${opening("Plain maskray", 6)}\n\n${opening("Cicely Mary Barker", 6)}`;
    await expect(splitSemantic(text, { maxTokens: 200, overlapTokens: 0 }, broken)).rejects.toThrow(/returned/);
  });

  it("keeps a Markdown code block and list whole where they fit, and starts no overlap inside them", async () => {
    const code = [
      "```ts",
      ...Array.from({ length: 8 }, (_, i) => `const value${i} = compute(${i}); // step ${i}.`),
      "```",
    ].join("\n");
    const list = Array.from(
      { length: 6 },
      (_, i) => `- Item ${i} says one thing. It then says another thing about item ${i}.`,
    ).join("\n");
    const a = opening("Plain maskray", 6);
    const text = `${a}\n\n${code}\n\n${list}\n\n${opening("Cicely Mary Barker", 6)}`;
    const codeAt = a.length + 2;
    const listAt = codeAt + code.length + 2;
    const inside = (at: number) =>
      (at > codeAt && at < codeAt + code.length) || (at > listAt && at < listAt + list.length);
    for (const maxTokens of [200, 300]) {
      for (const overlapTokens of [0, 40]) {
        const spans = await splitSemantic(text, { maxTokens, overlapTokens }, embedder);
        checkSpans(text, spans, maxTokens, overlapTokens);
        expect(spans.filter((s) => inside(s.start)).map((s) => s.start)).toEqual([]);
      }
    }
    // Read as plain text, the same document may be cut anywhere: the protection is the Markdown reading's.
    const plain = await splitSemantic(text, { maxTokens: 200, overlapTokens: 40, flavor: "plain" }, embedder);
    checkSpans(text, plain, 200, 40);
  });

  it("gives an embedder that reads only so much every unit, every other unit, or none, as its limit allows", async () => {
    const text = `${opening("Plain maskray", 12)}\n\n${opening("Cicely Mary Barker", 12)}`;
    const units = sentenceSpans(text).length;
    const counting = (charsPerDocument: number) => {
      const asked: string[] = [];
      const counted: Embedder = {
        id: "counting",
        charsPerDocument,
        embed: (texts) => {
          asked.push(...texts);
          return embedder.embed(texts);
        },
      };
      return { asked, counted };
    };
    const options = { maxTokens: 1000, overlapTokens: 0 };
    const all = counting(text.length);
    const alone = await splitSemantic(text, options, all.counted);
    expect(all.asked.length).toBeGreaterThan(units * 0.8);
    const half = counting(Math.ceil(text.length * 0.6));
    checkSpans(text, await splitSemantic(text, options, half.counted), 1000);
    expect(half.asked.length).toBe(Math.ceil(all.asked.length / 2));
    expect(half.asked).toEqual(all.asked.filter((_, i) => i % 2 === 0));
    // Past every other unit, word overlap alone: the embedder is not asked.
    const none = counting(Math.ceil(text.length / 3));
    const lexicalOnly = await splitSemantic(text, options, none.counted);
    expect(none.asked).toEqual([]);
    checkSpans(text, lexicalOnly, 1000);
    expect(alone.length).toBeGreaterThan(1);
    expect(lexicalOnly.length).toBeGreaterThan(1);
  });

  it("is what the semantic tier runs, and GET /api names its embedder", async () => {
    const text = `${opening("Plain maskray", 6)}\n\n${opening("Cicely Mary Barker", 6)}`;
    const { chunks } = await chunkExtracted(
      { text, mediaType: "text/plain", pageCount: 1 } as never,
      "semantic",
      { maxTokens: 128, overlapTokens: 0 },
      { embedder },
    );
    const spans = await splitSemantic(text, { maxTokens: 128, overlapTokens: 0 }, embedder);
    expect(chunks.map((c) => [c.metadata.start, c.metadata.end])).toEqual(spans.map((s) => [s.start, s.end]));

    const semantic = (config: ReturnType<typeof loadConfig>) =>
      apiInfo(config, "http://chunkwise.test/api").tiers.find((t) => t.id === "semantic")!;
    expect(semantic(loadConfig({}))).toMatchObject({
      running_method: "semantic",
      embedder: "local:universal-sentence-encoder-lite",
    });
    expect(
      semantic(
        loadConfig({ EMBEDDINGS_BASE_URL: "http://127.0.0.1:9/v1", EMBEDDINGS_MODEL: "text-embedding-3-small" }),
      ),
    ).toMatchObject({ embedder: "openai:text-embedding-3-small" });
  });
});

describe("npm run chunk --tier semantic", () => {
  it("prints the semantic result with the embedder that made it, options before or after the file", () => {
    const file = join(root, "tests/fixtures/notes.md");
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ["--import", "tsx", "scripts/chunk.ts", ...args], {
        cwd: root,
        encoding: "utf8",
        timeout: 60_000,
      });
    const before = run("--tier", "semantic", "--max-tokens", "48", file);
    expect(before.status, before.stderr).toBe(0);
    const after = run(file, "--max-tokens=48", "--tier", "semantic");
    expect(after.status, after.stderr).toBe(0);
    const result = JSON.parse(before.stdout);
    expect(JSON.parse(after.stdout)).toEqual(result);
    expect(result.tier).toBe("semantic");
    expect(result.metadata).toMatchObject({
      method: "semantic",
      embedder: "local:universal-sentence-encoder-lite",
      max_tokens: 48,
    });
    expect(result.total_chunks).toBeGreaterThan(1);
    for (const chunk of result.chunks) expect(chunk.metadata.token_count).toBeLessThanOrEqual(48);
  });
});
