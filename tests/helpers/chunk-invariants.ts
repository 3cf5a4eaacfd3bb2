/**
 * The one checker of what every chunker's output must keep (the free, structure and semantic tiers' tests use it):
 * spans in order inside the text, none blank, exact token counts (gpt-tokenizer's o200k_base, never the module under
 * test) within max_tokens, overlap only as much as allowed, and every non-blank character in some chunk.
 * It throws on the first broken rule, naming the chunk: one `expect` per chunk would make the large-corpus checks slow.
 */
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import type { Span } from "@/lib/chunking/types";

/** gpt-tokenizer's count, special-token strings taken as text (as countTokens does): the ground truth. */
export const referenceTokens = (text: string) => encode(text, { disallowedSpecial: new Set() }).length;

export interface ChunkRules {
  maxTokens: number;
  /** How many tokens consecutive chunks may share; 0 (the default): chunks are disjoint. */
  overlapTokens?: number;
  /** No chunk starts or ends with a whitespace grapheme cluster (a space carrying a combining mark is not one). */
  trimmed?: boolean;
  /**
   * Chunk edges fall on grapheme-cluster boundaries; "code-points" allows a cut between the code points of a cluster
   * bigger than maxTokens. A surrogate pair is never cut, whatever this says.
   */
  graphemes?: "whole" | "code-points";
  /**
   * The splitter may rewrite a chunk's text (`span.text`: a code block re-fenced, a table's header repeated), holding
   * its slice whole; otherwise `span.text` must be absent.
   */
  rewrites?: boolean;
  /** Every span carries its headings (an array, empty at the top). */
  headings?: boolean;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Grapheme-cluster boundaries, line by line: Intl.Segmenter is quadratic on long strings, and a line break ends a cluster. */
function graphemeBoundaries(text: string): Set<number> {
  const out = new Set<number>([0, text.length]);
  let from = 0;
  while (from < text.length) {
    let to = text.indexOf("\n", from);
    to = to < 0 ? text.length : to + 1;
    for (const { index } of segmenter.segment(text.slice(from, to))) out.add(from + index);
    from = to;
  }
  return out;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
const splitsPair = (text: string, p: number) => p > 0 && isHigh(text.charCodeAt(p - 1)) && isLow(text.charCodeAt(p));

/** Throws on the first broken rule; returns how many consecutive chunks overlap. */
export function checkChunks(text: string, spans: readonly Span[], rules: ChunkRules): number {
  const overlapTokens = rules.overlapTokens ?? 0;
  const boundaries = rules.graphemes === "whole" ? graphemeBoundaries(text) : undefined;
  const covered = new Uint8Array(text.length + 1);
  let overlapping = 0;
  spans.forEach((span, i) => {
    const where = `chunk ${i} [${span.start}, ${span.end})`;
    if (!(span.start >= 0 && span.end <= text.length && span.start < span.end)) throw new Error(`${where}: bad range`);
    const slice = text.slice(span.start, span.end);
    if (span.text !== undefined) {
      if (!rules.rewrites) throw new Error(`${where}: rewritten, though this splitter only slices`);
      if (!span.text.includes(slice)) throw new Error(`${where}: the rewritten text drops part of its slice`);
    }
    const chunk = span.text ?? slice;
    if (!/\S/u.test(chunk)) throw new Error(`${where}: whitespace only`);
    const tokens = referenceTokens(chunk);
    if (span.tokenCount !== tokens) throw new Error(`${where}: tokenCount ${span.tokenCount}, actual ${tokens}`);
    if (tokens > rules.maxTokens) throw new Error(`${where}: ${tokens} tokens > ${rules.maxTokens}`);
    if (splitsPair(text, span.start) || splitsPair(text, span.end)) throw new Error(`${where}: cuts a surrogate pair`);
    if (boundaries && (!boundaries.has(span.start) || !boundaries.has(span.end)))
      throw new Error(`${where}: not on grapheme boundaries`);
    if (rules.trimmed) {
      const [first] = segmenter.segment(slice);
      const last = [...segmenter.segment(slice.slice(-64))].at(-1);
      if (/^\s+$/u.test(first!.segment) || /^\s+$/u.test(last!.segment))
        throw new Error(`${where}: starts or ends with whitespace: ${JSON.stringify(slice.slice(0, 20))}`);
    }
    if (rules.headings && !Array.isArray(span.headings)) throw new Error(`${where}: no headings`);
    const previous = spans[i - 1];
    if (previous) {
      if (span.start <= previous.start) throw new Error(`${where}: start not after chunk ${i - 1}`);
      if (span.end <= previous.end) throw new Error(`${where}: end not after chunk ${i - 1}`);
      if (span.start < previous.end) {
        overlapping++;
        const shared = referenceTokens(text.slice(span.start, previous.end));
        if (shared > overlapTokens)
          throw new Error(`${where}: repeats ${shared} tokens of chunk ${i - 1}, overlap is ${overlapTokens}`);
      }
    }
    covered.fill(1, span.start, span.end);
  });
  for (let i = 0; i < text.length; i++)
    if (!covered[i] && /\S/u.test(text[i]!))
      throw new Error(`character ${i} (${JSON.stringify(text.slice(i, i + 10))}) is in no chunk`);
  return overlapping;
}
