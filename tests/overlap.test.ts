/**
 * The one rule for where a chunk's overlap may begin (lib/chunking/fit/overlap.ts), the search for the
 * earliest start that fits, and the three tiers held to the rule.
 */
import fs from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { earliestFitting, isWordStart, overlapStart, wordStarts } from "@/lib/chunking/fit/overlap";
import { splitRecursive } from "@/lib/chunking/recursive";
import { splitSemantic } from "@/lib/chunking/semantic";
import { splitStructure } from "@/lib/chunking/structure";
import type { Span } from "@/lib/chunking/types";
import { HashedNgramEmbedder } from "@/lib/embeddings/hashed-ngrams";
import { TokenIndex } from "@/lib/tokens";
import { mulberry32 } from "./helpers/random";

const root = join(import.meta.dirname, "..");
const cjk = fs.readFileSync(join(root, "tests/fixtures/cjk.txt"), "utf8");
const wiki = fs.readFileSync(join(root, "tests/fixtures/wikitext-excerpt.md"), "utf8");

/** Chunks that repeat the end of the chunk before them. */
const overlapping = (spans: Span[]) => spans.filter((span, i) => i > 0 && span.start < spans[i - 1]!.end);

describe("isWordStart / wordStarts", () => {
  it("starts words after any whitespace \\s matches and after CJK full stops, never on whitespace", () => {
    //            0123456789012345678
    const text = "ab cd\u00a0ef\u3000gh。ij\tkl";
    expect(wordStarts(text, 0, text.length)).toEqual([0, 3, 6, 9, 12, 15]);
    expect(isWordStart(text, 2)).toBe(false); // the space itself
    expect(isWordStart(text, 1)).toBe(false); // inside a word
    expect(isWordStart(text, 5)).toBe(false); // a no-break space is whitespace, not a word
  });

  it("never starts inside a grapheme cluster (a combining mark after a space)", () => {
    const text = "word \u0301x next";
    expect(isWordStart(text, 5)).toBe(false);
    expect(wordStarts(text, 0, text.length)).toEqual([0, 8]);
  });

  it("keeps to [from, to)", () => {
    const text = "one two three four";
    expect(wordStarts(text, 1, 14)).toEqual([4, 8]);
    expect(wordStarts(text, 4, 4)).toEqual([]);
  });
});

describe("earliestFitting", () => {
  it("finds the first candidate of a monotone predicate, with or without a guess", () => {
    const random = mulberry32(7);
    for (let round = 0; round < 300; round++) {
      const n = Math.floor(random() * 40);
      const candidates = Array.from({ length: n }, (_, i) => i * 3 + Math.floor(random() * 3));
      const threshold = Math.floor(random() * (n * 3 + 6)) - 3;
      const fits = (start: number) => start >= threshold;
      const expected = candidates.find(fits) ?? -1;
      expect(earliestFitting(candidates, fits)).toBe(expected);
      const near = Math.floor(random() * (n * 3 + 6)) - 3;
      expect(earliestFitting(candidates, fits, near)).toBe(expected);
    }
  });

  it("answers -1 when nothing fits or there is nothing to try", () => {
    expect(earliestFitting([1, 2, 3], () => false)).toBe(-1);
    expect(earliestFitting([1, 2, 3], () => false, 2)).toBe(-1);
    expect(earliestFitting([], () => true, 5)).toBe(-1);
  });
});

describe("overlapStart", () => {
  it("is the earliest word start whose tail holds at most the budget", () => {
    const text = wiki.slice(0, 4000);
    const index = new TokenIndex(text);
    const end = text.length;
    for (const budget of [1, 8, 32, 100]) {
      const fits = (start: number) => index.count(start, end) <= budget;
      const start = overlapStart(text, 0, end, fits);
      const starts = wordStarts(text, 0, end);
      expect(start).toBe(starts.find(fits) ?? -1);
      expect(start).toBeGreaterThan(0);
      expect(isWordStart(text, start)).toBe(true);
    }
  });
});

describe("every tier's overlap begins at a word start", () => {
  const options = { maxTokens: 200, overlapTokens: 50 };

  it("recursive, structure and semantic on English", async () => {
    const text = wiki.slice(0, 20_000);
    const tiers = {
      recursive: splitRecursive(text, options),
      structure: splitStructure(text, options),
      semantic: await splitSemantic(text, options, new HashedNgramEmbedder()),
    };
    for (const [tier, spans] of Object.entries(tiers)) {
      const carried = overlapping(spans);
      expect(carried.length, tier).toBeGreaterThan(0);
      for (const span of carried) expect(isWordStart(text, span.start), `${tier} at ${span.start}`).toBe(true);
    }
  });

  it("the structure tier gives Chinese and Japanese text overlap, starting after a full stop", () => {
    const spans = splitStructure(cjk, options);
    const carried = overlapping(spans);
    expect(carried.length).toBeGreaterThan(0);
    for (const span of carried) expect("。！？").toContain(cjk[span.start - 1]);
  });

  it("the structure tier prefers a sentence start after a CJK full stop in text that also has spaces", () => {
    // Chinese sentences with English names set off by spaces: word starts after a space and after 。 alike.
    const sentences = Array.from(
      { length: 120 },
      (_, i) => `第${i}号服务器 Redis 保存数据，然后 Node 读取结果并返回给客户${i % 7}。`,
    );
    const text = sentences.join("");
    const spans = splitStructure(text, options);
    const carried = overlapping(spans);
    expect(carried.length).toBeGreaterThan(0);
    for (const span of carried) expect(text[span.start - 1], `overlap at ${span.start}`).toBe("。");
  });

  it("the structure tier never repeats the whole previous chunk", () => {
    for (const name of ["udhr-th.txt", "udhr-zh.txt"]) {
      const text = fs.readFileSync(join(root, "tests/fixtures", name), "utf8");
      const spans = splitStructure(text, { maxTokens: 64, overlapTokens: 16 });
      expect(overlapping(spans).length, name).toBeGreaterThan(0);
      spans.forEach((span, i) => {
        if (i > 0) expect(span.start, `${name} chunk ${i}`).toBeGreaterThan(spans[i - 1]!.start);
      });
    }
  });

  it("the semantic tier's overlap does not open with a no-break space", async () => {
    // Sentences too long for whole ones to fit the overlap, words separated by a space and a no-break space.
    const sentence = (k: number) =>
      Array.from({ length: 60 }, (_, i) => `w${k}x${i}`)
        .join(" \u00a0")
        .concat(".");
    const text = Array.from({ length: 12 }, (_, k) => sentence(k)).join(" ");
    const spans = await splitSemantic(text, { maxTokens: 256, overlapTokens: 40 }, new HashedNgramEmbedder());
    const carried = overlapping(spans);
    expect(carried.length).toBeGreaterThan(0);
    for (const span of carried) expect(text[span.start]).not.toMatch(/\s/);
  });
});
