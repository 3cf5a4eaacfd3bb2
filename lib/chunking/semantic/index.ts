/**
 * The semantic tier's splitter: chunks end where the topic changes.
 *
 * 1. Units. The text is cut into sentences (`text/line-sentences.ts`). A sentence
 *    of fewer than `minUnitTokens` tokens (a heading, a list item, "Dr. "
 *    cut off by the segmenter) joins the next one — or the previous one when
 *    it ends its paragraph — since a few words make a poor vector. A
 *    sentence over `maxTokens` is cut by fit/split-to-fit.ts, and its
 *    pieces become units with no boundary preference between them.
 * 2. Vectors, two per unit: the embedder's (meaning; one `embed` call, the
 *    embedder batches) and hashed words and character n-grams (word
 *    overlap, the lexical cohesion TextTiling and C99 measure).
 * 3. Topic shifts. For every gap between units, the cosine similarity of
 *    the blocks of units on either side, for each kind of vector, mixed in
 *    the share `lexicalWeight`; then its TextTiling depth
 *    (`topic-shifts.ts`). The strength of a gap is its depth plus
 *    `levelWeight` × (the document's mean similarity − its similarity): a
 *    valley counts, and so does a gap where the two sides have less in
 *    common than neighbours in this document usually do.
 * 4. Threshold, relative to the document: a gap is worth cutting at by how
 *    far its strength exceeds mean + `cutoff` × standard deviation of the
 *    strengths of the document's valleys (local minima of similarity), so
 *    the same rule holds whatever the embedder's scale of similarities and
 *    however homogeneous the document is. Paragraph breaks and line breaks
 *    are likelier places for a topic to change: they are credited with
 *    `paragraphBonus` / `lineBonus` standard deviations.
 * 5. Segmentation. The cuts are chosen by dynamic programming
 *    (`best-segmentation.ts`): the most total (strength − threshold) over the
 *    cuts, less a penalty for each chunk under the soft minimum size
 *    (`minChunkFraction` of `maxTokens`, at most `minChunkCap` tokens),
 *    subject to the hard limit: every chunk has at most `maxTokens` tokens,
 *    exactly counted. A stretch too long for one chunk is therefore cut at
 *    its weakest links, and at plain sentence boundaries when the
 *    similarities say nothing.
 *    In Markdown, a code block, table, list or HTML block that fits in
 *    `maxTokens` (else each of its rows or items) is kept whole: a cut inside one is worth
 *    `INSIDE_BLOCK`, taken only where nothing else fits, and no overlap
 *    starts inside one.
 * 6. Small chunks. A chunk still under `smallFraction` of the soft minimum
 *    (a lone heading, a list item) joins the neighbour it is more similar
 *    to, where the two fit (`merge-small.ts`).
 *
 * Chunks are ranges of the text, trimmed of surrounding whitespace: `text`
 * is `source.slice(start, end)`, nothing is rewritten, and the only
 * characters in no chunk are whitespace between chunks.
 *
 * Overlap: each chunk after the first starts with the last whole sentences
 * (units) of the previous chunk's own text, totalling at most
 * `overlapTokens` and never the whole previous chunk; when not even one
 * sentence fits, its last words. The overlap is shortened or dropped where
 * it would push the chunk past `maxTokens`: boundaries are chosen first,
 * overlap is what room is left.
 */
import type { Embedder } from "@/lib/embeddings/types";
import { TokenIndex } from "@/lib/tokens";
import { bestSegmentation } from "./best-segmentation";
import { mergeSmallSegments } from "./merge-small";
import { isWordStart, overlapStart } from "../fit/overlap";
import { splitToFit } from "../fit/split-to-fit";
import type { Span, SplitOptions } from "../types";
import { gapGains, similarityCurve } from "./gains";
import { DEFAULT_TUNING, type SemanticTuning } from "./tuning";
import { MIN_MAX_TOKENS, type Unit, buildUnits, markWholeBlocks, fittingEnds } from "./units";

export { DEFAULT_TUNING, type SemanticTuning };

/**
 * Start of the overlap carried into a chunk from the previous one (units first .. last): the earliest whole
 * unit that fits and starts at a word start (fit/overlap.ts), else the earliest word start in the last unit;
 * -1 for none.
 */
function overlapFromUnits(
  text: string,
  index: TokenIndex,
  units: Unit[],
  first: number,
  last: number,
  chunkEnd: number,
  options: SplitOptions,
): number {
  const room = (start: number) =>
    index.count(start, units[last]!.end) <= options.overlapTokens && index.count(start, chunkEnd) <= options.maxTokens;
  let start = -1;
  // Never from inside a code block, table or list: the chunk would open with a piece of it.
  for (let u = last; u > first && room(units[u]!.start); u--)
    if (!units[u]!.inBlock && isWordStart(text, units[u]!.start)) start = units[u]!.start;
  if (start >= 0 || units[last]!.inBlock) return start;
  // Not one whole unit: the last unit's last words.
  return overlapStart(text, units[last]!.start + 1, units[last]!.end, room);
}

interface SemanticOptions extends SplitOptions {
  /** "markdown" (default): Markdown's code blocks, tables and lists are kept whole where they fit. "plain": no Markdown. */
  flavor?: "markdown" | "plain";
}

export async function splitSemantic(
  text: string,
  options: SemanticOptions,
  embedder: Embedder,
  tuning: SemanticTuning = DEFAULT_TUNING,
): Promise<Span[]> {
  const { maxTokens, overlapTokens } = options;
  if (!Number.isInteger(maxTokens) || maxTokens < MIN_MAX_TOKENS)
    throw new RangeError(`maxTokens must be an integer of at least ${MIN_MAX_TOKENS}`);
  if (!Number.isInteger(overlapTokens) || overlapTokens < 0 || overlapTokens >= maxTokens)
    throw new RangeError("overlapTokens must be an integer from 0 to maxTokens - 1");
  const index = new TokenIndex(text, options.tokenizer);
  const built = buildUnits(text, index, maxTokens, tuning.minUnitTokens);
  if (built.length === 0) return [];
  const units = options.flavor === "plain" ? built : markWholeBlocks(text, built, index, maxTokens);

  let starts = [0];
  if (units.length > 1) {
    const { similarity, words } = await similarityCurve(embedder, text, units, tuning);
    const { gain, scale } = gapGains(text, units, similarity, tuning);
    const tokensBefore = new Float64Array(units.length + 1);
    units.forEach((u, i) => (tokensBefore[i + 1] = tokensBefore[i]! + u.tokens));
    const maxEnd = fittingEnds(units, index, maxTokens);
    const minTokens = Math.min(tuning.minChunkFraction * maxTokens, tuning.minChunkCap);
    starts = bestSegmentation({
      units: units.length,
      gain,
      maxEnd,
      tokensBefore,
      minTokens,
      shortPenalty: tuning.shortPenalty * scale,
    });
    starts = mergeSmallSegments({
      starts,
      units: units.length,
      vectors: words,
      tokensBefore,
      maxEnd,
      minTokens: minTokens * tuning.smallFraction,
    });
  }

  const spans: Span[] = [];
  for (let s = 0; s < starts.length; s++) {
    const first = starts[s]!;
    const last = (starts[s + 1] ?? units.length) - 1;
    const end = units[last]!.end;
    let start = units[first]!.start;
    if (s > 0 && overlapTokens > 0) {
      const overlap = overlapFromUnits(text, index, units, starts[s - 1]!, first - 1, end, options);
      if (overlap >= 0) start = overlap;
    }
    const tokenCount = index.count(start, end);
    // Counts of joined ranges are not quite monotone in BPE; a chunk the fit check let through over the limit is cut again.
    if (tokenCount > maxTokens) {
      for (const piece of splitToFit(text.slice(units[first]!.start, end), {
        maxTokens,
        overlapTokens: 0,
        tokenizer: options.tokenizer,
      }))
        spans.push({
          start: units[first]!.start + piece.start,
          end: units[first]!.start + piece.end,
          tokenCount: piece.tokenCount,
        });
      continue;
    }
    spans.push({ start, end, tokenCount });
  }
  return spans;
}
