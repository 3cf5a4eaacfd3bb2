/**
 * The stand-in's answer to `section_starts`: which numbered units start a
 * new section, by rules a reader would apply at a glance.
 *
 * A unit starts a section when it is
 * - a heading: a Markdown `#` line; a numbered title ("2.1 Scope") that is
 *   not one of a run of numbered items (a list); "Chapter 3", "Part II"; or a
 *   short line without closing punctuation in Title Case or ALL CAPS;
 * - the start of a message: an e-mail header line ("From:", "Subject:") that
 *   does not continue a header block, "Dear ...", "-----Original Message-----",
 *   "On ... wrote:";
 * - a speaker turn ("ALICE: ...", "Dr. Chen: ...", "[00:12] Bob: ...");
 * - a change of topic: its vocabulary has little in common with the units of
 *   the current section just before it (cosine of the project's local
 *   embedding vectors, which compare words and their 4-grams, so "chunk" and
 *   "chunking" count as shared).
 *
 * A unit right after a heading never starts one: the heading stays with the
 * text it introduces (so does a sub-heading right under a heading). The
 * first unit shown has nothing before it to differ from, so only the
 * first three rules can make it a start. Pure function of the message: the
 * same input always gets the same answer.
 */
import { HashedNgramEmbedder } from "@/lib/embeddings/hashed-ngrams";

export interface Unit {
  number: number;
  text: string;
}

/** `[12] text` lines of `sectionStartsMessage`; other lines (the "Units A to B:" header) are not units. */
export function parseUnits(message: string): Unit[] {
  const units: Unit[] = [];
  for (const line of message.split("\n")) {
    const m = /^\[(\d+)\] ?(.*)$/.exec(line);
    if (m) units.push({ number: Number(m[1]), text: m[2]!.trim() });
  }
  return units;
}

// ---------------------------------------------------------------------------
// Headings
// ---------------------------------------------------------------------------

const MAX_HEADING_CHARS = 80;
const MAX_HEADING_WORDS = 10;
/** Words that stay lower case inside a Title Case heading. */
const SMALL_WORDS = new Set(
  "a an and as at but by for from in into nor of on or over per the to vs via with".split(" "),
);
const ENDS_LIKE_SENTENCE = /[.,;:!…)\]"'”’]$/;
const NUMBERED = /^(\d{1,3}(?:\.\d{1,3}){0,5})(\.?)\s+(\S.*)$/u;
const CHAPTER =
  /^(?:chapter|part|section|appendix|book)\s+(?:\d{1,3}|[ivxlcdm]{1,7}|[a-z])\b(?:\s*[.:\u2013\u2014-]\s*\p{Lu}.*|\s+\p{Lu}.*)?$/iu;

function wordsOf(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}

function isAllCaps(text: string): boolean {
  const letters = text.replace(/[^\p{L}]/gu, "");
  return letters.length >= 3 && !/\p{Ll}/u.test(letters) && /\p{Lu}/u.test(letters);
}

function isTitleCase(text: string): boolean {
  const words = wordsOf(text).filter((w) => /\p{L}/u.test(w));
  if (words.length === 0) return false;
  return words.every((word, k) => {
    const first = word.replace(/^[^\p{L}\p{N}]+/u, "");
    if (/^\p{Lu}/u.test(first) || /^\p{N}/u.test(first)) return true;
    return k > 0 && SMALL_WORDS.has(first.toLowerCase());
  });
}

/** Short, not ending like a sentence, and capitalised like a title. */
function isTitleLike(text: string): boolean {
  if (text.length < 2 || text.length > MAX_HEADING_CHARS || wordsOf(text).length > MAX_HEADING_WORDS) return false;
  if (ENDS_LIKE_SENTENCE.test(text) || !/\p{L}{2}/u.test(text)) return false;
  return isAllCaps(text) || isTitleCase(text);
}

/** The depth of a numbered title ("2.1 Scope" is 2), undefined for anything else. */
function numberedDepth(text: string): number | undefined {
  const m = NUMBERED.exec(text);
  if (!m || !/^\p{Lu}/u.test(m[3]!) || ENDS_LIKE_SENTENCE.test(m[3]!) || text.length > MAX_HEADING_CHARS)
    return undefined;
  return m[1]!.split(".").length;
}

function isHeading(units: readonly Unit[], k: number): boolean {
  const text = units[k]!.text;
  if (/^#{1,6}\s+\S/.test(text)) return true;
  if (CHAPTER.test(text) && text.length <= MAX_HEADING_CHARS) return true;
  const depth = numberedDepth(text);
  if (depth !== undefined) {
    // "1 Apples" above "2 Pears" is a list, not two sections.
    const neighbours = [units[k - 1], units[k + 1]].filter((u): u is Unit => u !== undefined);
    return !neighbours.some((u) => numberedDepth(u.text) === depth && !numberedHasBody(units, u));
  }
  return isTitleLike(text) && !SPEAKER.test(text);
}

/** Whether a numbered unit is followed by a unit that is not numbered (a titled section rather than a list item). */
function numberedHasBody(units: readonly Unit[], unit: Unit): boolean {
  const k = units.indexOf(unit);
  const next = units[k + 1];
  return next !== undefined && numberedDepth(next.text) === undefined;
}

// ---------------------------------------------------------------------------
// Messages and speaker turns
// ---------------------------------------------------------------------------

const EMAIL_HEADER = /^(?:from|to|cc|bcc|subject|date|sent|reply-to):\s*\S/i;
const LETTER_START = /^(?:dear|hi|hello)\s+\p{Lu}[^]{0,60}[,:!]/u;
const QUOTED_MESSAGE = /^(?:-{2,}\s*(?:original|forwarded) message\s*-{2,}|on\s.{4,120}\swrote:)/i;
/** "ALICE:", "Dr. Chen:", "Speaker 2:", "[00:12:05] Bob:" followed by what they say. */
const SPEAKER =
  /^(?:\[[\d:.]+\]\s*)?(?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?\p{Lu}[\p{L}'-]*(?:\s(?:\p{Lu}[\p{L}'-]*|\d{1,2})){0,2}:\s+\S/u;
/** Labels that look like a speaker but introduce a remark inside a section. */
const NOT_SPEAKERS = new Set(
  "note warning tip example important caution see also step summary update edit ps nb answer question".split(" "),
);

function isMessageStart(units: readonly Unit[], k: number): boolean {
  const text = units[k]!.text;
  const previous = units[k - 1]?.text;
  const afterHeader = previous !== undefined && EMAIL_HEADER.test(previous);
  if (EMAIL_HEADER.test(text)) return !afterHeader;
  if (QUOTED_MESSAGE.test(text)) return true;
  return LETTER_START.test(text) && !afterHeader;
}

function isSpeakerTurn(text: string): boolean {
  if (!SPEAKER.test(text) || EMAIL_HEADER.test(text)) return false;
  const label = text
    .slice(0, text.indexOf(":"))
    .replace(/^\[[\d:.]+\]\s*/, "")
    .toLowerCase();
  return !NOT_SPEAKERS.has(label);
}

// ---------------------------------------------------------------------------
// Topic changes
// ---------------------------------------------------------------------------

/**
 * Below this cosine between a unit and the section's last units, the unit starts a new topic.
 * Measured on the eval corpora's paragraphs: 90% of paragraphs set after another
 * document's fall below it, 11% of paragraphs after their own neighbours do
 * (mostly where the document moves on to another subsection).
 */
const TOPIC_CHANGE_BELOW = 0.08;
/** How many of the section's last units the unit is compared with. */
const CONTEXT_UNITS = 3;
/** Units with fewer content-bearing words than this say too little to judge a topic by. */
const MIN_WORDS = 6;

const embedder = new HashedNgramEmbedder();

function contentWords(text: string): number {
  return (text.match(/\p{L}{4,}/gu) ?? []).length;
}

function cosineToSum(unit: Float32Array, context: readonly Float32Array[]): number {
  const sum = new Float64Array(unit.length);
  for (const v of context) for (let i = 0; i < v.length; i++) sum[i]! += v[i]!;
  let dot = 0;
  let norm = 0;
  for (let i = 0; i < unit.length; i++) {
    dot += unit[i]! * sum[i]!;
    norm += sum[i]! * sum[i]!;
  }
  return norm > 0 ? dot / Math.sqrt(norm) : 1;
}

// ---------------------------------------------------------------------------

/** The numbers of the units that start a new section, ascending. */
export function sectionStarts(units: readonly Unit[]): number[] {
  const starts: number[] = [];
  const vectors = units.map((u) => embedder.embedOne(u.text));
  let sectionFrom = 0;
  let previousIsHeading = false;
  for (let k = 0; k < units.length; k++) {
    const heading = isHeading(units, k);
    let start = false;
    if (!previousIsHeading) {
      if (heading || isMessageStart(units, k) || isSpeakerTurn(units[k]!.text)) start = true;
      else if (k > sectionFrom && contentWords(units[k]!.text) >= MIN_WORDS) {
        const context = vectors.slice(Math.max(sectionFrom, k - CONTEXT_UNITS), k);
        const enough =
          context.reduce((n, _, j) => n + contentWords(units[k - context.length + j]!.text), 0) >= MIN_WORDS;
        start = enough && cosineToSum(vectors[k]!, context) < TOPIC_CHANGE_BELOW;
      }
    }
    if (start) {
      starts.push(units[k]!.number);
      sectionFrom = k;
    }
    previousIsHeading = heading;
  }
  return starts;
}
