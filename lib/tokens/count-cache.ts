/**
 * Counts of pre-tokens seen (one cache per tokenizer), keyed by their text without slicing it out of
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

export interface CountCache {
  /** Exact count of the pre-token text[start, end), from the cache when seen before. */
  count: (text: string, start: number, end: number) => number;
  /** Forgets every cached count, so a benchmark run starts as cold as a fresh process (less the one-time vocabulary build). */
  clear: () => void;
}

/** A cache in front of `countRange` (one tokenizer's exact count of a pre-token). */
export function createCountCache(countRange: (text: string, start: number, end: number) => number): CountCache {
  let tableCells = new Int32Array(0);
  /** Counts of one-code-unit pieces (punctuation, a newline, a lone letter) by code unit; 0 until first seen. */
  const singleUnitCounts = new Uint8Array(0x10000);
  let tableKeys: string[] = [];
  let tableUsed = 0;

  function clear(): void {
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
      return singleUnitCounts[c] || (singleUnitCounts[c] = countRange(text, start, end));
    }
    if (len > MAX_CACHED_UNITS) return countRange(text, start, end);
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
    const count = countRange(text, start, end);
    if (tableUsed >= TABLE_SIZE >> 1) {
      clear();
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
  return { count: countCached, clear };
}
