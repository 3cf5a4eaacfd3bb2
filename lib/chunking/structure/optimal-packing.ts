/**
 * Optimal packing of a sequence of units into chunks: the partition into
 * runs of consecutive units that minimises the sum of the runs' costs, each
 * run fitting the size limit (dynamic programming over the run's first unit,
 * as in optimal line breaking).
 *
 * Greedy filling cuts wherever the limit happens to fall; the optimum trades
 * one more chunk against cutting at a weaker boundary, and balances sizes.
 * Cost: O(units × units per chunk).
 */

interface PackingProblem {
  /** Number of units. */
  units: number;
  /**
   * Whether units i .. j-1 can still fit when started further left: false
   * once they are already too big. Must be monotone: if reach(i, j) is false,
   * so is reach(i - 1, j). The search over i stops there.
   */
  reach: (i: number, j: number) => boolean;
  /** Cost of the chunk of units i .. j-1 (Infinity: not allowed), assuming it fits. */
  cost: (i: number, j: number) => number;
  /** Whether units i .. j-1 fit in one chunk; asked only of candidates that would improve the optimum (may be costly). */
  fits: (i: number, j: number) => boolean;
}

/** First-unit indices of the chunks of an optimal packing (the first is 0). Throws if a single unit does not fit. */
export function pack(problem: PackingProblem): number[] {
  const n = problem.units;
  const best = new Float64Array(n + 1).fill(Infinity);
  const from = new Int32Array(n + 1).fill(-1);
  best[0] = 0;
  for (let j = 1; j <= n; j++) {
    for (let i = j - 1; i >= 0; i--) {
      if (!problem.reach(i, j)) break;
      if (best[i] === Infinity) continue;
      const total = best[i]! + problem.cost(i, j);
      if (total < best[j]! && problem.fits(i, j)) {
        best[j] = total;
        from[j] = i;
      }
    }
    if (from[j]! < 0) throw new Error(`no packing reaches unit ${j - 1}: it does not fit alone`);
  }
  const starts: number[] = [];
  for (let j = n; j > 0; j = from[j]!) starts.push(from[j]!);
  return starts.reverse();
}
