/** Chunk sizes binned for the results view's histogram. */
export interface Bin {
  /** Inclusive token range. */
  from: number;
  to: number;
  count: number;
}

/**
 * `binCount` equal-width bins from 0 to `ceiling` (the `max_tokens` used, so
 * a full last bin means chunks packed to the limit); sizes above it, which the
 * service never makes, land in the last bin rather than vanishing.
 */
export function histogram(sizes: readonly number[], ceiling: number, binCount = 12): Bin[] {
  const top = Math.max(ceiling, 1);
  const width = Math.max(1, Math.ceil(top / binCount));
  const bins: Bin[] = Array.from({ length: Math.ceil(top / width) }, (_, i) => ({
    from: i * width + 1,
    to: Math.min(top, (i + 1) * width),
    count: 0,
  }));
  for (const size of sizes) {
    const i = Math.min(bins.length - 1, Math.max(0, Math.ceil(size / width) - 1));
    bins[i]!.count++;
  }
  return bins;
}

export interface SizeStats {
  min: number;
  median: number;
  max: number;
  mean: number;
}

export function sizeStats(sizes: readonly number[]): SizeStats | null {
  if (sizes.length === 0) return null;
  const sorted = [...sizes].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
  return {
    min: sorted[0]!,
    median,
    max: sorted.at(-1)!,
    mean: Math.round(sorted.reduce((a, b) => a + b, 0) / sorted.length),
  };
}
