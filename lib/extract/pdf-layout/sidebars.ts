/**
 * Sidebars: a boxed block of text set beside the body (a box drawn round
 * it, the body's lines running past it). Producers write them wherever they
 * paint them (Chromium writes a floated box before the page's text), so read
 * in the content stream's order they land before the page's title or among
 * its paragraphs; taken out here, they are written after the page's body.
 */
import type { Line } from "./lines";
import type { Rect } from "./types";

/** Rules meeting at a box's corners may miss each other by this much (a border's width, rounding). */
const CORNER = 3;
/** A sidebar is at most this share of the width the page's text spans: wider, it is the body in a frame. */
const SIDEBAR_MAX_SHARE = 0.6;
/** Upright rules considered: a page with more is a grid of tables, not a page with a sidebar. */
const MAX_UPRIGHTS = 200;

/**
 * The page's lines without its sidebars, and each sidebar's lines in the
 * page's order. A sidebar is a box drawn with rules on all four sides, narrower
 * than the text, holding lines, with lines outside any box beside it (to its
 * left or right, at its height): boxes with nothing beside them (a framed
 * note across the page, a table's cells) stay where they are.
 */
export function splitSidebars(lines: Line[], rules: Rect[]): { body: Line[]; sidebars: Line[][] } {
  const none = { body: lines, sidebars: [] };
  if (lines.length === 0) return none;
  const uprights = rules.filter(([l, b, r, t]) => r - l <= 2.5 && t - b >= 20);
  const levels = rules.filter(([l, b, r, t]) => t - b <= 2.5 && r - l >= 20);
  if (uprights.length < 2 || levels.length < 2 || uprights.length > MAX_UPRIGHTS) return none;
  const textLeft = Math.min(...lines.map((l) => l.left));
  const textRight = Math.max(...lines.map((l) => l.right));

  const boxes: Rect[] = [];
  const sorted = [...uprights].sort((a, b) => a[0] - b[0]);
  sorted.forEach((left, i) => {
    // The nearest upright to its right with the same extent closes the box.
    const right = sorted
      .slice(i + 1)
      .find((r) => Math.abs(r[1] - left[1]) <= CORNER && Math.abs(r[3] - left[3]) <= CORNER && r[0] - left[2] >= 20);
    if (!right) return;
    const box: Rect = [left[0], Math.min(left[1], right[1]), right[2], Math.max(left[3], right[3])];
    const spans = (y: number) =>
      levels.some(
        ([l, b, r, t]) => Math.abs((b + t) / 2 - y) <= CORNER && l <= box[0] + CORNER && r >= box[2] - CORNER,
      );
    if (spans(box[1]) && spans(box[3])) boxes.push(box);
  });
  if (boxes.length === 0) return none;

  const inside = (line: Line, [l, b, r, t]: Rect) =>
    line.left >= l - 1 && line.right <= r + 1 && line.y >= b && line.y <= t;
  const boxOf = new Map<Line, Rect>();
  for (const line of lines) {
    const box = boxes.find((b) => inside(line, b));
    if (box) boxOf.set(line, box);
  }
  const sidebars: Line[][] = [];
  const taken = new Set<Line>();
  for (const box of boxes) {
    const held = lines.filter((line) => boxOf.get(line) === box);
    if (held.length === 0 || box[2] - box[0] > SIDEBAR_MAX_SHARE * (textRight - textLeft)) continue;
    const beside = lines.some(
      (line) => !boxOf.has(line) && line.y >= box[1] && line.y <= box[3] && (line.right < box[0] || line.left > box[2]),
    );
    if (!beside) continue;
    sidebars.push(held);
    for (const line of held) taken.add(line);
  }
  if (sidebars.length === 0) return none;
  return { body: lines.filter((line) => !taken.has(line)), sidebars };
}
