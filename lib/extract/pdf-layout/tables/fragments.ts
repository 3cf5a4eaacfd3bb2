/**
 * A page's items into fragments: runs of text on one baseline, cut where a
 * gap is wider than a word space or a drawn rule stands between two items;
 * justified lines written a few words at a time stay whole.
 */
import type { PdfTextItem, Rect } from "../types";
import { ASCENT_EM, DESCENT_EM, SAME_LINE_EM } from "../lines";
import type { Fragment } from "./types";

/** A gap wider than this share of the font size parts two cells: word spaces stay below half an em, even justified. */
const CELL_GAP_EM = 0.8;
/**
 * pdf.js writes the gap between two runs of text as a space item; one wider
 * than this share of the size parts two cells (a space is a quarter to half
 * an em, the half in italic and wide faces; within a line of prose a
 * producer writes its spaces into the run).
 */
const CELL_SPACE_EM = 0.7;

export function toFragments(items: PdfTextItem[], verticals: Rect[], monospace: Set<string>): Fragment[] {
  const even = justifiedItems(items);
  const fragments: Fragment[] = [];
  let open: (Fragment & { spaceDue: boolean }) | undefined;
  const close = () => {
    if (open) fragments.push({ ...open, text: open.text.replace(/\s+/g, " ").trim() });
    open = undefined;
  };
  items.forEach((item, i) => {
    const text = item.text.replace(/\u0000/g, "");
    // Code keeps its own alignment: set apart as code, never read as a table.
    if (!item.upright || monospace.has(item.font)) return close();
    if (text.trim() === "") {
      // pdf.js writes the gap between two cells as one wide space.
      if (open && item.width > CELL_SPACE_EM * item.size && !even.has(open.items.at(-1)!)) close();
      else if (open && text !== "") open.spaceDue = true;
      return;
    }
    const sameLine = open !== undefined && even.has(i) && even.has(open.items.at(-1)!);
    const ocr = item.confidence !== undefined && items[open?.items.at(-1) ?? i]!.confidence !== undefined;
    if (open && (sameLine || continues(open, item, verticals, ocr))) {
      const gap = item.x - open.right;
      const spaced = open.spaceDue || gap > 0.18 * item.size;
      open.text += (spaced && !/\s$/.test(open.text) && !/^\s/.test(text) ? " " : "") + text;
      open.right = Math.max(open.right, item.x + item.width);
      open.top = Math.max(open.top, item.y + ASCENT_EM * item.size);
      open.bottom = Math.min(open.bottom, item.y - DESCENT_EM * item.size);
      open.items.push(i);
      open.spaceDue = false;
      return;
    }
    close();
    open = {
      text,
      left: item.x,
      right: item.x + item.width,
      y: item.y,
      size: item.size,
      font: item.font,
      top: item.y + ASCENT_EM * item.size,
      bottom: item.y - DESCENT_EM * item.size,
      items: [i],
      spaceDue: false,
    };
  });
  close();
  return fragments.filter((f) => f.text !== "");
}

/**
 * Items of justified lines, which some producers write a few words at a
 * time: a line whose gaps are all one stretched space (within a tenth of an
 * em, under two ems, three or more gaps, or two beside a line set flush to
 * the same edges) and that has the same left and right edges as a line
 * next to it. A table's header may be spaced as evenly, but its rows below
 * are not; justified words are never cells.
 */
function justifiedItems(items: PdfTextItem[]): Set<number> {
  interface Run {
    items: number[];
    left: number;
    right: number;
    even: boolean;
  }
  const runs: Run[] = [];
  let current: number[] = [];
  const flush = () => {
    if (current.length === 0) return;
    const first = items[current[0]!]!;
    const last = items[current.at(-1)!]!;
    const gaps = current.slice(1).map((i, k) => items[i]!.x - (items[current[k]!]!.x + items[current[k]!]!.width));
    const size = first.size;
    const words = current.some((i) => /\p{L}{2}/u.test(items[i]!.text));
    const even =
      words && gaps.length >= 2 && Math.max(...gaps) - Math.min(...gaps) <= 0.1 * size && Math.max(...gaps) <= 2 * size;
    runs.push({ items: current, left: first.x, right: last.x + last.width, even });
    current = [];
  };
  items.forEach((item, i) => {
    if (item.text.trim() === "") return;
    const last = current.length > 0 ? items[current.at(-1)!]! : undefined;
    const follows =
      last !== undefined &&
      Math.abs(item.y - last.y) <= SAME_LINE_EM * item.size &&
      item.x >= last.x + last.width - 0.5 * item.size;
    if (!follows) flush();
    current.push(i);
  });
  flush();
  const flush2 = (a: Run | undefined, b: Run) =>
    a !== undefined &&
    Math.abs(a.left - b.left) <= 1.5 &&
    Math.abs(a.right - b.right) <= 1.5 &&
    (a.even || a.items.length === 1);
  const even = new Set<number>();
  runs.forEach((run, k) => {
    if (run.even && (flush2(runs[k - 1], run) || flush2(runs[k + 1], run))) for (const i of run.items) even.add(i);
  });
  return even;
}

function continues(open: Fragment, item: PdfTextItem, verticals: Rect[], ocr: boolean): boolean {
  if (Math.abs(item.y - open.y) > SAME_LINE_EM * Math.max(item.size, open.size)) return false;
  // OCR's items are already cut into cells (`lib/extract/ocr/`: at wide gaps, drawn rules and columns' edges),
  // from each word's box, which this cannot see: two of them are two cells.
  if (ocr) return false;
  const gap = item.x - open.right;
  if (gap > CELL_GAP_EM * Math.max(item.size, open.size) || gap < -open.size) return false;
  // A rule drawn between them parts two cells however close they sit.
  return !verticals.some(([l, b, r, t]) => l >= open.right - 1 && r <= item.x + 1 && b <= item.y && t >= item.y);
}
