/**
 * Sentence starts in prose, by Intl.Segmenter (Unicode sentence boundaries,
 * UAX #29), with four corrections:
 *
 * - A line break alone does not end a sentence (the segmenter says it does):
 *   Markdown paragraphs and PDF text wrap lines mid-sentence. The segmenter
 *   is shown line breaks as spaces; "\n" written out as two characters (text
 *   serialised as JSON or a Python literal, e.g. exported chat logs) is shown
 *   as spaces too, so a sentence ending before one is still seen to end.
 * - Node's ICU applies no abbreviation exceptions, so "Dr. Smith" would be
 *   cut after "Dr.": a boundary after a common abbreviation or a single
 *   initial ("J. R. Tolkien") is dropped. ("e.g. a" needs no help: a lower
 *   case word after the full stop already keeps the sentence going.)
 * - A boundary must follow whitespace (or a CJK full stop): the segmenter
 *   also breaks inside "4 @.@ 7" and after "a.@", mid-word.
 * - Intl.Segmenter takes quadratic time on long strings in this Node (a
 *   118 KB paragraph: 250 ms, in 4 KB windows: 4 ms), so text is segmented in
 *   windows that each resume at a boundary already found.
 * - Each `segment` call costs ~2.5 µs before it reads a character (V8 clones
 *   ICU's break iterator), as much as segmenting 300 characters: many short
 *   paragraphs are segmented together (`sentenceStartsOfRanges`).
 *
 * Why there are two segmenters: this one serves the structure tier and the AI
 * tiers' units, and it cuts inside paragraphs the structure has already found,
 * so a line break in them is never a sentence end. `line-sentences.ts` serves
 * the semantic tier. It reads whole documents, where a line is often a unit
 * of its own (a heading, an item, a row), so a line break ends a sentence
 * unless its paragraph reads as hard-wrapped prose. One rule for both would
 * change the chunks of one tier or the other (docs/eval.md).
 */

const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });

const WINDOW = 4096;
/** A boundary this close to a window's end may depend on text past it: found again from the next window. */
const LOOKAHEAD = 256;
/** Widest window tried while no boundary turns up; past it the window moves on regardless. */
const MAX_WINDOW = 32768;

/**
 * Abbreviations that end with a full stop inside sentences: titles, and
 * references to numbered things (the ICU English exception list's common
 * part). Compared case-sensitively with the word before the full stop.
 */
const ABBREVIATIONS = new Set([
  "Mr",
  "Mrs",
  "Ms",
  "Mx",
  "Dr",
  "Prof",
  "Sr",
  "Jr",
  "St",
  "Mt",
  "Ft",
  "Rev",
  "Hon",
  "Gen",
  "Col",
  "Capt",
  "Lt",
  "Sgt",
  "Cpl",
  "Adm",
  "Gov",
  "Sen",
  "Rep",
  "Pres",
  "Insp",
  "Supt",
  "Messrs",
  "Mme",
  "Mlle",
  "No",
  "Nos",
  "no",
  "Vol",
  "vol",
  "Vols",
  "Fig",
  "fig",
  "Figs",
  "Eq",
  "Eqs",
  "Ch",
  "ch",
  "Sec",
  "sec",
  "Art",
  "Para",
  "pp",
  "p",
  "vs",
  "cf",
  "approx",
  "Approx",
  "ca",
  "Inc",
  "Ltd",
  "Corp",
  "Co",
  "Dept",
  "Univ",
  "Ave",
  "Blvd",
  "Rd",
  "Jan",
  "Feb",
  "Mar",
  "Apr",
  "Jun",
  "Jul",
  "Aug",
  "Sep",
  "Sept",
  "Oct",
  "Nov",
  "Dec",
  "e.g",
  "i.e",
  "E.g",
  "I.e",
  "U.S",
  "U.K",
  "U.N",
  "a.k.a",
]);

/** The word (letters and inner dots) just before `dot`, which is a full stop; "" if none. */
function wordBefore(text: string, dot: number): string {
  let i = dot;
  while (i > 0 && /[\p{L}.]/u.test(text[i - 1]!)) i--;
  return text.slice(i, dot);
}

/** Whether the sentence ending before `start` ends with an abbreviation or an initial, not a sentence. */
function endsWithAbbreviation(text: string, sentenceStart: number): boolean {
  let i = sentenceStart;
  while (i > 0 && /\s/.test(text[i - 1]!)) i--;
  if (text[i - 1] !== ".") return false;
  const word = wordBefore(text, i - 1);
  if (ABBREVIATIONS.has(word)) return true;
  // A single capital: an initial. (A sentence ending in "World War I." is rarer than a name.)
  return /^\p{Lu}$/u.test(word);
}

/**
 * Whether the segmenter's boundary before `index` of `view` is one a reader
 * sees: after whitespace, or after a CJK full stop (CJK needs no space). The
 * segmenter also breaks after a full stop followed by a symbol ("4 @.@ 7" in
 * WikiText, "a.@b"), which would cut a word.
 */
function endsSentence(view: string, index: number): boolean {
  const before = view.charCodeAt(index - 1);
  return (
    before === 32 ||
    (before >= 9 && before <= 13) ||
    /[\s\u3002\uff01\uff1f\uff61\u300d\u300f\u3011\uff09\u201d\u2019]/.test(view[index - 1]!)
  );
}

/** Whether the segmenter's boundary at `index` of `view` (offset `at` of `text`) starts a sentence a reader sees. */
const startsSentence = (text: string, view: string, index: number, at: number) =>
  endsSentence(view, index) && !endsWithAbbreviation(text, at);

/** What the segmenter sees: same length, line breaks (real or written out as "\n") as spaces. */
function forSegmenter(text: string, start: number, end: number): string {
  return text
    .slice(start, end)
    .replace(/[\r\n]/g, " ")
    .replace(/\\n/g, "  ");
}

/**
 * Offsets in (start, end) where a sentence starts (at its first non-space
 * character), ascending.
 */
export function sentenceStarts(text: string, start: number, end: number): number[] {
  const out: number[] = [];
  let from = start;
  let window = WINDOW;
  while (from < end) {
    const to = Math.min(end, from + window);
    const last = to === end;
    let resume = -1;
    const view = forSegmenter(text, from, to);
    for (const { index } of segmenter.segment(view)) {
      if (index === 0) continue;
      const at = from + index;
      if (!last && at > to - LOOKAHEAD) break;
      resume = at;
      if (at < end && startsSentence(text, view, index, at)) out.push(at);
    }
    if (last) break;
    if (resume > from) {
      from = resume;
      window = WINDOW;
    } else if (window < MAX_WINDOW) {
      window *= 2;
    } else {
      // One "sentence" longer than MAX_WINDOW (a blob, a table of numbers): move on mid-way.
      from = to - LOOKAHEAD;
    }
  }
  return out;
}

/**
 * U+2029 PARAGRAPH SEPARATOR: Unicode's sentence rules break after it (SB4),
 * and none looks across it (SB8's look-ahead for a lower-case word stops at
 * it; SB7 looks one character back, which it is not), so texts joined with it
 * are segmented each as if alone.
 */
const SEPARATOR = "\u2029";

/**
 * `sentenceStarts` of each range, the same offsets, in fewer segmenter calls:
 * ranges that fit in one window are joined with a paragraph separator into
 * windows of up to WINDOW characters. (A range that fits in a window is
 * segmented whole by `sentenceStarts` too, so no window edge differs.)
 */
export function sentenceStartsOfRanges(text: string, ranges: readonly (readonly [number, number])[]): number[][] {
  const out: number[][] = ranges.map(() => []);
  let batch: number[] = [];
  let length = 0;
  const flush = () => {
    if (batch.length > 0) segmentTogether(text, ranges, batch, out);
    batch = [];
    length = 0;
  };
  ranges.forEach(([start, end], k) => {
    if (end - start > WINDOW) {
      out[k] = sentenceStarts(text, start, end);
      return;
    }
    if (length + (end - start) > WINDOW) flush();
    batch.push(k);
    length += end - start + SEPARATOR.length;
  });
  flush();
  return out;
}

function segmentTogether(
  text: string,
  ranges: readonly (readonly [number, number])[],
  batch: readonly number[],
  out: number[][],
): void {
  const view = batch.map((k) => forSegmenter(text, ranges[k]![0], ranges[k]![1])).join(SEPARATOR);
  // Where each range begins in the view.
  const offsets: number[] = [];
  let offset = 0;
  for (const k of batch) {
    offsets.push(offset);
    offset += ranges[k]![1] - ranges[k]![0] + SEPARATOR.length;
  }
  let b = 0;
  for (const { index } of segmenter.segment(view)) {
    while (b + 1 < batch.length && index >= offsets[b + 1]!) b++;
    if (index === offsets[b]) continue;
    const [start, end] = ranges[batch[b]!]!;
    const at = start + index - offsets[b]!;
    if (at < end && startsSentence(text, view, index, at)) out[batch[b]!]!.push(at);
  }
}
