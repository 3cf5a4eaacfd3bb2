import type { Range } from "./metrics";

/** Every occurrence of `needle` in `text`, as ranges. */
function occurrences(text: string, needle: string): Range[] {
  const found: Range[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1))
    found.push({ start: at, end: at + needle.length });
  return found;
}

/** Occurrences where any whitespace run in `needle` may be any whitespace run in `text` (PDF lines re-wrapped, joined or split). */
function looseOccurrences(text: string, needle: string): Range[] {
  const words = needle
    .trim()
    .split(/\s+/)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp(words.join("\\s+"), "g");
  return [...text.matchAll(pattern)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

/** The range without the whitespace at its edges: leading or trailing blanks are not content a chunk must hold. */
export function trimRange(text: string, range: Range): Range {
  let { start, end } = range;
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return { start, end };
}

export class LocateError extends Error {}

/**
 * Where an annotated excerpt is in the extracted text: exactly if it occurs
 * as written, else allowing whitespace to differ. With `near`, the occurrence
 * closest to that offset; without, the excerpt must occur once.
 */
export function locateExcerpt(text: string, excerpt: string, near?: number): Range {
  const trimmed = excerpt.trim();
  if (!trimmed) throw new LocateError("empty excerpt");
  let found = occurrences(text, trimmed);
  if (found.length === 0) found = looseOccurrences(text, trimmed);
  if (found.length === 0)
    throw new LocateError(`excerpt not found in the extracted text: ${JSON.stringify(trimmed.slice(0, 80))}`);
  if (near === undefined) {
    if (found.length > 1)
      throw new LocateError(
        `excerpt occurs ${found.length} times; make it unique: ${JSON.stringify(trimmed.slice(0, 80))}`,
      );
    return found[0]!;
  }
  return found.reduce((best, r) => (Math.abs(r.start - near) < Math.abs(best.start - near) ? r : best));
}

/**
 * Ranges of non-overlapping chunk texts that are verbatim pieces of `text`,
 * in order (what LangChain returns at overlap 0: strings, no offsets). Each
 * is searched from where the previous one ended, so repeated passages resolve
 * to the right place.
 */
export function locateSequential(text: string, pieces: readonly string[]): Range[] {
  const ranges: Range[] = [];
  let cursor = 0;
  for (const piece of pieces) {
    const at = text.indexOf(piece, cursor);
    if (at === -1)
      throw new LocateError(`chunk not found in order in the source text: ${JSON.stringify(piece.slice(0, 80))}`);
    ranges.push({ start: at, end: at + piece.length });
    cursor = at + piece.length;
  }
  return ranges;
}
