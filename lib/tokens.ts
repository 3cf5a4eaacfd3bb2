/**
 * The one place tokens are counted: exact o200k_base counts (GPT-4o, GPT-4.1,
 * GPT-5 and o-series models).
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
import bpeRanks from "gpt-tokenizer/bpeRanks/o200k_base";

// ---------------------------------------------------------------------------
// Pre-tokenizer
// ---------------------------------------------------------------------------

/**
 * The o200k_base split pattern, as published by tiktoken and used by
 * gpt-tokenizer (`O200K_TOKEN_SPLIT_REGEX`). `scanPreToken` implements exactly
 * this pattern; the regex is kept as the reference it is tested against.
 */
export const O200K_PATTERN = new RegExp(
  [
    String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?`,
    String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?`,
    String.raw`\p{N}{1,3}`,
    String.raw` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
    String.raw`\s*[\r\n]+`,
    String.raw`\s+(?!\S)`,
    String.raw`\s+`,
  ].join("|"),
  "gu",
);

// Character classes of the pattern, one bit each.
const C_LETTER = 1; // \p{L}
const C_NUMBER = 2; // \p{N}
const C_SPACE = 4; // \s
const C_UPPERISH = 8; // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
const C_LOWERISH = 16; // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
/** Set on `classAt` results when the code point is a surrogate pair (two code units). */
const C_PAIR = 32;

const CLASS_TESTS: readonly (readonly [RegExp, number])[] = [
  [/\p{L}/u, C_LETTER],
  [/\p{N}/u, C_NUMBER],
  [/\s/u, C_SPACE],
  [/[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]/u, C_UPPERISH],
  [/[\p{Ll}\p{Lm}\p{Lo}\p{M}]/u, C_LOWERISH],
];

function classify(char: string): number {
  let bits = 0;
  for (const [re, bit] of CLASS_TESTS) if (re.test(char)) bits |= bit;
  return bits;
}

/**
 * Classes of every BMP code unit, derived from the same regex engine that runs
 * the reference pattern, so the two cannot disagree about Unicode data.
 * Lone surrogates classify as 0, as the `u`-flag regex treats them.
 */
const BMP_CLASSES: Uint8Array = (() => {
  const table = new Uint8Array(0x10000);
  for (let c = 0; c < 0x10000; c++) table[c] = classify(String.fromCharCode(c));
  return table;
})();

const astralClasses = new Map<number, number>();

function astralClass(codePoint: number): number {
  let bits = astralClasses.get(codePoint);
  if (bits === undefined) {
    bits = classify(String.fromCodePoint(codePoint));
    astralClasses.set(codePoint, bits);
  }
  return bits;
}

/** Classes of the code point at `i`, with C_PAIR when it takes two code units; nothing at or past `limit` is read. */
function classAt(text: string, i: number, limit: number): number {
  const c = text.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff) return BMP_CLASSES[c]!;
  if (i + 1 < limit) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return astralClass(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000) | C_PAIR;
  }
  return 0;
}

const width = (classes: number) => (classes & C_PAIR ? 2 : 1);

/** `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+` at `from`, with the regex's backtracking; -1 if it cannot match. */
function matchUpperThenLower(text: string, from: number, limit: number): number {
  let i = from;
  // The greedy upper-ish run may have to give characters back; the match then
  // ends after the last character of the run that is also lower-ish.
  let lastLowerEnd = -1;
  while (i < limit) {
    const k = classAt(text, i, limit);
    if (!(k & C_UPPERISH)) break;
    i += width(k);
    if (k & C_LOWERISH) lastLowerEnd = i;
  }
  if (i < limit) {
    let k = classAt(text, i, limit);
    if (k & C_LOWERISH) {
      do {
        i += width(k);
        if (i >= limit) break;
        k = classAt(text, i, limit);
      } while (k & C_LOWERISH);
      return i;
    }
  }
  return lastLowerEnd;
}

/** `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*` at `from`; -1 if it cannot match. */
function matchUpperRun(text: string, from: number, limit: number): number {
  let i = from;
  while (i < limit) {
    const k = classAt(text, i, limit);
    if (!(k & C_UPPERISH)) break;
    i += width(k);
  }
  if (i === from) return -1;
  while (i < limit) {
    const k = classAt(text, i, limit);
    if (!(k & C_LOWERISH)) break;
    i += width(k);
  }
  return i;
}

/** Extends a letter pre-token ending at `end` by an English contraction suffix ('s, 'll, 're, ...). */
function withContraction(text: string, end: number, limit: number): number {
  if (end + 1 >= limit || text.charCodeAt(end) !== 39) return end;
  const a = text.charCodeAt(end + 1) | 0x20; // ASCII lower-case
  if (a === 115 || a === 100 || a === 109 || a === 116) return end + 2; // s d m t
  if (end + 2 >= limit) return end;
  const b = text.charCodeAt(end + 2) | 0x20;
  if ((a === 108 && b === 108) || (a === 118 && b === 101) || (a === 114 && b === 101)) return end + 3; // ll ve re
  return end;
}

// ASCII classes for the fast path.
const A_UPPER = 1;
const A_LOWER = 2;
const A_DIGIT = 4;
const A_SPACE = 8; // \t \v \f and space
const A_NEWLINE = 16; // \r \n
const A_OTHER = 32; // punctuation, symbols, control characters
const ASCII_CLASSES: Uint8Array = (() => {
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    if (c >= 65 && c <= 90) table[c] = A_UPPER;
    else if (c >= 97 && c <= 122) table[c] = A_LOWER;
    else if (c >= 48 && c <= 57) table[c] = A_DIGIT;
    else if (c === 10 || c === 13) table[c] = A_NEWLINE;
    else if ((c >= 9 && c <= 12) || c === 32) table[c] = A_SPACE;
    else table[c] = A_OTHER;
  }
  return table;
})();

/**
 * `scanPreToken` for the common all-ASCII cases (words with their leading
 * space or punctuation, numbers, punctuation runs, whitespace), or -1 when a
 * non-ASCII character could change the outcome and the general scanner must
 * decide. Most of English text and code never leaves this path.
 */
function scanAscii(text: string, pos: number, limit: number): number {
  const c0 = text.charCodeAt(pos);
  if (c0 >= 128) return -1;
  const k0 = ASCII_CLASSES[c0]!;
  let letters = -1;
  if (k0 & (A_UPPER | A_LOWER)) letters = pos;
  else if (!(k0 & (A_DIGIT | A_NEWLINE)) && pos + 1 < limit) {
    const c1 = text.charCodeAt(pos + 1);
    if (c1 >= 128) return -1;
    if (ASCII_CLASSES[c1]! & (A_UPPER | A_LOWER)) letters = pos + 1; // a prefix and a word
  }
  if (letters >= 0) {
    // [A-Z]*[a-z]+ or else [A-Z]+, then a contraction.
    let i = letters;
    let c = 0;
    while (i < limit && (c = text.charCodeAt(i)) >= 65 && c <= 90) i++;
    const upperEnd = i;
    while (i < limit && (c = text.charCodeAt(i)) >= 97 && c <= 122) i++;
    if (i < limit && text.charCodeAt(i) >= 128) return -1; // a letter or mark could continue the run
    return withContraction(text, i > upperEnd ? i : upperEnd, limit);
  }
  if (k0 & A_DIGIT) {
    let i = pos + 1;
    for (let n = 1; n < 3 && i < limit; n++) {
      const c = text.charCodeAt(i);
      if (c >= 128) return -1;
      if (!(ASCII_CLASSES[c]! & A_DIGIT)) break;
      i++;
    }
    return i;
  }
  let i = pos;
  if (c0 === 32 && pos + 1 < limit && ASCII_CLASSES[text.charCodeAt(pos + 1)]! & A_OTHER) i = pos + 1;
  if (ASCII_CLASSES[text.charCodeAt(i)]! & A_OTHER) {
    // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
    let c = 0;
    while (++i < limit && (c = text.charCodeAt(i)) < 128 && ASCII_CLASSES[c]! & A_OTHER);
    if (i < limit && c >= 128) return -1;
    while (i < limit && ((c = text.charCodeAt(i)) === 10 || c === 13 || c === 47)) i++;
    return i;
  }
  // Whitespace run.
  let runEnd = pos;
  let afterLastNewline = -1;
  for (; runEnd < limit; runEnd++) {
    const c = text.charCodeAt(runEnd);
    if (c >= 128) return -1;
    const k = ASCII_CLASSES[c]!;
    if (!(k & (A_SPACE | A_NEWLINE))) break;
    if (k & A_NEWLINE) afterLastNewline = runEnd + 1;
  }
  if (afterLastNewline > 0) return afterLastNewline;
  if (runEnd === limit) return runEnd;
  if (runEnd - pos >= 2) return runEnd - 1;
  return runEnd;
}

/**
 * End of the o200k pre-token starting at `pos` in `text.slice(0, limit)`,
 * i.e. what `O200K_PATTERN` matches there. Mirrors the pattern's alternatives
 * in order, including how its greedy parts backtrack.
 */
export function scanPreToken(text: string, pos: number, limit: number): number {
  const fast = scanAscii(text, pos, limit);
  if (fast >= 0) return fast;
  const k0 = classAt(text, pos, limit);
  const c0 = text.charCodeAt(pos);
  const next = pos + width(k0);
  // `[^\r\n\p{L}\p{N}]` may prefix a letter run; marks (\p{M}) are both such a
  // prefix and letter-ish, so the pattern's order of attempts matters for them.
  const canPrefix = (k0 & (C_LETTER | C_NUMBER)) === 0 && c0 !== 10 && c0 !== 13;
  let end: number;
  if (canPrefix && (end = matchUpperThenLower(text, next, limit)) >= 0) return withContraction(text, end, limit);
  if (k0 & (C_UPPERISH | C_LOWERISH) && (end = matchUpperThenLower(text, pos, limit)) >= 0)
    return withContraction(text, end, limit);
  if (canPrefix && (end = matchUpperRun(text, next, limit)) >= 0) return withContraction(text, end, limit);
  if (k0 & C_UPPERISH && (end = matchUpperRun(text, pos, limit)) >= 0) return withContraction(text, end, limit);

  if (k0 & C_NUMBER) {
    // \p{N}{1,3}
    let i = next;
    for (let n = 1; n < 3 && i < limit; n++) {
      const k = classAt(text, i, limit);
      if (!(k & C_NUMBER)) break;
      i += width(k);
    }
    return i;
  }

  // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
  let i = pos;
  let k = k0;
  if (c0 === 32 && next < limit) {
    i = next;
    k = classAt(text, i, limit);
  }
  if (!(k & (C_SPACE | C_LETTER | C_NUMBER))) {
    do {
      i += width(k);
      if (i >= limit) return i;
      k = classAt(text, i, limit);
    } while (!(k & (C_SPACE | C_LETTER | C_NUMBER)));
    for (let c = text.charCodeAt(i); c === 10 || c === 13 || c === 47; c = text.charCodeAt(i)) {
      if (++i >= limit) break;
    }
    return i;
  }

  // Whitespace (every code point matches one of the alternatives above or this).
  let runEnd = pos;
  let afterLastNewline = -1;
  while (runEnd < limit && BMP_CLASSES[text.charCodeAt(runEnd)]! & C_SPACE) {
    const c = text.charCodeAt(runEnd++);
    if (c === 10 || c === 13) afterLastNewline = runEnd;
  }
  if (afterLastNewline > 0) return afterLastNewline; // \s*[\r\n]+
  if (runEnd === limit) return runEnd; // \s+(?!\S) at the end
  if (runEnd - pos >= 2) return runEnd - 1; // \s+(?!\S), leaving one space to prefix the next word
  return runEnd; // \s+
}

/** Every pre-token of `text`, as [start, end) offsets. For tests and tools; the counting paths never materialise this. */
export function preTokenize(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let pos = 0; pos < text.length;) {
    const end = scanPreToken(text, pos, text.length);
    out.push([pos, end]);
    pos = end;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Counting one pre-token: byte-pair encoding
// ---------------------------------------------------------------------------

/*
 * gpt-tokenizer's merge loop decodes UTF-8 for every pair it looks up
 * (~20 µs per uncached word), which would dominate a 10 MB document full of
 * distinct words. This one works on bytes: every token's bytes sit in one
 * arena, found through an open-addressing table keyed by a polynomial hash, and
 * the hash of two merged parts follows from the parts' hashes, so a lookup
 * allocates nothing and costs one probe plus a byte comparison.
 */

const HASH_MULTIPLIER = 0x01000193;
/** HASH_POWERS[k] = HASH_MULTIPLIER ** k (mod 2^32), for joining part hashes. */
const HASH_POWERS = new Int32Array(1025);
HASH_POWERS[0] = 1;
for (let k = 1; k < HASH_POWERS.length; k++) HASH_POWERS[k] = Math.imul(HASH_POWERS[k - 1]!, HASH_MULTIPLIER);

function hashPower(length: number): number {
  if (length < HASH_POWERS.length) return HASH_POWERS[length]!;
  let p = 1;
  for (let k = 0; k < length; k++) p = Math.imul(p, HASH_MULTIPLIER);
  return p;
}

/** Hash of the concatenation of parts with hashes `left` and `right`, `right` being `rightLength` bytes long. */
const joinHash = (left: number, right: number, rightLength: number) =>
  (Math.imul(left, hashPower(rightLength)) + right) | 0;

function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0;
  for (let i = start; i < end; i++) h = (Math.imul(h, HASH_MULTIPLIER) + bytes[i]!) | 0;
  return h;
}

const slotOf = (hash: number, mask: number) => (Math.imul(hash ^ (hash >>> 15), 0x2c1b3c6d) >>> 12) & mask;

/** Set by `writeUtf8` when it wrote U+FFFD for a lone surrogate. */
let wroteLoneSurrogate = false;

/** UTF-8 of `text[start, end)` into `out` at `at` (room for 3 bytes per code unit needed); returns the end. */
function writeUtf8(text: string, start: number, end: number, out: Uint8Array, at: number): number {
  wroteLoneSurrogate = false;
  for (let i = start; i < end; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      out[at++] = c;
      continue;
    }
    if (c < 0x800) {
      out[at++] = 0xc0 | (c >> 6);
      out[at++] = 0x80 | (c & 63);
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < end ? text.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        c = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
        i++;
        out[at++] = 0xf0 | (c >> 18);
        out[at++] = 0x80 | ((c >> 12) & 63);
        out[at++] = 0x80 | ((c >> 6) & 63);
        out[at++] = 0x80 | (c & 63);
        continue;
      }
      c = 0xfffd; // as TextEncoder writes a lone surrogate
      wroteLoneSurrogate = true;
    }
    out[at++] = 0xe0 | (c >> 12);
    out[at++] = 0x80 | ((c >> 6) & 63);
    out[at++] = 0x80 | (c & 63);
  }
  return at;
}

interface Vocabulary {
  /** Every token's bytes, one after another. */
  arena: Uint8Array;
  /** Open addressing, four ints a slot: rank + 1 (0 when empty), hash, arena offset, length; one cache line a probe. */
  slots: Int32Array;
  mask: number;
  /**
   * One bit per hash (mixed) of every token: most lookups during merging are
   * for byte strings that are no token, and this 512 KB filter, unlike the
   * table, stays in cache.
   */
  filter: Int32Array;
  /** Rank of every two-byte token by its bytes (b0 << 8 | b1), NO_RANK if none: the first merges of every piece. */
  pairs: Int32Array;
}

let vocabulary: Vocabulary | undefined;

/** No merge possible: ranks are compared as numbers, this is larger than any. */
const NO_RANK = 0x7fffffff;
const FILTER_BITS = 22;

const filterBit = (hash: number) => Math.imul(hash ^ (hash >>> 13), 0x5bd1e995) >>> (32 - FILTER_BITS);

/** Built from gpt-tokenizer's rank table on first use, once per process (~50 ms). */
function getVocabulary(): Vocabulary {
  if (vocabulary) return vocabulary;
  const count = bpeRanks.length;
  const offsets = new Int32Array(count + 1);
  let arena = new Uint8Array(count * 12);
  let at = 0;
  for (let rank = 0; rank < count; rank++) {
    offsets[rank] = at;
    const token = bpeRanks[rank];
    if (token === undefined) continue;
    const room = typeof token === "string" ? token.length * 3 : token.length;
    if (at + room > arena.length) {
      const grown = new Uint8Array(Math.max(arena.length * 2, at + room));
      grown.set(arena);
      arena = grown;
    }
    if (typeof token === "string") at = writeUtf8(token, 0, token.length, arena, at);
    else for (const byte of token) arena[at++] = byte;
  }
  offsets[count] = at;
  const size = 1 << Math.ceil(Math.log2(count * 2.5));
  const mask = size - 1;
  const slots = new Int32Array(size * 4);
  const filter = new Int32Array(1 << (FILTER_BITS - 5));
  const pairs = new Int32Array(1 << 16).fill(NO_RANK);
  for (let rank = 0; rank < count; rank++) {
    const from = offsets[rank]!;
    const to = offsets[rank + 1]!;
    if (from === to) continue;
    if (to - from === 2) pairs[(arena[from]! << 8) | arena[from + 1]!] = rank;
    const h = hashBytes(arena, from, to);
    const bit = filterBit(h);
    filter[bit >>> 5]! |= 1 << (bit & 31);
    let slot = slotOf(h, mask);
    while (slots[slot * 4] !== 0) slot = (slot + 1) & mask;
    slots[slot * 4] = rank + 1;
    slots[slot * 4 + 1] = h;
    slots[slot * 4 + 2] = from;
    slots[slot * 4 + 3] = to - from;
  }
  vocabulary = { arena: arena.slice(0, at), slots, mask, filter, pairs };
  return vocabulary;
}

/** Rank of the token whose bytes are bytes[start, end) (hash `h`), or NO_RANK. */
function rankOf(v: Vocabulary, bytes: Uint8Array, start: number, end: number, h: number): number {
  const length = end - start;
  if (length === 2) return v.pairs[(bytes[start]! << 8) | bytes[start + 1]!]!;
  const bit = filterBit(h);
  if ((v.filter[bit >>> 5]! & (1 << (bit & 31))) === 0) return NO_RANK;
  const { slots, arena, mask } = v;
  for (let slot = slotOf(h, mask); ; slot = (slot + 1) & mask) {
    const at = slot * 4;
    const entry = slots[at]!;
    if (entry === 0) return NO_RANK;
    if (slots[at + 1] !== h || slots[at + 3] !== length) continue;
    const from = slots[at + 2]!;
    let k = 0;
    while (k < length && arena[from + k] === bytes[start + k]) k++;
    if (k === length) return entry - 1;
  }
}

/** Pieces up to this many bytes merge with a plain scan for the lowest rank; longer ones use a heap. */
const SHORT_PIECE_BYTES = 256;
let pieceBytes = new Uint8Array(1024);
// Scratch for the merge loops, grown on demand: parts form a linked list over
// byte offsets, the part starting at i ending at nextOf[i].
let nextOf = new Int32Array(1024);
let prevOf = new Int32Array(1024);
let hashOf = new Int32Array(1024);
let rankAt = new Int32Array(1024);

function ensureScratch(n: number): void {
  if (nextOf.length > n) return;
  const size = 2 * (n + 1);
  nextOf = new Int32Array(size);
  prevOf = new Int32Array(size);
  hashOf = new Int32Array(size);
  rankAt = new Int32Array(size);
}

/**
 * Exact token count of the pre-token text[start, end): the same merges in
 * the same order as tiktoken and gpt-tokenizer. A piece that is itself a token
 * counts 1; otherwise the adjacent pair of lowest rank merges first, the
 * leftmost on ties, until no pair is a token.
 */
function countPreTokenRange(text: string, start: number, end: number): number {
  const v = getVocabulary();
  if (pieceBytes.length < (end - start) * 3) pieceBytes = new Uint8Array((end - start) * 3 * 2);
  const bytes = pieceBytes;
  const n = writeUtf8(text, start, end, bytes, 0);
  if (n <= 1) return n;
  // gpt-tokenizer looks the piece's text up before merging; text with a lone
  // surrogate never matches there, whatever its bytes.
  if (!wroteLoneSurrogate && rankOf(v, bytes, 0, n, hashBytes(bytes, 0, n)) !== NO_RANK) return 1;
  ensureScratch(n);
  for (let i = 0; i < n; i++) {
    nextOf[i] = i + 1;
    prevOf[i] = i - 1;
    hashOf[i] = bytes[i]!;
    rankAt[i] = i + 1 < n ? v.pairs[(bytes[i]! << 8) | bytes[i + 1]!]! : NO_RANK;
  }
  return n > SHORT_PIECE_BYTES ? mergeWithHeap(v, bytes, n) : mergeByScanning(v, bytes, n);
}

/** Rank of the part at `start` joined with the part after it; NO_RANK at the end. */
function pairRank(v: Vocabulary, bytes: Uint8Array, n: number, start: number): number {
  const mid = nextOf[start]!;
  if (mid >= n) return NO_RANK;
  const end = nextOf[mid]!;
  return rankOf(v, bytes, start, end, joinHash(hashOf[start]!, hashOf[mid]!, end - mid));
}

/** Joins the part at `start` with the next one. */
function merge(n: number, start: number): void {
  const mid = nextOf[start]!;
  const end = nextOf[mid]!;
  hashOf[start] = joinHash(hashOf[start]!, hashOf[mid]!, end - mid);
  nextOf[start] = end;
  if (end < n) prevOf[end] = start;
}

function mergeByScanning(v: Vocabulary, bytes: Uint8Array, n: number): number {
  let parts = n;
  for (;;) {
    let best = NO_RANK;
    let at = -1;
    for (let i = 0; i < n; i = nextOf[i]!) {
      if (rankAt[i]! < best) {
        best = rankAt[i]!;
        at = i;
      }
    }
    if (at < 0) return parts;
    merge(n, at);
    parts--;
    rankAt[at] = pairRank(v, bytes, n, at);
    if (at > 0) rankAt[prevOf[at]!] = pairRank(v, bytes, n, prevOf[at]!);
  }
}

const ABSORBED = -2;
// A binary heap of candidate merges ordered by (rank, start): rank, start of
// the left part, and end of the right part when pushed.
let heapRanks = new Int32Array(1024);
let heapStarts = new Int32Array(1024);
let heapEnds = new Int32Array(1024);
let heapSize = 0;

function heapBefore(a: number, b: number): boolean {
  const ra = heapRanks[a]!;
  const rb = heapRanks[b]!;
  return ra < rb || (ra === rb && heapStarts[a]! < heapStarts[b]!);
}

function heapSwap(a: number, b: number): void {
  const r = heapRanks[a]!;
  const s = heapStarts[a]!;
  const e = heapEnds[a]!;
  heapRanks[a] = heapRanks[b]!;
  heapStarts[a] = heapStarts[b]!;
  heapEnds[a] = heapEnds[b]!;
  heapRanks[b] = r;
  heapStarts[b] = s;
  heapEnds[b] = e;
}

function heapPush(rank: number, start: number, end: number): void {
  let i = heapSize++;
  heapRanks[i] = rank;
  heapStarts[i] = start;
  heapEnds[i] = end;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!heapBefore(i, parent)) break;
    heapSwap(i, parent);
    i = parent;
  }
}

function heapPop(): void {
  heapSwap(0, --heapSize);
  for (let i = 0; ;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < heapSize && heapBefore(l, m)) m = l;
    if (r < heapSize && heapBefore(r, m)) m = r;
    if (m === i) return;
    heapSwap(i, m);
    i = m;
  }
}

/** Queues the merge of the part at `start` with the next one, if that pair (of rank `rank`) is a token. */
function pushPair(start: number, rank: number): void {
  if (rank !== NO_RANK) heapPush(rank, start, nextOf[nextOf[start]!]!);
}

/**
 * The same merge order, O(n log n): pairs wait in a heap ordered by (rank,
 * position) instead of being rescanned after every merge, so a pre-token that
 * is a whole document (a long run of letters, CJK without punctuation,
 * padding) costs milliseconds, not minutes. An entry goes stale when either
 * of its parts merges elsewhere; it is recognised by its recorded end.
 */
function mergeWithHeap(v: Vocabulary, bytes: Uint8Array, n: number): number {
  // Each merge pushes at most two entries: 3n slots suffice.
  if (heapRanks.length < 3 * n) {
    heapRanks = new Int32Array(4 * n);
    heapStarts = new Int32Array(4 * n);
    heapEnds = new Int32Array(4 * n);
  }
  heapSize = 0;
  for (let i = 0; i < n - 1; i++) pushPair(i, rankAt[i]!);
  let parts = n;
  while (heapSize > 0) {
    const start = heapStarts[0]!;
    const end = heapEnds[0]!;
    heapPop();
    const mid = nextOf[start]!;
    // Stale: `start` was absorbed into the part before it, or its pair grew.
    if (prevOf[start] === ABSORBED || mid >= n || nextOf[mid] !== end) continue;
    merge(n, start);
    prevOf[mid] = ABSORBED;
    parts--;
    pushPair(start, pairRank(v, bytes, n, start));
    if (start > 0) pushPair(prevOf[start]!, pairRank(v, bytes, n, prevOf[start]!));
  }
  return parts;
}

/** Exact token count of one pre-token (a string `scanPreToken` returns whole). */
export function countPreToken(piece: string): number {
  return countPreTokenRange(piece, 0, piece.length);
}

/*
 * Counts of pre-tokens seen, keyed by their text without slicing it out of
 * the document: open addressing, probed with a hash computed in place
 * (`Map<string, number>` costs ~140 ns a lookup here: slice, hash, probe).
 * A slot is eight ints, half a cache line: count (0 = empty), hash, length and
 * the first ten UTF-16 units packed in pairs, so the usual piece (a word with
 * its leading space, punctuation, a newline) is matched without touching the
 * key string, which is kept only for longer pieces (up to MAX_CACHED_UNITS).
 * Cleared, not evicted, when half full: bounded memory (8 MB of slots plus at
 * most 131k short strings) on long-running servers, and a refill costs one
 * document's distinct words.
 */
const TABLE_BITS = 18;
const TABLE_SIZE = 1 << TABLE_BITS;
const TABLE_MASK = TABLE_SIZE - 1;
const SLOT_INTS = 8;
const INLINE_UNITS = 10;
let tableCells = new Int32Array(0);
/** Counts of one-code-unit pieces (punctuation, a newline, a lone letter) by code unit; 0 until first seen. */
const singleUnitCounts = new Uint8Array(0x10000);
let tableKeys: string[] = [];
let tableUsed = 0;

/** Forgets every cached pre-token count, so a benchmark run starts as cold as a fresh process (less the one-time vocabulary build). */
export function clearTokenCache(): void {
  singleUnitCounts.fill(0);
  tableCells.fill(0);
  tableKeys.fill("");
  tableUsed = 0;
}

/** UTF-16 units i and i + 1 of text[start, end) packed in one int (0 past the end). */
function unitPair(text: string, start: number, end: number, i: number): number {
  const p = start + i;
  if (p + 1 < end) return text.charCodeAt(p) | (text.charCodeAt(p + 1) << 16);
  return p < end ? text.charCodeAt(p) : 0;
}

/** Longer pre-tokens are counted afresh: they rarely repeat, and hashing and storing them costs more than it saves. */
const MAX_CACHED_UNITS = 256;

function countCached(text: string, start: number, end: number): number {
  const len = end - start;
  if (len === 1) {
    const c = text.charCodeAt(start);
    return singleUnitCounts[c] || (singleUnitCounts[c] = countPreTokenRange(text, start, end));
  }
  if (len > MAX_CACHED_UNITS) return countPreTokenRange(text, start, end);
  let h = 0x811c9dc5 ^ len;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 15;
  if (tableCells.length === 0) {
    tableCells = new Int32Array(TABLE_SIZE * SLOT_INTS);
    tableKeys = new Array<string>(TABLE_SIZE).fill("");
  }
  const cells = tableCells;
  let slot = h & TABLE_MASK;
  probe: for (; ; slot = (slot + 1) & TABLE_MASK) {
    const at = slot * SLOT_INTS;
    const count = cells[at]!;
    if (count === 0) break;
    if (cells[at + 1] !== h || cells[at + 2] !== len) continue;
    for (let k = 0; k < INLINE_UNITS && k < len; k += 2)
      if (cells[at + 3 + (k >> 1)] !== unitPair(text, start, end, k)) continue probe;
    if (len <= INLINE_UNITS) return count;
    const key = tableKeys[slot]!;
    let i = INLINE_UNITS;
    while (i < len && key.charCodeAt(i) === text.charCodeAt(start + i)) i++;
    if (i === len) return count;
  }
  const count = countPreTokenRange(text, start, end);
  if (tableUsed >= TABLE_SIZE >> 1) {
    clearTokenCache();
    slot = h & TABLE_MASK;
  }
  const at = slot * SLOT_INTS;
  cells[at] = count;
  cells[at + 1] = h;
  cells[at + 2] = len;
  for (let k = 0; k < INLINE_UNITS; k += 2) cells[at + 3 + (k >> 1)] = unitPair(text, start, end, k);
  if (len > INLINE_UNITS) tableKeys[slot] = text.slice(start, end);
  tableUsed++;
  return count;
}

// ---------------------------------------------------------------------------
// Public counting API
// ---------------------------------------------------------------------------

/** Exact o200k_base token count of `text`, equal to gpt-tokenizer's `encode(text).length`. */
export function countTokens(text: string): number {
  let total = 0;
  const limit = text.length;
  for (let pos = 0; pos < limit;) {
    const end = scanPreToken(text, pos, limit);
    total += countCached(text, pos, end);
    pos = end;
  }
  return total;
}

const isSpace = (code: number) => (BMP_CLASSES[code]! & C_SPACE) !== 0;

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
  /** Pre-token i is [starts[i], starts[i + 1]); starts[pieces] === text.length. */
  private readonly starts: Int32Array;
  /** cumulative[i]: tokens in pre-tokens 0 .. i-1. */
  private readonly cumulative: Float64Array;
  readonly pieces: number;

  constructor(text: string) {
    this.text = text;
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
