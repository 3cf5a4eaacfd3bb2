/**
 * How strongly the topic shifts at each gap between neighbouring units
 * (sentences) of a document: TextTiling's depth scores (Hearst, 1997,
 * "TextTiling: Segmenting Text into Multi-paragraph Subtopic Passages"),
 * computed on any unit vectors (a model's embeddings, hashed words) instead of
 * word counts. Step 1 is `blockSimilarity`, step 2 `shiftsOf`.
 *
 * 1. Similarity at a gap: the cosine between the sum of the unit vectors in
 *    a block before the gap and the sum of those in a block after it. A
 *    block takes units until it holds `blockTokens` tokens (at most
 *    `maxBlockUnits` units), so a run of short lines weighs like one
 *    paragraph and a long sentence is not drowned out by its neighbours.
 * 2. Depth at a gap: how far the similarity falls there from the nearest
 *    peaks on either side, climbing from the gap while the similarity rises
 *    (left peak − s) + (right peak − s). A gap inside a long, uniformly
 *    dissimilar stretch scores low; a clear valley between two coherent
 *    stretches scores high, whatever the document's overall level of
 *    similarity — which differs a lot between embedders and between texts.
 */

interface TopicShiftOptions {
  blockTokens: number;
  maxBlockUnits: number;
}

interface TopicShifts {
  /** similarity[g]: between the blocks before and after gap g (gap g lies before unit g; index 0 unused). */
  similarity: Float64Array;
  /** depth[g]: TextTiling depth of gap g (index 0 unused). */
  depth: Float64Array;
  /** Whether gap g is a local minimum of the similarity curve (a valley). */
  valley: Uint8Array;
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

function addInto(sum: Float64Array, v: Float32Array, sign: number): void {
  for (let i = 0; i < sum.length; i++) sum[i]! += sign * v[i]!;
}

/** similarity[g]: the cosine between the blocks of units before and after gap g (index 0 unused). */
export function blockSimilarity(
  vectors: readonly Float32Array[],
  unitTokens: ArrayLike<number>,
  options: TopicShiftOptions,
): Float64Array {
  const n = vectors.length;
  const dims = n > 0 ? vectors[0]!.length : 0;
  const similarity = new Float64Array(n);
  // Running sums of the blocks [from, g) and [g, to): both edges only move right as g does,
  // so each vector enters and leaves each sum once.
  const left = new Float64Array(dims);
  const right = new Float64Array(dims);
  let from = 0;
  let to = 1;
  let rightTokens = 0;
  for (let g = 1; g < n; g++) {
    // Left block: units before g, back to `blockTokens` tokens or `maxBlockUnits` units.
    addInto(left, vectors[g - 1]!, 1);
    let leftTokens = 0;
    let start = g;
    while (start > from && g - start < options.maxBlockUnits && leftTokens < options.blockTokens)
      leftTokens += unitTokens[--start]!;
    for (; from < start; from++) addInto(left, vectors[from]!, -1);
    // Right block: units from g on, as far. Unit g - 1 has just moved to the left block.
    if (g > 1) {
      addInto(right, vectors[g - 1]!, -1);
      rightTokens -= unitTokens[g - 1]!;
    }
    while (to < n && to - g < options.maxBlockUnits && rightTokens < options.blockTokens) {
      addInto(right, vectors[to]!, 1);
      rightTokens += unitTokens[to++]!;
    }
    similarity[g] = cosine(left, right);
  }
  return similarity;
}

/** Depths and valleys of a similarity curve (step 2). */
export function shiftsOf(similarity: Float64Array): TopicShifts {
  const n = similarity.length;
  // Peaks reached climbing from each gap while the similarity rises, left and right.
  const leftPeak = new Float64Array(n);
  const rightPeak = new Float64Array(n);
  for (let g = 1; g < n; g++)
    leftPeak[g] = g > 1 && similarity[g - 1]! >= similarity[g]! ? leftPeak[g - 1]! : similarity[g]!;
  for (let g = n - 1; g >= 1; g--)
    rightPeak[g] = g < n - 1 && similarity[g + 1]! >= similarity[g]! ? rightPeak[g + 1]! : similarity[g]!;
  const depth = new Float64Array(n);
  const valley = new Uint8Array(n);
  for (let g = 1; g < n; g++) {
    depth[g] = leftPeak[g]! - similarity[g]! + (rightPeak[g]! - similarity[g]!);
    const before = g > 1 ? similarity[g - 1]! : Infinity;
    const after = g < n - 1 ? similarity[g + 1]! : Infinity;
    valley[g] = similarity[g]! <= before && similarity[g]! <= after ? 1 : 0;
  }
  return { similarity, depth, valley };
}
