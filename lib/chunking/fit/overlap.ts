/**
 * Where a chunk's overlap (the tail of the chunk before, repeated at its
 * start) may begin, one rule for every tier: at a word start, the first
 * character of a word after whitespace or after a CJK full stop (Chinese and
 * Japanese put no space after one), never inside a grapheme cluster.
 * Whitespace is `isSpace`, \s as the tokenizer's pattern sees it, so a
 * no-break space or an ideographic space separates words as a space does,
 * and an overlap never opens with whitespace.
 *
 * Tiers choose among these starts (the semantic tier prefers whole units, the
 * structure tier a sentence start); none adds starts of its own.
 */
import { isGraphemeBoundary } from "../text/graphemes";
import { isSpace } from "../text/whitespace";

/** 。！？: a sentence ends there and the next one starts without a space. */
const isCjkFullStop = (c: number) => c === 0x3002 || c === 0xff01 || c === 0xff1f;

/** Whether an overlap may begin at offset `p` of `text`: a word start. */
export function isWordStart(text: string, p: number): boolean {
  if (p < 0 || p >= text.length || isSpace(text.charCodeAt(p))) return false;
  if (p === 0) return true;
  const before = text.charCodeAt(p - 1);
  return (isSpace(before) || isCjkFullStop(before)) && isGraphemeBoundary(text, p);
}

/** Whether the word start `q` opens a sentence: the last non-space character before it (after `floor`) ends one. */
export function opensSentence(text: string, q: number, floor = 0): boolean {
  let before = q - 1;
  while (before > floor && isSpace(text.charCodeAt(before))) before--;
  const c = text.charCodeAt(before);
  return c === 0x2e || c === 0x21 || c === 0x3f || isCjkFullStop(c);
}

/** The word starts in [from, to), ascending. */
export function wordStarts(text: string, from: number, to: number): number[] {
  const out: number[] = [];
  for (let p = Math.max(0, from); p < to; p++) if (isWordStart(text, p)) out.push(p);
  return out;
}

/**
 * The first of `candidates` (ascending offsets) that `fits`, or -1. A tail
 * holds fewer tokens the later it starts, so `fits` is false up to some
 * candidate and true from there on (up to BPE's small wobbles), and this is
 * a bisection. Given `near`, where the caller expects the answer, it starts
 * at the first candidate there and gallops away from it, so a close guess
 * costs few calls of `fits` (each an exact token count).
 */
export function earliestFitting(
  candidates: readonly number[],
  fits: (start: number) => boolean,
  near?: number,
): number {
  const n = candidates.length;
  const at = (i: number) => fits(candidates[i]!);
  if (near === undefined || n === 0) {
    let lo = 0;
    let hi = n; // the first fitting index is in [lo, hi]
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (at(mid)) hi = mid;
      else lo = mid + 1;
    }
    return lo < n ? candidates[lo]! : -1;
  }
  const guess = Math.min(n - 1, lowerBound(candidates, near));
  let lo = -1; // at(lo) is false, or lo = -1
  let hi = n; // at(hi) is true, or hi = n
  if (at(guess)) {
    hi = guess;
    for (let step = 1; hi - step >= 0; step *= 2) {
      if (!at(hi - step)) {
        lo = hi - step;
        break;
      }
      hi -= step;
    }
  } else {
    lo = guess;
    for (let step = 1; lo + step < n; step *= 2) {
      if (at(lo + step)) {
        hi = lo + step;
        break;
      }
      lo += step;
    }
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (at(mid)) hi = mid;
    else lo = mid;
  }
  return hi < n ? candidates[hi]! : -1;
}

/** The earliest word start in [from, to) whose tail `fits`; -1 when none does. */
export function overlapStart(text: string, from: number, to: number, fits: (start: number) => boolean): number {
  return earliestFitting(wordStarts(text, from, to), fits);
}

/** Index of the first value ≥ target in an ascending array (its length if none). */
function lowerBound(values: readonly number[], target: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
