/**
 * Where Tesseract's page segmentation lost a table, to be read again as one
 * block. With automatic segmentation Tesseract finds columns before it
 * reads lines; a table column of short numbers ("0", "14", "128") under one
 * another is taller than it is wide, and Tesseract takes it for vertical
 * text: its digits come back as a column of garbage ("NO OO Fr bb»"), and
 * the table's rows are lost. Read again as a single uniform block (page
 * segmentation mode 6), the same region comes back row by row, each row's
 * cells left to right, as a table is read.
 *
 * An area starts at a block Tesseract calls vertical text and takes in every
 * block beside it (sharing most of its height) that holds only short lines,
 * the table's other columns; prose beside a table (a page's other column) has
 * long lines and stays out.
 */

/** The parts of Tesseract's result read here, in the image's pixels. */
export interface SegmentedBlock {
  blocktype: string | number;
  bbox: Box;
  paragraphs: { lines: { bbox: Box; words: { text: string }[] }[] }[];
}

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Tesseract's PolyBlockType PT_VERTICAL_TEXT. */
const VERTICAL_TEXT = 7;
/** A line of more words than this is prose, not a table's cells (as in scan-order.ts). */
const CELL_MAX_WORDS = 4;
/** A block joins an area when this share of its height lies within the area's. */
const SHARED_HEIGHT = 0.5;
/** Around an area, this share of its lines' usual height, so that no glyph at its edge is cut. */
const MARGIN_OF_LINE = 0.5;

/**
 * Languages written top to bottom in some documents (Chinese, Japanese,
 * Korean): there a vertical block can be text, and no area is read again.
 */
const VERTICAL_SCRIPTS = /^(chi_|jpn|kor)/;

export function tableAreas(blocks: SegmentedBlock[], languages: readonly string[]): Box[] {
  if (languages.some((code) => VERTICAL_SCRIPTS.test(code))) return [];
  const words = (block: SegmentedBlock) => block.paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words));
  const vertical = (block: SegmentedBlock) => Number(block.blocktype) === VERTICAL_TEXT && words(block).length > 0;
  const short = (block: SegmentedBlock) =>
    block.paragraphs.every((p) =>
      p.lines.every((l) => l.words.filter((w) => w.text.trim() !== "").length <= CELL_MAX_WORDS),
    );
  const areas: { box: Box; members: Set<SegmentedBlock> }[] = [];
  for (const seed of blocks.filter(vertical)) {
    if (areas.some((a) => a.members.has(seed))) continue;
    const area = { box: { ...seed.bbox }, members: new Set([seed]) };
    for (let grew = true; grew;) {
      grew = false;
      for (const block of blocks) {
        if (area.members.has(block) || !(vertical(block) || short(block))) continue;
        const shared = Math.min(block.bbox.y1, area.box.y1) - Math.max(block.bbox.y0, area.box.y0);
        const height = Math.max(1, block.bbox.y1 - block.bbox.y0);
        if (shared < SHARED_HEIGHT * height) continue;
        area.members.add(block);
        area.box = union(area.box, block.bbox);
        grew = true;
      }
    }
    areas.push(area);
  }
  const merged: Box[] = [];
  for (const { box, members } of areas) {
    const heights = [...members].flatMap((b) => (vertical(b) ? [] : [lineHeight(b)]));
    const margin = Math.round(MARGIN_OF_LINE * (heights.length > 0 ? Math.max(...heights) : 20));
    let padded: Box = { x0: box.x0 - margin, y0: box.y0 - margin, x1: box.x1 + margin, y1: box.y1 + margin };
    for (let k = merged.length - 1; k >= 0; k--) {
      if (intersects(merged[k]!, padded)) padded = union(padded, merged.splice(k, 1)[0]!);
    }
    merged.push(padded);
  }
  return merged;
}

/** The tallest of a block's lines. */
function lineHeight(block: SegmentedBlock): number {
  return Math.max(0, ...block.paragraphs.flatMap((p) => p.lines.map((l) => l.bbox.y1 - l.bbox.y0)));
}

const union = (a: Box, b: Box): Box => ({
  x0: Math.min(a.x0, b.x0),
  y0: Math.min(a.y0, b.y0),
  x1: Math.max(a.x1, b.x1),
  y1: Math.max(a.y1, b.y1),
});

const intersects = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

/** Whether `inner`'s centre lies in `outer`. */
export const centredIn = (inner: Box, outer: Box) => {
  const x = (inner.x0 + inner.x1) / 2;
  const y = (inner.y0 + inner.y1) / 2;
  return x >= outer.x0 && x <= outer.x1 && y >= outer.y0 && y <= outer.y1;
};
