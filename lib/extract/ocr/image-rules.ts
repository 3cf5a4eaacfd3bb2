/**
 * Rules drawn on a scanned page, found in its image: long thin runs of ink,
 * level or upright (a table's borders, the line under its header row). A
 * text PDF's rules come from its vector graphics (workers/extract-worker.mjs);
 * a scan's are pixels, and these are the same rectangles, so that table
 * recovery (`lib/extract/pdf-layout/tables/`) reads a scanned table's
 * borders as it reads a printed one's. One pass over the image for each
 * direction.
 */
import type { GreyImage } from "./ink";

/**
 * A rule is at least this long, in points: longer than any stroke of a
 * glyph up to 36 pt (a dash, an "l"), shorter than a table's border
 * around one cell of a few words.
 */
const RULE_MIN_POINTS = 36;
/** And at most this thick, in points (as for a text PDF's filled bars): thicker is a filled box or a picture. */
const RULE_MAX_POINTS = 2.5;
/** Runs this many pixels apart along a rule are one rule (a scan's speckle, a faint pixel). */
const RUN_GAP_PIXELS = 1;

/** A rule in the image's pixels (y down, ends exclusive). */
export interface PixelBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * The page's rules. Ink is what is darker than Otsu's threshold for the
 * page, so a shaded band (a zebra row) is not ink unless the page has
 * nothing lighter.
 */
export function imageRules(image: GreyImage, dpi: number, threshold = otsu(image)): PixelBox[] {
  const points = 72 / dpi;
  const minLength = Math.round(RULE_MIN_POINTS / points);
  const maxThickness = Math.max(1, Math.round(RULE_MAX_POINTS / points));
  const { pixels, width, height } = image;
  const boxes: PixelBox[] = [];
  // Level rules: runs along pixel rows, joined with the runs at the same place in the rows below.
  const alongRows = (row: number, x: number) => pixels[row * width + x]! < threshold;
  for (const rule of thinRuns(height, width, alongRows, minLength, maxThickness))
    boxes.push({ x0: rule.from, y0: rule.first, x1: rule.to, y1: rule.last + 1 });
  // Upright rules: the same along pixel columns.
  const alongColumns = (column: number, y: number) => pixels[y * width + column]! < threshold;
  for (const rule of thinRuns(width, height, alongColumns, minLength, maxThickness))
    boxes.push({ x0: rule.first, y0: rule.from, x1: rule.last + 1, y1: rule.to });
  return boxes;
}

interface Strip {
  /** Extent along the lines (pixels, end exclusive). */
  from: number;
  to: number;
  /** First and last line it covers, across. */
  first: number;
  last: number;
}

/**
 * Long runs of ink along each of `lines` lines of `length` pixels, each
 * joined with an overlapping run on the next line; those no thicker than
 * `maxThickness` lines.
 */
function thinRuns(
  lines: number,
  length: number,
  ink: (line: number, at: number) => boolean,
  minLength: number,
  maxThickness: number,
): Strip[] {
  const done: Strip[] = [];
  let open: Strip[] = [];
  for (let line = 0; line < lines; line++) {
    const runs: { from: number; to: number }[] = [];
    let start = -1;
    let lastInk = -1;
    for (let at = 0; at <= length; at++) {
      if (at < length && ink(line, at)) {
        if (start === -1 || at - lastInk > RUN_GAP_PIXELS) {
          if (start !== -1 && lastInk + 1 - start >= minLength) runs.push({ from: start, to: lastInk + 1 });
          start = at;
        }
        lastInk = at;
      }
    }
    if (start !== -1 && lastInk + 1 - start >= minLength) runs.push({ from: start, to: lastInk + 1 });
    const next: Strip[] = [];
    for (const run of runs) {
      const k = open.findIndex((s) => s.from < run.to && run.from < s.to);
      if (k !== -1) {
        const strip = open.splice(k, 1)[0]!;
        next.push({
          from: Math.min(strip.from, run.from),
          to: Math.max(strip.to, run.to),
          first: strip.first,
          last: line,
        });
      } else next.push({ ...run, first: line, last: line });
    }
    done.push(...open);
    open = next;
  }
  done.push(...open);
  return done.filter((s) => s.last - s.first + 1 <= maxThickness);
}

/** Otsu's threshold of the image's grey levels: the one that best parts ink from paper. */
export function otsu({ pixels }: GreyImage): number {
  const histogram = new Float64Array(256);
  for (let i = 0; i < pixels.length; i++) histogram[pixels[i]!]!++;
  const total = pixels.length;
  let sum = 0;
  for (let g = 0; g < 256; g++) sum += g * histogram[g]!;
  let below = 0;
  let sumBelow = 0;
  let best = 128;
  let bestVariance = -1;
  for (let g = 0; g < 256; g++) {
    below += histogram[g]!;
    if (below === 0) continue;
    const above = total - below;
    if (above === 0) break;
    sumBelow += g * histogram[g]!;
    const meanBelow = sumBelow / below;
    const meanAbove = (sum - sumBelow) / above;
    const variance = below * above * (meanBelow - meanAbove) ** 2;
    if (variance > bestVariance) {
      bestVariance = variance;
      best = g + 1;
    }
  }
  return best;
}
