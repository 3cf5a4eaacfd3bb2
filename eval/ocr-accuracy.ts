/**
 * OCR against the text it should have found, word by word: lower-cased runs
 * of letters and digits, so Markdown marks and punctuation do not count.
 */

export const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * Word accuracy: 1 - (substituted + deleted + inserted words) / words
 * expected, at least 0; the word-level edit distance is the word error count
 * OCR evaluations report (ISRI's).
 */
export function wordAccuracy(expected: string, actual: string): number {
  const want = words(expected);
  const got = words(actual);
  if (want.length === 0) return got.length === 0 ? 1 : 0;
  // One row of the edit-distance table at a time: pages have ~500 words.
  let previous = Array.from({ length: got.length + 1 }, (_, j) => j);
  for (let i = 1; i <= want.length; i++) {
    const row = [i];
    for (let j = 1; j <= got.length; j++)
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (want[i - 1] === got[j - 1] ? 0 : 1));
    previous = row;
  }
  return Math.max(0, 1 - previous[got.length]! / want.length);
}

/**
 * For each word of `b`, the index of the word of `a` it lines up with in a
 * minimal edit script (an inserted word: the next word of `a`), so that a
 * position in an OCR'd copy can be read as a position in the original.
 */
export function alignWords(a: readonly string[], b: readonly string[]): number[] {
  const width = b.length + 1;
  const cost = new Int32Array((a.length + 1) * width);
  for (let j = 0; j <= b.length; j++) cost[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cost[i * width] = i;
    for (let j = 1; j <= b.length; j++)
      cost[i * width + j] = Math.min(
        cost[(i - 1) * width + j]! + 1,
        cost[i * width + j - 1]! + 1,
        cost[(i - 1) * width + j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
  }
  const map = new Array<number>(b.length);
  let i = a.length;
  let j = b.length;
  while (j > 0) {
    const here = cost[i * width + j]!;
    if (i > 0 && here === cost[(i - 1) * width + j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)) {
      map[--j] = --i;
    } else if (here === cost[i * width + j - 1]! + 1) {
      map[--j] = i;
    } else i--;
  }
  return map;
}
