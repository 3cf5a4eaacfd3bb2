/**
 * Reading order for a scanned page's tables. Table recovery reads a table
 * from the order a producer writes it, row by row, each row's cells left to
 * right, a cell's wrapped lines together; Tesseract's order is its own: an
 * unruled table often comes back as column blocks, a header with a spanning
 * cell in any order. Here tables are found from positions alone and their
 * items written row by row; everything else keeps Tesseract's order, which
 * is the right one for prose, two page columns included.
 *
 * 1. bands: items on one baseline across the page (by their lines' `level`,
 *    the page's skew taken off);
 * 2. a table region: consecutive bands of two or more short items (cells,
 *    not prose lines) whose items line up under the band above;
 * 3. in a region, a band set half a row lower whose items sit between the
 *    above's (a cell centred over two rows) joins that band; a band of
 *    fewer items, a line's height lower and closer than the table's rows
 *    lie, each under a different item above, holds wrapped lines of those
 *    cells and follows them;
 * 4. the table's items get one baseline per row, levelled along the skew.
 *
 * Two page columns of prose never form a region: their lines are long.
 */

export interface PlacedItem {
  text: string;
  /** Left edge and baseline, y upwards (PDF user space), and size and width, in points. */
  x: number;
  y: number;
  size: number;
  width: number;
  /** Its line's baseline height at the page's left edge (default `y`): on a skewed page a row's cells share it, not `y`. */
  level?: number;
}

/** Baselines closer than this share of the size are one band (as in line recovery). */
const SAME_LINE_EM = 0.45;
/** A cell of more words than this is taken for a line of prose. */
const CELL_MAX_WORDS = 4;
/** Rows of a table follow each other within this many sizes, baseline to baseline. */
export const ROW_GAP_EM = 3;
/**
 * A cell's wrapped line lies at most this many sizes below the line before
 * it, and closer than WRAP_OF_PITCH of the table's usual distance between
 * baselines: an unruled table's rows can lie a line's height apart too.
 */
const WRAP_GAP_EM = 1.5;
const WRAP_OF_PITCH = 0.85;
/** A cell centred over two rows sits at most this many sizes below the first row's baseline. */
const HALF_ROW_EM = 1.3;
/**
 * A wrapped line lies at least this many sizes nearer the line above it than
 * the next band: a table's rows are set apart by their padding on top of the
 * line spacing (a line's baseline is read to a pixel, a fortieth of an em).
 */
const HUG_EM = 0.1;

export interface Band {
  y: number;
  size: number;
  /** Indices into the page's items, left to right. */
  items: number[];
}

export interface ScanOrder {
  /** The items' indices in reading order. */
  order: number[];
  /**
   * New baselines for the items of tables, levelled along the page's skew:
   * table recovery takes cells on baselines more than half a size apart for
   * different rows, and a row read as column blocks has each cell's
   * baseline from a line of its own, lower the further right on a page
   * turned clockwise.
   */
  baselines: Map<number, number>;
}

export function scanOrder(items: PlacedItem[]): ScanOrder {
  const level = (i: number) => items[i]!.level ?? items[i]!.y;
  const bands = toBands(items, level);
  const regions = tableRegions(bands, items);
  const placed = new Map<number, number[]>();
  const baselines = new Map<number, number>();
  for (const region of regions) {
    const order = regionOrder(region, items);
    placed.set(Math.min(...order), order);
    // Heights within the table kept as they are along the skew (a header cell centred over two rows stays between them).
    const first = order[0]!;
    for (const i of order) baselines.set(i, items[first]!.y + level(i) - level(first));
  }
  const order: number[] = [];
  items.forEach((_, i) => {
    const region = placed.get(i);
    if (region) order.push(...region);
    else if (!baselines.has(i)) order.push(i);
  });
  return { order, baselines };
}

export function toBands(items: PlacedItem[], level: (i: number) => number): Band[] {
  const sorted = items.map((_, i) => i).sort((a, b) => level(b) - level(a) || items[a]!.x - items[b]!.x);
  const bands: Band[] = [];
  for (const i of sorted) {
    const band = bands.at(-1);
    const size = items[i]!.size;
    if (band && band.y - level(i) <= SAME_LINE_EM * Math.max(size, band.size)) band.items.push(i);
    else bands.push({ y: level(i), size, items: [i] });
  }
  for (const band of bands) band.items.sort((a, b) => items[a]!.x - items[b]!.x);
  return bands;
}

const words = (item: PlacedItem) => item.text.split(/\s+/).filter((w) => w !== "").length;
const isCell = (item: PlacedItem) => words(item) <= CELL_MAX_WORDS;
export const isTabular = (band: Band, items: PlacedItem[]) =>
  band.items.length >= 2 && band.items.every((i) => isCell(items[i]!));

function overlaps(a: PlacedItem, b: PlacedItem): boolean {
  return Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x) > 0;
}

/** How many of `band`'s items overlap, across, an item of `above`. */
function underneath(band: Band, above: Band, items: PlacedItem[]): number {
  return band.items.filter((i) => above.items.some((j) => overlaps(items[i]!, items[j]!))).length;
}

/**
 * Runs of bands that are a table: two or more tabular bands, each with two
 * items under items of the bands above it, and between them bands of one
 * short item (a wrapped line of a cell, a row label). A band of one item
 * half a row above the first, between its items, is a cell centred over
 * two columns of a header: the table starts there.
 */
function tableRegions(bands: Band[], items: PlacedItem[]): Band[][] {
  const regions: Band[][] = [];
  let run: Band[] = [];
  const flush = () => {
    while (run.length > 0 && !isTabular(run.at(-1)!, items) && !lastWrap(run, items)) run.pop();
    if (run.filter((b) => isTabular(b, items)).length >= 2) regions.push(run);
    run = [];
  };
  bands.forEach((band, k) => {
    const previous = run.at(-1);
    const near = previous !== undefined && previous.y - band.y <= ROW_GAP_EM * Math.max(band.size, previous.size);
    const single = band.items.length === 1 && isCell(items[band.items[0]!]!);
    if (isTabular(band, items)) {
      const above = { ...band, items: run.flatMap((b) => b.items) };
      if (!(near && underneath(band, above, items) >= 2)) {
        flush();
        const before = bands[k - 1];
        if (before && before.items.length === 1 && spanningHeader(before, band, items)) run.push(before);
      }
      run.push(band);
    } else if (near && single && run.some((b) => isTabular(b, items))) {
      run.push(band);
    } else {
      flush();
    }
  });
  flush();
  return regions;
}

/**
 * Whether the run's last band, one short item, is the wrapped line of the
 * last row's cell: a line's height under it, in a column where a row above
 * wrapped too. Without the second, a caption or a paragraph set close under
 * a table would join it.
 */
function lastWrap(run: Band[], items: PlacedItem[]): boolean {
  const [before, last] = run.slice(-2);
  if (!before || !last || last.items.length !== 1 || !isCell(items[last.items[0]!]!)) return false;
  if (before.y - last.y > WRAP_GAP_EM * Math.max(before.size, last.size)) return false;
  const item = items[last.items[0]!]!;
  const wrapsHere = (band: Band) => !isTabular(band, items) && band.items.some((i) => overlaps(items[i]!, item));
  return run.slice(0, -2).some(wrapsHere);
}

/** `above`'s one item, half a row above `band`, between its first and last item and over none of them. */
function spanningHeader(above: Band, band: Band, items: PlacedItem[]): boolean {
  const item = items[above.items[0]!]!;
  const first = items[band.items[0]!]!;
  const last = items[band.items.at(-1)!]!;
  return (
    isCell(item) &&
    above.y - band.y <= HALF_ROW_EM * Math.max(above.size, band.size) &&
    item.x > first.x + first.width &&
    item.x + item.width < last.x &&
    underneath(above, band, items) === 0
  );
}

/** A region's items row by row, each row left to right, wrapped lines after the line they continue. */
function regionOrder(region: Band[], items: PlacedItem[]): number[] {
  const rows: { band: Band; lines: number[][] }[] = [];
  const pitch = median(region.slice(1).map((band, k) => region[k]!.y - band.y));
  const rowPitch = fullRowPitch(region);
  region.forEach((band, k) => {
    const row = rows.at(-1);
    const gap = row ? row.band.y - band.y : Infinity;
    const size = Math.max(band.size, row?.band.size ?? 0);
    const clear = row !== undefined && underneath(band, row.band, items) === 0;
    if (row && clear && gap <= HALF_ROW_EM * size) {
      // A cell centred over two rows: in the upper one, in its place from the left.
      row.band = { ...row.band, items: [...row.band.items, ...band.items].sort((a, b) => items[a]!.x - items[b]!.x) };
      row.lines = row.band.items.map((i) => row.lines.find((l) => l[0] === i) ?? [i]);
      return;
    }
    const under = row ? continued(band, row.band, items) : undefined;
    const next = region[k + 1];
    // A wrapped line hugs the line it continues: nearer to it than to the row after by a tenth of an em or more.
    const hugs = next === undefined || band.y - next.y > gap + HUG_EM * size;
    const wrapped =
      gap <= WRAP_GAP_EM * band.size &&
      (gap < WRAP_OF_PITCH * pitch || (rowPitch !== undefined && gap < WRAP_OF_PITCH * rowPitch && hugs));
    if (row && under && wrapped && band.items.length < row.band.items.length) {
      under.forEach((above, j) => row.lines.find((l) => l.includes(above))!.push(band.items[j]!));
      // The next wrapped line continues these.
      row.band = { ...band, items: row.band.items.map((i) => (under.includes(i) ? band.items[under.indexOf(i)]! : i)) };
      return;
    }
    rows.push({ band, lines: band.items.map((i) => [i]) });
  });
  return rows.flatMap((row) => row.lines.flat());
}

/**
 * The usual distance from one full row (a band of as many items as any in
 * the region) to the next, when two pairs or more tell it. Where every row's cell wraps, half
 * the region's baselines are wrapped lines, and the median distance between
 * baselines is a line's, not a row's: a full row to the next full row is.
 */
function fullRowPitch(region: Band[]): number | undefined {
  const most = Math.max(...region.map((band) => band.items.length));
  const full = region.filter((band) => band.items.length === most);
  const distances = full.slice(1).map((band, k) => full[k]!.y - band.y);
  return distances.length >= 2 ? median(distances) : undefined;
}

/** For each of `band`'s items the one item of `above` over it, all different; undefined when there is none such. */
function continued(band: Band, above: Band, items: PlacedItem[]): number[] | undefined {
  const over = band.items.map((i) => above.items.filter((j) => overlaps(items[i]!, items[j]!)));
  if (over.some((o) => o.length !== 1)) return undefined;
  const chosen = over.map((o) => o[0]!);
  return new Set(chosen).size === chosen.length ? chosen : undefined;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
