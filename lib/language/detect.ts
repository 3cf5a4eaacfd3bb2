/**
 * A chunk's language, ISO 639-1, from eld (Nito-ELD: n-gram scores for 60
 * languages, offline, data inside the npm package). Chosen over tinyld and
 * franc-min on the UDHR in 24 languages cut into 50/100/200-character
 * chunks (`npm run eval -- --only language`, docs/eval.md): eld's medium
 * data set was right on 95.0/95.6/95.8% of them at ~0.3-0.4 ms a chunk,
 * tinyld on 97.8/99.1/99.3% at ~1.3 ms, franc-min on 89.6/91.1/91.4%
 * (no Finnish or Hebrew). eld's misses are nearly all Indonesian, which it
 * does not know and calls Malay; elsewhere it is the most accurate of the
 * three, and three times faster than tinyld, which matters on a document
 * with thousands of chunks.
 *
 * Undetermined (no letters, code, a few words eld calls unreliable): no
 * language rather than "und", so a filter on `language` never matches a
 * guess.
 */
type Eld = (typeof import("eld/medium"))["eld"];

let detector: Eld | undefined;

/**
 * Imports eld's data on first use (~2.6 s, ~10 MB of n-grams): route handlers
 * that only describe the service never pay it, and chunking awaits it once a
 * process.
 */
export async function loadLanguageDetector(): Promise<void> {
  detector ??= (await import("eld/medium")).eld;
}

/** Characters of a chunk read: a paragraph tells a language as well as a page does, at a bounded cost a chunk. */
const SAMPLE_CHARS = 600;

/** The language of `text`, after `loadLanguageDetector()`. */
export function detectLanguage(text: string): string | undefined {
  if (!detector) throw new Error("The language detector is not loaded: await loadLanguageDetector() first.");
  const sample = text.length > SAMPLE_CHARS ? text.slice(0, SAMPLE_CHARS) : text;
  const result = detector.detect(sample);
  return result.language && result.isReliable() ? result.language : undefined;
}
