/**
 * The soft minimum chunk size, enforced after segmentation: a segment of
 * fewer than `minTokens` tokens (a lone heading, a list item, a short line
 * the similarities set apart) joins the neighbour it is more similar to — by
 * cosine between the sum of its unit vectors and the sum of the neighbour's
 * nearest `NEAR_UNITS` units — when the two fit in one chunk, and stays as
 * it is when neither does.
 *
 * One pass from left to right: a small segment that joins the next one is
 * looked at again as part of it, so runs of small segments gather until
 * they are big enough or nothing more fits.
 */

interface SmallSegmentProblem {
  /** Start unit of each segment, ascending, the first 0. */
  starts: readonly number[];
  units: number;
  vectors: readonly Float32Array[];
  /** tokensBefore[i]: tokens in units 0 .. i - 1. */
  tokensBefore: ArrayLike<number>;
  /** maxEnd[i]: units i .. maxEnd[i] - 1 fit in one chunk. */
  maxEnd: ArrayLike<number>;
  minTokens: number;
}

/** How much of a neighbour is compared: the text next to the small segment, which it would join. */
const NEAR_UNITS = 8;

/** Cosine between the sums of the vectors of units [a, aEnd) and [b, bEnd). */
function similarity(vectors: readonly Float32Array[], a: number, aEnd: number, b: number, bEnd: number): number {
  const dims = vectors[a]!.length;
  const x = new Float64Array(dims);
  const y = new Float64Array(dims);
  for (let u = a; u < aEnd; u++) for (let i = 0; i < dims; i++) x[i]! += vectors[u]![i]!;
  for (let u = b; u < bEnd; u++) for (let i = 0; i < dims; i++) y[i]! += vectors[u]![i]!;
  let dot = 0;
  let nx = 0;
  let ny = 0;
  for (let i = 0; i < dims; i++) {
    dot += x[i]! * y[i]!;
    nx += x[i]! * x[i]!;
    ny += y[i]! * y[i]!;
  }
  return nx > 0 && ny > 0 ? dot / Math.sqrt(nx * ny) : 0;
}

/** The segment starts after merging small segments into their more similar neighbours. */
export function mergeSmallSegments(p: SmallSegmentProblem): number[] {
  const { starts, units, vectors, tokensBefore, maxEnd, minTokens } = p;
  const endOf = (k: number) => starts[k + 1] ?? units;
  const tokens = (first: number, end: number) => tokensBefore[end]! - tokensBefore[first]!;
  const fits = (first: number, end: number) => maxEnd[first]! >= end;
  // Merged segments as [first, end) pairs.
  const out: Array<[number, number]> = [];
  let carry = -1; // start of a small segment waiting to join the next one
  for (let k = 0; k < starts.length; k++) {
    const end = endOf(k);
    out.push([carry >= 0 ? carry : starts[k]!, end]);
    carry = -1;
    const [first] = out[out.length - 1]!;
    if (tokens(first, end) >= minTokens) continue;
    const previous = out.length > 1 ? out[out.length - 2]! : undefined;
    const nextEnd = k + 1 < starts.length ? endOf(k + 1) : -1;
    const intoPrevious = previous !== undefined && fits(previous[0], end);
    const intoNext = nextEnd >= 0 && fits(first, nextEnd);
    if (!intoPrevious && !intoNext) continue;
    const preferPrevious =
      intoPrevious &&
      (!intoNext ||
        similarity(vectors, Math.max(previous[0], previous[1] - NEAR_UNITS), previous[1], first, end) >=
          similarity(vectors, first, end, end, Math.min(nextEnd, end + NEAR_UNITS)));
    out.pop();
    if (preferPrevious) previous[1] = end;
    else carry = first;
  }
  return out.map(([first]) => first);
}
