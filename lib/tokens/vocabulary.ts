/**
 * A byte-pair vocabulary (o200k_base, cl100k_base, Llama 3) as byte-pair
 * encoding looks it up: every token's bytes in one arena, found through an
 * open-addressing table keyed by a polynomial hash whose value for two joined
 * parts follows from the parts' hashes, so a lookup during merging allocates
 * nothing.
 */
import { writeUtf8 } from "./utf8";

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
export const joinHash = (left: number, right: number, rightLength: number) =>
  (Math.imul(left, hashPower(rightLength)) + right) | 0;

export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0;
  for (let i = start; i < end; i++) h = (Math.imul(h, HASH_MULTIPLIER) + bytes[i]!) | 0;
  return h;
}

const slotOf = (hash: number, mask: number) => (Math.imul(hash ^ (hash >>> 15), 0x2c1b3c6d) >>> 12) & mask;

export interface Vocabulary {
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

/** No merge possible: ranks are compared as numbers, this is larger than any. */
export const NO_RANK = 0x7fffffff;
const FILTER_BITS = 22;

const filterBit = (hash: number) => Math.imul(hash ^ (hash >>> 13), 0x5bd1e995) >>> (32 - FILTER_BITS);

/**
 * Built from a rank table (token i's text or bytes at index i, as
 * gpt-tokenizer ships them), once per tokenizer and process (~50 ms).
 */
export function buildVocabulary(bpeRanks: ArrayLike<string | ArrayLike<number> | undefined>): Vocabulary {
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
    else for (let k = 0; k < token.length; k++) arena[at++] = token[k]!;
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
  return { arena: arena.slice(0, at), slots, mask, filter, pairs };
}

/** Rank of the token whose bytes are bytes[start, end) (hash `h`), or NO_RANK. */
export function rankOf(v: Vocabulary, bytes: Uint8Array, start: number, end: number, h: number): number {
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
