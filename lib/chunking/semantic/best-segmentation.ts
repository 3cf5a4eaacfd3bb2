/**
 * The best way to cut a sequence of units into segments, by dynamic
 * programming: the cuts maximise the total gain of the gaps cut at, less a
 * penalty for every segment under a soft minimum size, subject to a hard
 * limit (each segment must fit, which the caller has worked out as
 * `maxEnd`).
 *
 * With no limit and no minimum this takes exactly the gaps of positive gain;
 * the limit adds the least bad extra cuts where a segment would not fit (the
 * gaps of highest gain inside it), and the minimum keeps a cut that would
 * leave a sliver from being taken unless its gain pays for the sliver.
 * O(units × units per segment).
 */

interface SegmentationProblem {
  /** Number of units. */
  units: number;
  /** gain[g]: what cutting at gap g (before unit g) is worth; index 0 unused. */
  gain: ArrayLike<number>;
  /** maxEnd[i]: units i .. maxEnd[i] - 1 fit in one segment; non-decreasing, > i. */
  maxEnd: ArrayLike<number>;
  /** tokensBefore[i]: tokens in units 0 .. i - 1 (length units + 1), for the soft minimum. */
  tokensBefore: ArrayLike<number>;
  minTokens: number;
  /** Penalty of a segment of no tokens; a segment of t < minTokens tokens pays (1 - t / minTokens) of it. */
  shortPenalty: number;
}

/** Indices of the units that start a segment, ascending, starting with 0 (empty for no units). */
export function bestSegmentation(p: SegmentationProblem): number[] {
  const n = p.units;
  if (n === 0) return [];
  const best = new Float64Array(n + 1).fill(-Infinity);
  const from = new Int32Array(n + 1);
  best[0] = 0;
  let lo = 0;
  for (let j = 1; j <= n; j++) {
    while (p.maxEnd[lo]! < j) lo++;
    for (let i = lo; i < j; i++) {
      if (best[i] === -Infinity) continue;
      const tokens = p.tokensBefore[j]! - p.tokensBefore[i]!;
      const short = tokens < p.minTokens ? p.shortPenalty * (1 - tokens / p.minTokens) : 0;
      const value = best[i]! + (i > 0 ? p.gain[i]! : 0) - short;
      if (value > best[j]!) {
        best[j] = value;
        from[j] = i;
      }
    }
  }
  const starts: number[] = [];
  for (let j = n; j > 0; j = from[j]!) starts.push(from[j]!);
  return starts.reverse();
}
