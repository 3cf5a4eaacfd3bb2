/** The body text of a document: its usual size and font, and the line spacing each size is set with. */
import { type Line, roundSize } from "./lines";

/** Set this much larger than the body text, a short block is a heading (headings.ts; blocks.ts keeps such a line out of an indented block). */
export const HEADING_MIN_RATIO = 1.15;

export interface BodyStyle {
  /** The size most characters of the document are set in. */
  size: number;
  /** The font most body-size characters are set in. */
  font: string;
}

export function bodyStyle(lines: Line[]): BodyStyle {
  const bySize = new Map<number, number>();
  for (const line of lines)
    bySize.set(roundSize(line.size), (bySize.get(roundSize(line.size)) ?? 0) + line.text.length);
  const size = argmax(bySize) ?? 0;
  const byFont = new Map<string, number>();
  for (const line of lines)
    if (roundSize(line.size) === size) byFont.set(line.font, (byFont.get(line.font) ?? 0) + line.text.length);
  return { size, font: argmax(byFont) ?? "" };
}

export function argmax<K>(counts: Map<K, number>): K | undefined {
  let best: K | undefined;
  let most = -1;
  for (const [key, n] of counts) {
    if (n > most) {
      best = key;
      most = n;
    }
  }
  return best;
}

/** Ordinary baseline-to-baseline distance for a size, as the document is set. */
export type Leading = (size: number) => number;

export function leadingBySize(pages: Line[][], body: BodyStyle): Leading {
  const gaps = new Map<number, number[]>();
  for (const lines of pages) {
    for (let i = 1; i < lines.length; i++) {
      const [a, b] = [lines[i - 1]!, lines[i]!];
      const dy = a.y - b.y;
      if (roundSize(a.size) !== roundSize(b.size) || dy <= 0 || dy > 3 * a.size) continue;
      const list = gaps.get(roundSize(a.size)) ?? [];
      list.push(dy);
      gaps.set(roundSize(a.size), list);
    }
  }
  // The lower quartile, not the median: in a document of short paragraphs, gaps between them can outnumber gaps within them.
  const quartile = (list: number[] | undefined) =>
    list && list.length >= 3 ? list.sort((x, y) => x - y)[Math.floor(list.length / 4)] : undefined;
  const bodyLeading = quartile(gaps.get(body.size));
  const cache = new Map<number, number>();
  return (size) => {
    const key = roundSize(size);
    let leading = cache.get(key);
    if (leading === undefined) {
      leading =
        quartile(gaps.get(key)) ??
        (bodyLeading !== undefined && body.size > 0 ? (bodyLeading * size) / body.size : 1.2 * size);
      cache.set(key, leading);
    }
    return leading;
  };
}
