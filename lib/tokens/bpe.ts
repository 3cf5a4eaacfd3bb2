/**
 * Counting one pre-token by byte-pair encoding: the same merges in the same
 * order as tiktoken and gpt-tokenizer. gpt-tokenizer's merge loop decodes
 * UTF-8 for every pair it looks up (~20 µs per uncached word), which would
 * dominate a 10 MB document full of distinct words; this one works on bytes
 * (the vocabulary's lookups cost one probe plus a byte comparison).
 */
import { lastWriteHadLoneSurrogate, writeUtf8 } from "./utf8";
import { NO_RANK, type Vocabulary, hashBytes, joinHash, rankOf } from "./vocabulary";

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
export function countPreTokenRange(v: Vocabulary, text: string, start: number, end: number): number {
  if (pieceBytes.length < (end - start) * 3) pieceBytes = new Uint8Array((end - start) * 3 * 2);
  const bytes = pieceBytes;
  const n = writeUtf8(text, start, end, bytes, 0);
  if (n <= 1) return n;
  // gpt-tokenizer looks the piece's text up before merging; text with a lone
  // surrogate never matches there, whatever its bytes.
  if (!lastWriteHadLoneSurrogate() && rankOf(v, bytes, 0, n, hashBytes(bytes, 0, n)) !== NO_RANK) return 1;
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
