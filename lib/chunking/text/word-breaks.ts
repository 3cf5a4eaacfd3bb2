/**
 * Word boundaries in scripts written without spaces between words (Chinese,
 * Japanese, Thai, Lao, Khmer, Burmese), from `Intl.Segmenter`: ICU's
 * dictionary-based word breaking, built into Node, so no word list ships
 * with the service. Elsewhere words end at whitespace, which a regex finds
 * far faster, so the segmenter runs only on ranges holding such a script.
 */
const SCRIPTS_WITHOUT_SPACES =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

// ICU picks its dictionary by script, not locale: one segmenter serves every language.
const words = new Intl.Segmenter("und", { granularity: "word" });

/** Whether text[start, end) holds a character of a script written without spaces between words. */
export function needsWordSegmenter(text: string, start: number, end: number): boolean {
  return SCRIPTS_WITHOUT_SPACES.test(text.slice(start, end));
}

/** Ends of the words (and of the runs of spaces or punctuation between them) in text[start, end), ascending; `end` excluded. */
export function wordEnds(text: string, start: number, end: number): number[] {
  const out: number[] = [];
  for (const { index, segment } of words.segment(text.slice(start, end))) {
    const stop = start + index + segment.length;
    if (stop < end) out.push(stop);
  }
  return out;
}
