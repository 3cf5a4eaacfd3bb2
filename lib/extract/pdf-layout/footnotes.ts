/**
 * Footnotes: the small-type notes at a page's foot, set apart from the body
 * by a rule or a gap, each starting with its marker. Read in place they
 * would cut into the paragraph the page breaks in; taken out here, they are
 * written after the page's body text (after the end of a paragraph that runs
 * on to the next page), each note a paragraph of its own.
 */
import type { BodyStyle, Leading } from "./body-style";
import type { Line } from "./lines";
import type { Rect } from "./types";

/** A footnote's lines are set at most this share of the body size: 8pt notes under 10pt text, 9 under 11. */
const NOTE_MAX_RATIO = 0.9;
/** Footnotes take at most this share of the page's text height: a page of small type is not all notes. */
const NOTES_MAX_SHARE = 0.4;
/** Without a rule above them, the notes stand this many body leadings below the text above them. */
const NOTE_GAP = 1.5;

/** A note's marker: a number, or a symbol (*, †, ‡, §, ¶), then the note's text. */
const NOTE_MARKER = /^(\d{1,3}|[*†‡§¶]{1,3})(?:[.)])?\s*(?=\S)/u;

export interface Footnote {
  /** As printed: "1", "*", "†". */
  marker: string;
  lines: Line[];
}

/**
 * The page's lines without its footnotes, and the footnotes in the order
 * they are printed. Footnotes are the lowest lines of the page, all in type
 * clearly smaller than the body's, the first of them starting with a marker,
 * below every other line, with a level rule or a wide gap between them and
 * the text above; the page must have body text above them.
 */
export function splitFootnotes(
  lines: Line[],
  rules: Rect[],
  body: BodyStyle,
  leading: Leading,
): { body: Line[]; notes: Footnote[] } {
  const none = { body: lines, notes: [] };
  const small = (line: Line) => line.upright && line.size <= body.size * NOTE_MAX_RATIO;
  const byHeight = [...lines].sort((a, b) => b.y - a.y);
  let start = byHeight.length;
  while (start > 0 && small(byHeight[start - 1]!)) start--;
  // From the top of that small-type run down, the first line starting with a marker opens the notes.
  while (start < byHeight.length && !NOTE_MARKER.test(byHeight[start]!.text)) start++;
  if (start === 0 || start === byHeight.length) return none;
  const zone = byHeight.slice(start);
  const above = byHeight[start - 1]!;
  const top = zone[0]!;
  const textTop = byHeight[0]!.top;
  const textBottom = zone.at(-1)!.bottom;
  if (top.top - textBottom > NOTES_MAX_SHARE * (textTop - textBottom)) return none;
  if (!byHeight.slice(0, start).some((line) => Math.abs(line.size - body.size) <= 0.08 * body.size)) return none;
  const ruled = rules.some(
    ([l, b, r, t]) => t - b <= 2 && r - l >= 2 * top.size && b >= top.top - 1 && t <= above.bottom + 1,
  );
  const gapped = above.y - top.y > NOTE_GAP * leading(body.size);
  if (!ruled && !gapped) return none;

  const notes: Footnote[] = [];
  const edge = Math.min(...zone.map((line) => line.left));
  for (const line of zone) {
    const marker = NOTE_MARKER.exec(line.text);
    // A marker at the notes' left edge starts a note; a line that does not start with one goes on with the note above.
    if (marker && (notes.length === 0 || line.left <= edge + line.size))
      notes.push({ marker: marker[1]!, lines: [line] });
    else notes.at(-1)!.lines.push(line);
  }
  const taken = new Set(zone);
  return { body: lines.filter((line) => !taken.has(line)), notes };
}
