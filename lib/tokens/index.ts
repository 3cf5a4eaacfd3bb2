/**
 * The one place tokens are counted: exact counts in o200k_base (GPT-4o,
 * GPT-4.1, GPT-5 and o-series models; the default), cl100k_base or Llama 3
 * (lib/tokens/tokenizers.ts).
 *
 * Byte-pair encoding never merges across pre-tokens, so a text's token count
 * is the sum of its pre-tokens' counts. That gives two speed-ups over calling
 * the tokenizer on every candidate chunk, while staying exact:
 *   - pre-tokenize with a hand-written scanner equivalent to the o200k regex
 *     (the regex itself runs at ~17 MB/s here, the scanner several times faster),
 *     and cache each distinct pre-token's count;
 *   - pre-tokenize a whole document once (`TokenIndex`) and count any range of
 *     it from prefix sums, re-scanning only the few pre-tokens at the range's
 *     edges, where the range's own pre-tokenization can differ from the
 *     document's.
 *
 * Strings that look like special tokens (`<|endoftext|>`) are counted as the
 * ordinary text they are: the o200k split pattern always breaks them into
 * several pre-tokens. gpt-tokenizer's `encode` throws on them by default; with
 * `{ disallowedSpecial: new Set() }` it agrees with this module.
 */
import { isSpace } from "./pre-tokenizer";
import { type Tokenizer, type TokenizerName, clearTokenCaches, tokenizerFor } from "./tokenizers";

export { O200K_PATTERN, preTokenize } from "./pre-tokenizer";
export { type Tokenizer, type TokenizerName, loadTokenizer } from "./tokenizers";

/** Forgets every cached pre-token count, so a benchmark run starts as cold as a fresh process (less the one-time vocabulary builds). */
export const clearTokenCache = clearTokenCaches;

/** Exact count of one pre-token (a string the tokenizer's scanner returns whole). */
export function countPreToken(piece: string, tokenizer: TokenizerName = "o200k_base"): number {
  return tokenizerFor(tokenizer).countPiece(piece, 0, piece.length);
}

/**
 * Exact token count of `text`; in o200k_base (the default) equal to
 * gpt-tokenizer's `encode(text).length`, in cl100k_base to tiktoken's, in
 * llama3 to llama3-tokenizer-js's without the begin/end-of-text tokens.
 */
export function countTokens(text: string, tokenizer: TokenizerName = "o200k_base"): number {
  const { scan, countPiece } = tokenizerFor(tokenizer);
  let total = 0;
  const limit = text.length;
  for (let pos = 0; pos < limit;) {
    const end = scan(text, pos, limit);
    total += countPiece(text, pos, end);
    pos = end;
  }
  return total;
}

/**
 * A document pre-tokenized once, answering exact token counts of any range
 * `[start, end)` as if `text.slice(start, end)` had been counted on its own.
 *
 * Why the prefix sums stay exact: the pattern has no look-behind, so from any
 * pre-token start the range's own pre-tokens coincide with the document's
 * until the range's end comes into play. They differ only where the range
 * starts inside a document pre-token (re-scan until the two line up again,
 * usually after one pre-token) and at its end, which stops greedy runs short
 * (re-scan the document pre-token it cuts; from the start of a whitespace run
 * that reaches the end, since `\s+(?!\S)` then matches differently; and one
 * pre-token earlier when the end splits a surrogate pair, whose lone half
 * can join the pre-token before it). Every pre-token re-scanned is scanned
 * with the range's end as the end of text. Tests compare thousands of random
 * ranges, awkward characters included, with gpt-tokenizer.
 */
export class TokenIndex {
  readonly text: string;
  readonly tokenizer: Tokenizer;
  /** Pre-token i is [starts[i], starts[i + 1]); starts[pieces] === text.length. */
  private readonly starts: Int32Array;
  /** cumulative[i]: tokens in pre-tokens 0 .. i-1. */
  private readonly cumulative: Float64Array;
  readonly pieces: number;

  constructor(text: string, tokenizer: TokenizerName = "o200k_base") {
    this.text = text;
    this.tokenizer = tokenizerFor(tokenizer);
    const { scan: scanPreToken, countPiece: countCached } = this.tokenizer;
    const limit = text.length;
    let starts = new Int32Array((limit >> 2) + 16);
    let cumulative = new Float64Array(starts.length);
    let count = 0;
    let total = 0;
    for (let pos = 0; pos < limit;) {
      const end = scanPreToken(text, pos, limit);
      if (count + 1 >= starts.length) {
        const grownStarts = new Int32Array(starts.length * 2);
        grownStarts.set(starts);
        starts = grownStarts;
        const grownCumulative = new Float64Array(starts.length);
        grownCumulative.set(cumulative);
        cumulative = grownCumulative;
      }
      starts[count] = pos;
      cumulative[count] = total;
      total += countCached(text, pos, end);
      count++;
      pos = end;
    }
    starts[count] = limit;
    cumulative[count] = total;
    this.starts = starts.subarray(0, count + 1);
    this.cumulative = cumulative.subarray(0, count + 1);
    this.pieces = count;
  }

  get total(): number {
    return this.cumulative[this.pieces]!;
  }

  /** Index of the document pre-token containing `pos` (the last one starting at or before it). */
  pieceAt(pos: number): number {
    const starts = this.starts;
    let lo = 0;
    let hi = this.pieces;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Start offset of document pre-token `i` (`text.length` for i === pieces). */
  pieceStart(i: number): number {
    return this.starts[i]!;
  }

  /** Tokens in document pre-tokens 0 .. i-1. */
  tokensBefore(i: number): number {
    return this.cumulative[i]!;
  }

  /**
   * Cheap estimate of the range's count from the document's pre-tokens alone
   * (those starting inside the range). Off by a few tokens at the edges; only
   * for choosing where to look, never for reporting.
   */
  estimate(start: number, end: number): number {
    if (end <= start) return 0;
    return this.cumulative[this.firstPieceFrom(end)]! - this.cumulative[this.firstPieceFrom(start)]!;
  }

  /** Index of the first document pre-token starting at or after `pos` (`pieces` if none). */
  firstPieceFrom(pos: number): number {
    const i = this.pieceAt(pos);
    return this.starts[i]! < pos ? i + 1 : i;
  }

  /** Exact `countTokens(text.slice(start, end))`. */
  count(start: number, end: number): number {
    if (end <= start) return 0;
    const { scan: scanPreToken, countPiece: countCached } = this.tokenizer;
    const text = this.text;
    const starts = this.starts;
    let total = 0;
    let pos = start;
    let i = this.pieceAt(pos);
    // Head: re-scan until the range's pre-tokens line up with the document's.
    while (starts[i] !== pos) {
      const stop = scanPreToken(text, pos, end);
      total += countCached(text, pos, stop);
      pos = stop;
      if (pos >= end) return total;
      while (starts[i + 1]! <= pos) i++;
    }
    // Middle: whole document pre-tokens i .. j-1 end at or before `end`.
    let j = this.pieceAt(end);
    const last = text.charCodeAt(end - 1);
    if (isSpace(last)) {
      // A whitespace run reaching `end` satisfies `\s+(?!\S)` where the
      // document's did not: re-scan from the run's start.
      let w = end - 1;
      while (w > pos && isSpace(text.charCodeAt(w - 1))) w--;
      j = Math.min(j, this.pieceAt(w));
    } else if (last >= 0xd800 && last <= 0xdbff && j > i) {
      // `end` splits a surrogate pair: the lone half is punctuation-like to the
      // pattern and may join the pre-token before it.
      j--;
    }
    if (j > i) {
      total += this.cumulative[j]! - this.cumulative[i]!;
      pos = starts[j]!;
    }
    // Tail: the range's end cuts the document pre-token here; re-scan it.
    while (pos < end) {
      const stop = scanPreToken(text, pos, end);
      total += countCached(text, pos, stop);
      pos = stop;
    }
    return total;
  }

  /**
   * Exact `countTokens(prefix + text.slice(start, end) + suffix)` (a chunk
   * with a code fence or a table header added), from the prefix sums in the
   * middle. The joined string is scanned where it differs from the
   * document: from its start until a pre-token boundary falls on a document
   * pre-token start inside the range, and from the document pre-token
   * holding the range's last character (the start of a whitespace run that
   * reaches the end, or one pre-token earlier when the end splits a
   * surrogate pair, as in `count`): pre-tokens ending before that character
   * are the document's, whatever follows it.
   */
  countJoined(prefix: string, start: number, end: number, suffix: string): number {
    if (!prefix && !suffix) return this.count(start, end);
    const { scan: scanPreToken, countPiece: countCached } = this.tokenizer;
    const text = this.text;
    const joined = prefix + text.slice(start, Math.max(start, end)) + suffix;
    const limit = joined.length;
    // A document offset in the range is at joined offset `offset + shift`.
    const shift = prefix.length - start;
    let total = 0;
    let pos = 0;
    let i = -1;
    while (pos < limit) {
      if (pos >= prefix.length && pos - shift < end) {
        i = this.pieceAt(pos - shift);
        if (this.starts[i] === pos - shift) break;
      }
      const stop = scanPreToken(joined, pos, limit);
      total += countCached(joined, pos, stop);
      pos = stop;
    }
    if (pos >= limit) return total;
    let j = this.pieceAt(end - 1);
    if (isSpace(text.charCodeAt(end - 1))) {
      let w = end - 1;
      while (w > pos - shift && isSpace(text.charCodeAt(w - 1))) w--;
      j = Math.min(j, this.pieceAt(w));
    } else if (text.charCodeAt(end - 1) >= 0xd800 && text.charCodeAt(end - 1) <= 0xdbff) {
      j--;
    }
    if (j > i) {
      total += this.cumulative[j]! - this.cumulative[i]!;
      pos = this.starts[j]! + shift;
    }
    while (pos < limit) {
      const stop = scanPreToken(joined, pos, limit);
      total += countCached(joined, pos, stop);
      pos = stop;
    }
    return total;
  }
}
