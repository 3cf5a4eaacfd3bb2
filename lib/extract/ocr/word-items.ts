import type { Word } from "tesseract.js";

/**
 * A Tesseract line's words as the runs a text PDF would write: words with
 * ordinary spacing together, a new run where the gap is wider than
 * CELL_GAP_EM of the line's size. Tesseract reads a table's row as one line
 * ("East 75.0 88.3 | +17.7%"); as one item, layout recovery would see a
 * sentence, while runs apart are cells, as table recovery
 * (`lib/extract/pdf-layout/tables/`) looks for them. A prose line keeps
 * its word spaces, well under the threshold, and stays one run.
 */

export interface WordRun {
  text: string;
  /** Left and right edge in the image's pixels. */
  x0: number;
  x1: number;
  /** Tesseract's mean confidence in the run's words, 0-100. */
  confidence: number;
  words: number;
  /** Its words' texts and edges (pixels), when the text is just those words joined by spaces (no bullet, no separator restored). */
  parts?: { text: string; x0: number; x1: number }[];
}

/**
 * The gap that parts two cells. Table recovery parts cells at 0.8 of the
 * font's em; Tesseract's em (the row height) is smaller for some fonts, and
 * a monospaced line's word gaps, around a hyphen, reach 0.9 of it: code
 * must stay one run. A table's cells are set wider apart.
 */
const CELL_GAP_EM = 1;
/**
 * The gap that parts two cells in an area known to be a table (read again
 * as one, `table-areas.ts`): there is no prose to keep whole, and a number
 * set right in its column can stand closer than an em to the next cell;
 * word spaces stay near a third of an em.
 */
export const TABLE_CELL_GAP_EM = 0.6;

/** A table's vertical border read as a character. */
const BORDER = /^[|│[\]]+$/u;

/** What Tesseract's English model reads a round or square list bullet (•, ●, ▪, ■) as. */
const BULLET_READINGS = /^[«»+*©®°¢·•●■▪◦oe=]$/u;

/** What it reads a typed "•" set between words (a separator: "Stores • fuel • water") as. */
const SEPARATOR_READINGS = /^[«•·]$/u;

/** `borders`: where upright rules cross the line (x in pixels); words on either side of one are apart. */
export function wordRuns(words: Word[], em: number, cellGapEm = CELL_GAP_EM, borders: number[] = []): WordRun[] {
  const kept = words.filter((w) => w.text.trim() !== "");
  if (kept.length === 0) return [];
  const bullet = listBullet(kept, em);
  const runs: { words: Word[]; texts: string[]; x0: number; plain: boolean }[] = [];
  let parted = true;
  kept.forEach((word, i) => {
    if (isBorder(kept, i, em) || (BORDER.test(word.text) && borders.some((x) => crosses(word, x)))) {
      parted = true;
      return;
    }
    const text = i === 0 && bullet !== undefined ? bullet : separator(kept, i, em);
    const last = runs.at(-1);
    const previous = last?.words.at(-1);
    // The bullet's own gap is a list item's, not a cell's: it stays with its text.
    const wide =
      previous !== undefined &&
      (word.bbox.x0 - previous.bbox.x1 > cellGapEm * em ||
        borders.some((x) => x >= previous.bbox.x1 - 1 && x <= word.bbox.x0 + 1));
    if (!last || parted || (wide && !(bullet !== undefined && last.words.length === 1 && previous === kept[0]))) {
      runs.push({ words: [word], texts: text === "" ? [] : [text], x0: word.bbox.x0, plain: text === word.text });
    } else {
      last.words.push(word);
      if (text !== "") last.texts.push(text);
      last.plain &&= text === word.text;
    }
    parted = false;
  });
  return runs
    .map((run) => ({
      ...(run.plain && !(bullet !== undefined && run.words[0] === kept[0])
        ? { parts: run.words.map((w) => ({ text: w.text, x0: w.bbox.x0, x1: w.bbox.x1 })) }
        : {}),
      text: (bullet !== undefined && run.words[0] === kept[0] ? ["•", ...run.texts] : run.texts).join(" "),
      x0: run.x0,
      x1: run.words.at(-1)!.bbox.x1,
      confidence: run.words.reduce((sum, w) => sum + w.confidence, 0) / run.words.length,
      words: run.words.length,
    }))
    .filter((run) => run.text !== "");
}

/** Whether an upright rule at `x` runs through a word's box or by its edge. */
const crosses = (word: Word, x: number) => x >= word.bbox.x0 - 1 && x <= word.bbox.x1 + 1;

/**
 * "|", "│", "[" or "]" alone, at a line's end or set apart from the words on
 * both sides: a ruled table's vertical border, not text. Inside prose these
 * stand against a word ("[1]", "a|b") and stay.
 */
function isBorder(words: Word[], i: number, em: number): boolean {
  const word = words[i]!;
  if (!BORDER.test(word.text)) return false;
  const before = words[i - 1];
  const after = words[i + 1];
  const apart = (gap: number) => gap > 0.25 * em;
  return (
    (before === undefined || apart(word.bbox.x0 - before.bbox.x1)) &&
    (after === undefined || apart(after.bbox.x0 - word.bbox.x1))
  );
}

/**
 * The first word's text with its list bullet taken off, when it starts with
 * one, or undefined. The bullet is read as some other glyph, often glued to
 * the next word ("«Binoculars"), and only the gap after it (a bullet is set
 * apart from its text, at least half an em) tells it from a letter. Layout
 * recovery then sees "• Binoculars", as from a text PDF.
 */
function listBullet(words: Word[], em: number): string | undefined {
  const [first, second] = words[0]!.symbols;
  const next = second ?? words[1]?.symbols[0];
  if (!first || !next || !BULLET_READINGS.test(first.text)) return undefined;
  const { x0, x1 } = first.bbox;
  if (x1 - x0 > 0.6 * em || next.bbox.x0 - x1 < 0.5 * em) return undefined;
  return words[0]!.text.slice(first.text.length);
}

/** A word that is one narrow bullet-like glyph between two words: a typed "•" separator, restored. */
function separator(words: Word[], i: number, em: number): string {
  const word = words[i]!;
  if (i === 0 || i === words.length - 1 || !SEPARATOR_READINGS.test(word.text)) return word.text;
  // A French quotation mark comes in pairs: «…» is not a separator.
  if (words.some((w) => w.text.includes("»"))) return word.text;
  return word.bbox.x1 - word.bbox.x0 <= 0.6 * em ? "•" : word.text;
}
