/**
 * Chunk-quality metrics, as pure functions over ranges. Positions are
 * whatever unit the caller measures in: `scale` maps a character offset to a
 * position (the harness passes o200k token positions, tests pass characters).
 */

/** A half-open range [start, end) of the extracted text, in UTF-16 offsets. */
export interface Range {
  start: number;
  end: number;
}

/** Maps a character offset to a position in the unit being measured; must be non-decreasing. */
export type Scale = (offset: number) => number;

export const characters: Scale = (offset) => offset;

/** True if one chunk holds the whole excerpt (by offsets, so chunks whose text was rewritten still count by the range they cover). */
export function containedWhole(excerpt: Range, chunks: readonly Range[]): boolean {
  return chunks.some((chunk) => chunk.start <= excerpt.start && chunk.end >= excerpt.end);
}

/**
 * The fewest chunks that together cover the excerpt: greedy interval cover,
 * which is optimal for intervals. Parts of the excerpt no chunk covers (text a
 * method dropped) are skipped; they then count against the IoU.
 */
export function minimalCover(excerpt: Range, chunks: readonly Range[]): Range[] {
  const touching = chunks
    .filter((c) => c.start < excerpt.end && c.end > excerpt.start)
    .sort((a, b) => a.start - b.start || b.end - a.end);
  const cover: Range[] = [];
  let position = excerpt.start;
  let i = 0;
  while (position < excerpt.end) {
    let best: Range | undefined;
    for (; i < touching.length && touching[i]!.start <= position; i++)
      if (!best || touching[i]!.end > best.end) best = touching[i];
    if (best && best.end > position) {
      cover.push(best);
      position = best.end;
    } else if (i < touching.length) {
      // Nothing covers `position`: jump the gap to the next chunk.
      position = touching[i]!.start;
    } else break;
  }
  return cover;
}

/** Sorted, merged union of ranges. */
export function union(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  const merged: Range[] = [];
  for (const r of sorted) {
    const last = merged[merged.length - 1];
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else merged.push({ start: r.start, end: r.end });
  }
  return merged;
}

function measure(ranges: readonly Range[], scale: Scale): number {
  return ranges.reduce((sum, r) => sum + (scale(r.end) - scale(r.start)), 0);
}

function intersect(a: readonly Range[], b: Range): Range[] {
  return a.flatMap((r) => {
    const start = Math.max(r.start, b.start);
    const end = Math.min(r.end, b.end);
    return end > start ? [{ start, end }] : [];
  });
}

/**
 * Intersection over union of the excerpt and the chunks that minimally cover
 * it (the Chroma report's IoU, per excerpt). 1 when one chunk is exactly the
 * excerpt; small when the excerpt is lost in large chunks.
 */
export function coverIoU(excerpt: Range, chunks: readonly Range[], scale: Scale = characters): number {
  const cover = union(minimalCover(excerpt, chunks));
  const inter = measure(intersect(cover, excerpt), scale);
  const total = measure(cover, scale) + (scale(excerpt.end) - scale(excerpt.start)) - inter;
  return total > 0 ? inter / total : 0;
}

export interface ExcerptScores {
  excerpts: number;
  /** Share of excerpts held whole by one chunk, 0..1. */
  whole: number;
  /** Mean of coverIoU over the excerpts. */
  iou: number;
}

export function scoreExcerpts(
  excerpts: readonly Range[],
  chunks: readonly Range[],
  scale: Scale = characters,
): ExcerptScores {
  if (excerpts.length === 0) return { excerpts: 0, whole: Number.NaN, iou: Number.NaN };
  let whole = 0;
  let iou = 0;
  for (const excerpt of excerpts) {
    if (containedWhole(excerpt, chunks)) whole++;
    iou += coverIoU(excerpt, chunks, scale);
  }
  return { excerpts: excerpts.length, whole: whole / excerpts.length, iou: iou / excerpts.length };
}

/**
 * Elements (code fences, table rows, list items) that a chunk boundary falls
 * strictly inside: some chunk starts or ends within the element's span.
 */
export function cutElements<T extends Range>(elements: readonly T[], chunks: readonly Range[]): T[] {
  const edges = [...new Set(chunks.flatMap((c) => [c.start, c.end]))].sort((a, b) => a - b);
  return elements.filter((element) => {
    // First edge greater than element.start; cut if it is below element.end.
    let lo = 0;
    let hi = edges.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (edges[mid]! <= element.start) lo = mid + 1;
      else hi = mid;
    }
    return lo < edges.length && edges[lo]! < element.end;
  });
}

export interface SizeStats {
  count: number;
  mean: number;
  /** Population standard deviation. */
  std: number;
}

export function sizeStats(sizes: readonly number[]): SizeStats {
  if (sizes.length === 0) return { count: 0, mean: Number.NaN, std: Number.NaN };
  const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
  const variance = sizes.reduce((a, b) => a + (b - mean) ** 2, 0) / sizes.length;
  return { count: sizes.length, mean, std: Math.sqrt(variance) };
}

// ---------------------------------------------------------------------------
// Segmentation
// ---------------------------------------------------------------------------

/**
 * A segmentation of `length` units, given by the positions where a new
 * segment starts (0 < b < length; 0 is implicit). Units are indexed 0..length-1.
 */
export interface Segmentation {
  length: number;
  boundaries: readonly number[];
}

/** boundaryCount[i] = boundaries b with b <= i, for i in 0..length. */
function cumulativeBoundaries(s: Segmentation): Int32Array {
  const marks = new Int32Array(s.length + 1);
  for (const b of s.boundaries) if (b > 0 && b < s.length) marks[b] = 1;
  for (let i = 1; i <= s.length; i++) marks[i]! += marks[i - 1]!;
  return marks;
}

/** Half the mean true segment length, rounded, at least 1: the usual k for Pk and WindowDiff. */
export function defaultWindow(reference: Segmentation): number {
  const segments = new Set(reference.boundaries.filter((b) => b > 0 && b < reference.length)).size + 1;
  return Math.max(1, Math.round(reference.length / segments / 2));
}

function windowMetric(
  reference: Segmentation,
  hypothesis: Segmentation,
  k: number,
  differs: (ref: number, hyp: number) => boolean,
): number {
  if (reference.length !== hypothesis.length)
    throw new Error(`segmentations of different lengths: ${reference.length} and ${hypothesis.length}`);
  const n = reference.length;
  if (k < 1) throw new Error("k must be at least 1");
  if (n <= k) return 0;
  const ref = cumulativeBoundaries(reference);
  const hyp = cumulativeBoundaries(hypothesis);
  let errors = 0;
  // Window over units i and i + k: boundaries b with i < b <= i + k lie between them.
  for (let i = 0; i + k < n; i++) if (differs(ref[i + k]! - ref[i]!, hyp[i + k]! - hyp[i]!)) errors++;
  return errors / (n - k);
}

/**
 * Pk (Beeferman, Berger and Lafferty 1999): the probability that two units k
 * apart are wrongly judged to be in the same or in different segments.
 */
export function pk(reference: Segmentation, hypothesis: Segmentation, k = defaultWindow(reference)): number {
  return windowMetric(reference, hypothesis, k, (r, h) => r > 0 !== h > 0);
}

/**
 * WindowDiff (Pevzner and Hearst 2002): the share of windows of k units in
 * which the two segmentations place a different number of boundaries.
 */
export function windowDiff(reference: Segmentation, hypothesis: Segmentation, k = defaultWindow(reference)): number {
  return windowMetric(reference, hypothesis, k, (r, h) => r !== h);
}
