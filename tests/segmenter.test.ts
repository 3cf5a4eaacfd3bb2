/**
 * Chunks of text written without spaces between words (Chinese, Thai; the
 * UDHR in tests/fixtures, and the project's own Chinese/Japanese prose) end
 * at word boundaries as Intl.Segmenter finds them in the whole document, on
 * the free (recursive) and structure tiers, and are filled near max_tokens.
 * At 48 and 64 tokens many of the UDHR's sentences are longer than a chunk,
 * so cuts inside sentences are needed; before word-breaks.ts those fell
 * between any two characters.
 */
import fs from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { splitRecursive } from "@/lib/chunking/recursive";
import { splitStructure } from "@/lib/chunking/structure";
import type { Span } from "@/lib/chunking/types";

const read = (name: string) => fs.readFileSync(join(import.meta.dirname, "fixtures", name), "utf8");
const DOCUMENTS = { chinese: read("udhr-zh.txt"), thai: read("udhr-th.txt"), "chinese and japanese": read("cjk.txt") };

/** Offsets where a word (or a run of spaces or punctuation) ends in the whole document, per Intl.Segmenter. */
function wordBoundaries(text: string): Set<number> {
  const out = new Set([0, text.length]);
  for (const { index, segment } of new Intl.Segmenter("und", { granularity: "word" }).segment(text))
    out.add(index + segment.length);
  return out;
}

const SPLITTERS: Record<string, (text: string, maxTokens: number, overlapTokens: number) => Span[]> = {
  recursive: (text, maxTokens, overlapTokens) => splitRecursive(text, { maxTokens, overlapTokens }),
  structure: (text, maxTokens, overlapTokens) => splitStructure(text, { maxTokens, overlapTokens, flavor: "plain" }),
};

describe.each(Object.entries(DOCUMENTS))("%s", (_, text) => {
  const boundaries = wordBoundaries(text);

  it.each(Object.keys(SPLITTERS))(
    "%s: every chunk starts and ends at a word boundary and is filled near max_tokens",
    (name) => {
      for (const maxTokens of [48, 64, 128]) {
        for (const overlapTokens of [0, 16]) {
          const spans = SPLITTERS[name]!(text, maxTokens, overlapTokens);
          expect(spans.length).toBeGreaterThan(2);
          for (const span of spans) {
            const chunk = text.slice(span.start, span.end);
            expect([maxTokens, overlapTokens, chunk, boundaries.has(span.end)]).toEqual([
              maxTokens,
              overlapTokens,
              chunk,
              true,
            ]);
            expect([chunk, boundaries.has(span.start)]).toEqual([chunk, true]);
            expect(span.tokenCount).toBeLessThanOrEqual(maxTokens);
          }
          // The last chunk of a document is what is left over; the others are packed. With overlap the
          // structure tier packs into what `overlapTokens` leaves, since the overlap is added afterwards
          // and, after a one-sentence chunk, cannot be (an overlap never repeats the whole chunk before).
          const room = name === "structure" ? maxTokens - overlapTokens : maxTokens;
          const fills = spans.slice(0, -1).map((span) => Math.min(1, span.tokenCount / room));
          const meanFill = fills.reduce((a, b) => a + b, 0) / fills.length;
          expect([maxTokens, overlapTokens, meanFill]).toEqual([
            maxTokens,
            overlapTokens,
            expect.toSatisfy((fill: number) => fill > 0.5),
          ]);
        }
      }
    },
  );
});
