import { type Band, isTabular, type PlacedItem, ROW_GAP_EM, toBands } from "./scan-order";

/**
 * Table columns set closer than a cell's gap, parted by their alignment.
 * Words are cut into cells where their gap is wider than an em
 * (`word-items.ts`), but an unruled table's narrow first column (a row
 * number, a code) can stand less than an em from the next: "70 Michael"
 * comes back as one cell, and the table loses a column. A column is more
 * than one gap, though: down the rows its cells start at one x. Where the
 * cells of three rows or more each have a word starting at the same x, and
 * another row of the table has a cell of its own starting there (the
 * column's header, set apart), that x is a column's edge and those cells are
 * parted at it. Only in bands of cells (two or more items of at most four
 * words): a line of prose, or of code, is one item and never parted.
 */

export interface SplittableItem extends PlacedItem {
  /** Its words, left to right, in points: their texts joined by spaces are the item's text. */
  parts?: { text: string; x: number; width: number }[];
}

/** Word starts within this many sizes of one another are aligned (a glyph's ink starts a pixel or two from its box). */
const ALIGN_EM = 0.4;
/** Rows whose cells have a word starting at the edge, the one parted included. */
const MIN_ALIGNED_ROWS = 3;

export function splitAtColumns<T extends SplittableItem>(items: T[]): T[] {
  const level = (i: number) => items[i]!.level ?? items[i]!.y;
  const bands = toBands(items, level).filter((band) => isTabular(band, items));
  const cuts = new Map<number, number[]>();
  bands.forEach((band, k) => {
    for (const i of band.items) {
      const parts = items[i]!.parts ?? [];
      for (const [p, part] of parts.entries()) {
        if (p === 0) continue;
        if (columnEdge(part.x, k, bands, items)) cuts.set(i, [...(cuts.get(i) ?? []), p]);
      }
    }
  });
  return items.flatMap((item, i) => {
    const at = cuts.get(i);
    if (!at) return [item];
    const parts = item.parts!;
    return [0, ...at].map((from, n) => {
      const piece = parts.slice(from, at[n] ?? parts.length);
      const x = piece[0]!.x;
      const last = piece.at(-1)!;
      return { ...item, text: piece.map((w) => w.text).join(" "), x, width: last.x + last.width - x, parts: piece };
    });
  });
}

/**
 * Whether `x` is a column's edge around band `k`: in the bands of cells
 * next to it (each within a row's gap of the one before), three or more
 * with a word of a cell starting at `x`, one with a cell starting there,
 * and none with a cell running across it otherwise.
 */
function columnEdge(x: number, k: number, bands: Band[], items: SplittableItem[]): boolean {
  const tolerance = ALIGN_EM * bands[k]!.size;
  const near = (a: number) => Math.abs(a - x) <= tolerance;
  let aligned = 0;
  let starts = 0;
  const visit = (band: Band): boolean => {
    for (const i of band.items) {
      const item = items[i]!;
      if (near(item.x)) {
        starts++;
        return true;
      }
      if ((item.parts ?? []).some((part, p) => p > 0 && near(part.x))) {
        aligned++;
        return true;
      }
      if (item.x < x && item.x + item.width > x) return false;
    }
    return true;
  };
  if (!visit(bands[k]!)) return false;
  for (const step of [-1, 1]) {
    for (let j = k + step; j >= 0 && j < bands.length; j += step) {
      const [upper, lower] = step < 0 ? [bands[j]!, bands[j + 1]!] : [bands[j - 1]!, bands[j]!];
      if (upper.y - lower.y > ROW_GAP_EM * Math.max(upper.size, lower.size)) break;
      if (!visit(bands[j]!)) break;
    }
  }
  return aligned >= MIN_ALIGNED_ROWS && starts >= 1;
}
