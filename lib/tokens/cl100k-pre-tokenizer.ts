/**
 * The cl100k_base pre-tokenizer, which Llama 3 shares: the model's split
 * pattern run as a sticky regex. Unlike o200k (lib/tokens/pre-tokenizer.ts)
 * it is not hand-written: cl100k and Llama 3 are options, not the default,
 * and the regex (~15 MB/s here, see `npm run bench`) is exact by construction.
 */

/** tiktoken's cl100k_base split pattern (Llama 3's `pat_str` is the same). */
const CL100K_PATTERN = new RegExp(
  [
    String.raw`'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])`,
    String.raw`[^\r\n\p{L}\p{N}]?\p{L}+`,
    String.raw`\p{N}{1,3}`,
    String.raw` ?[^\s\p{L}\p{N}]+[\r\n]*`,
    String.raw`\s*[\r\n]+`,
    String.raw`\s+(?!\S)`,
    String.raw`\s+`,
  ].join("|"),
  "uy",
);

/**
 * End of the cl100k pre-token starting at `pos` in `text.slice(0, limit)`.
 * The slice is a view in V8 (no copy), and only ranges' edges scan with a
 * limit short of the text's end.
 */
export function scanCl100kPreToken(text: string, pos: number, limit: number): number {
  const within = limit === text.length ? text : text.slice(0, limit);
  CL100K_PATTERN.lastIndex = pos;
  if (CL100K_PATTERN.test(within)) return CL100K_PATTERN.lastIndex;
  // Every code point matches some alternative, except a lone surrogate's
  // second half in a spot the `u` flag reads as part of a pair: take it alone.
  return pos + 1;
}
