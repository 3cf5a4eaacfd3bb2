/**
 * Word vectors: the semantic tier's lexical half, mixed with the sentence
 * encoder's meaning (lib/chunking/semantic/), and all it has on documents
 * too long for the model. No network, no model, the same vector for the
 * same text on every machine, in any language.
 *
 * A text becomes a bag of hashed features, folded into `dimensions` buckets
 * (the hashing trick, with a sign bit per feature so collisions cancel out
 * on average instead of piling up) and L2-normalised, so the dot product of
 * two vectors is their cosine similarity:
 *
 * - every word (letters, digits and marks, lowercased), weighted by how much
 *   it can say about a topic: function words of a few common languages
 *   count for nothing, numbers and very short words for little;
 * - the word's character 4-grams with boundary marks ("#chu", "chun", ...,
 *   "ked#"), sharing one word's worth of weight between them, so that
 *   inflections and compounds of a word ("chunk", "chunks", "chunking") and
 *   misspellings land near each other;
 * - in scripts written without spaces (Han, kana, Thai, ...), where a run of
 *   letters is a phrase rather than a word, character bigrams instead.
 *
 * Term frequency is sublinear (1 + ln tf): a word repeated ten times in a
 * sentence matters more than once, not ten times as much. No weight depends
 * on other texts (no document frequency): a text's vector is a function of
 * the text alone, whatever batch it arrives in.
 *
 * This separates topics by vocabulary, which is what finding topic shifts
 * in one document needs; it knows no synonyms ("car" and "automobile" are
 * unrelated to it). Speed: tens of MB/s.
 */
import type { Embedder } from "./types";

/** Buckets of the folded vector: a power of two. Fewer collide more (1024 separates topics measurably better than 512, 4096 little better than 1024). */
const DIMENSIONS = 1024;

/** Version of the feature recipe: changes whenever the same text would get a different vector. */
const HASHED_NGRAMS_ID = "local:hashed-ngrams-v1";

/**
 * Function words that occur in any topic. Common English, French, German,
 * Spanish, Italian, Portuguese and Dutch ones; other languages still get the
 * short-word discount.
 */
const STOPWORDS = new Set(
  (
    "a about above after again against all also am an and any are aren as at be because been before being below between both but by can " +
    "cannot could did do does doing done down during each else even ever few for from further get gets got had has have having he her here " +
    "hers herself him himself his how however i if in into is isn it its itself just let like made make many may me might more most much " +
    "must my myself neither no nor not now of off often on once one only or other others otherwise our ours ourselves out over own per " +
    "perhaps quite rather really same says see seen shall she should since so some such than that the their theirs them themselves then " +
    "there therefore these they this those though through thus to too under until up upon us use used using very via was we well were what " +
    "whatever when where whether which while who whom whose why will with within without would yet you your yours yourself yourselves " +
    "s t d ll m re ve don doesn didn won wouldn shouldn couldn " +
    // French
    "au aux avec ce ces cette dans de des du elle en est et eux il ils je la le les leur lui ma mais me mes moi mon ne nos notre nous ou " +
    "par pas pour qu que qui sa se ses son sur ta te tes toi ton tu un une vos votre vous y été être avoir sont était fait comme plus " +
    // German
    "aber als am an auch auf aus bei bin bis bist da damit dann das dass dein dem den der des dich die dir doch dort du durch ein eine " +
    "einem einen einer eines er es für hat hatte ich ihr ihre im in ist ja jede kann kein mich mit muss nach nicht noch nur ob oder sein " +
    "sich sie sind so um und uns unter vom von vor war was weil wenn wer wie wir wird wo zu zum zur über " +
    // Spanish, Italian, Portuguese
    "al algo como con cual de del el ella ellos en entre era es esta este eso hay la las lo los más mi muy no nos o para pero por que se " +
    "ser si sin sobre son su sus también te tu un una uno y ya il di che non per le da si una sono gli della nel alla ma anche come " +
    "do da em os as um uma ao na no pelo pela foi são ou mas " +
    // Dutch
    "het een van en dat die niet ik te zijn op aan met als voor er maar om hij ook nog bij uit wel zo dan"
  ).split(" "),
);

/** Scripts written without spaces between words, where character bigrams stand in for words. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

const NOT_WORD = 0;
const SPACED = 1;
const UNSPACED_LETTER = 2;
const UNKNOWN = 3;
/** Class of each UTF-16 code unit, filled on first sight (regex tests cost too much per character). Surrogates: not word characters. */
const classes = new Uint8Array(0x10000).fill(UNKNOWN);
for (let c = 0; c < 0x80; c++)
  classes[c] = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) ? SPACED : NOT_WORD;
for (let c = 0xd800; c < 0xe000; c++) classes[c] = NOT_WORD;

function classOf(c: number): number {
  const known = classes[c]!;
  if (known !== UNKNOWN) return known;
  const ch = String.fromCharCode(c);
  return (classes[c] = !WORD_CHAR.test(ch) ? NOT_WORD : UNSPACED.test(ch) ? UNSPACED_LETTER : SPACED);
}

/** murmur3's finaliser: spreads FNV's weak low bits over the whole word. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

/** FNV-1a over text[start, end), seeded so that each feature kind has its own hash space. */
function hashRange(text: string, start: number, end: number, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

const WORD_SEED = 0x1b873593;
const GRAM_SEED = 0x5bd1e995;
const BIGRAM_SEED = 0x27d4eb2f;
const BOUNDARY = 0x23; // '#'

/** Stopwords by their word-feature hash, so that words need not be cut out of the text to be looked up. */
const STOPWORD_HASHES = new Set([...STOPWORDS].map((w) => hashRange(w, 0, w.length, WORD_SEED)));

/** Weight of the word text[start, end) with feature hash `hash`: what it can say about a topic. */
function wordWeight(text: string, start: number, end: number, hash: number): number {
  if (STOPWORD_HASHES.has(hash)) return 0;
  const first = text.charCodeAt(start);
  if (first >= 0x30 && first <= 0x39) return 0.3; // numbers, years, version strings
  const length = end - start;
  if (length <= 2) return 0.6;
  if (length === 3) return 0.7;
  return 1;
}

/**
 * Term frequencies of one text, keyed by feature hash: an open-addressing
 * table reused across texts and cleared through the list of slots it used,
 * cheaper than a Map per text.
 */
class FeatureCounts {
  private keys = new Int32Array(1 << 12);
  private weights = new Float32Array(1 << 12);
  private counts = new Uint16Array(1 << 12);
  private used: number[] = [];

  /** Makes room for a text of `length` characters: at most two features per character (a word and a 4-gram). */
  reserve(length: number): void {
    let size = this.keys.length;
    while (size < 4 * length + 16) size *= 2;
    if (size === this.keys.length) return;
    this.keys = new Int32Array(size);
    this.weights = new Float32Array(size);
    this.counts = new Uint16Array(size);
  }

  add(hash: number, weight: number): void {
    const mask = this.keys.length - 1;
    const key = hash === 0 ? 1 : hash;
    let slot = key & mask;
    for (;;) {
      const k = this.keys[slot]!;
      if (k === key) {
        if (this.counts[slot]! < 0xffff) this.counts[slot]!++;
        return;
      }
      if (k === 0) break;
      slot = (slot + 1) & mask;
    }
    this.keys[slot] = key;
    this.weights[slot] = weight;
    this.counts[slot] = 1;
    this.used.push(slot);
  }

  /** Adds every feature's signed, sublinearly weighted value to its bucket, then forgets them. */
  foldInto(vector: Float32Array): void {
    const mask = vector.length - 1;
    for (const slot of this.used) {
      const key = mix(this.keys[slot]!);
      const value = this.weights[slot]! * (1 + Math.log(this.counts[slot]!));
      vector[key & mask]! += key < 0 ? -value : value;
      this.keys[slot] = 0;
    }
    this.used.length = 0;
  }
}

/** Character 4-grams of `#word#` for the word text[start, end) of at least 3 letters (it has length - 1 of them), hashed in place. */
function addFourGrams(features: FeatureCounts, text: string, start: number, end: number, weight: number): void {
  const each = weight / Math.sqrt(end - start - 1);
  for (let i = start - 1; i + 3 <= end; i++) {
    let h = 0x811c9dc5 ^ GRAM_SEED;
    for (let k = i; k < i + 4; k++)
      h = Math.imul(h ^ (k < start || k >= end ? BOUNDARY : text.charCodeAt(k)), 0x01000193);
    features.add(h, each);
  }
}

/** Character bigrams of a run of unspaced-script letters text[start, end) (a lone letter counts as itself, at half weight). */
function addBigrams(features: FeatureCounts, text: string, start: number, end: number): void {
  if (end - start === 1) {
    features.add(hashRange(text, start, end, BIGRAM_SEED), 0.5);
    return;
  }
  for (let i = start; i + 1 < end; i++) features.add(hashRange(text, i, i + 2, BIGRAM_SEED), 1);
}

export class HashedNgramEmbedder implements Embedder {
  readonly id = HASHED_NGRAMS_ID;
  readonly dimensions = DIMENSIONS;
  private readonly features = new FeatureCounts();

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  /** The vector of one text; synchronous, for callers that embed in a loop of their own. */
  embedOne(text: string): Float32Array {
    const features = this.features;
    const lower = text.toLowerCase();
    features.reserve(lower.length);
    const length = lower.length;
    for (let i = 0; i < length;) {
      const kind = classOf(lower.charCodeAt(i));
      if (kind === NOT_WORD) {
        i++;
        continue;
      }
      let end = i + 1;
      while (end < length && classOf(lower.charCodeAt(end)) === kind) end++;
      if (kind === UNSPACED_LETTER) addBigrams(features, lower, i, end);
      else {
        const hash = hashRange(lower, i, end, WORD_SEED);
        const weight = wordWeight(lower, i, end, hash);
        if (weight > 0) {
          features.add(hash, weight);
          if (end - i >= 3) addFourGrams(features, lower, i, end, weight);
        }
      }
      i = end;
    }
    const vector = new Float32Array(this.dimensions);
    features.foldInto(vector);
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
    if (norm > 0) {
      const scale = 1 / Math.sqrt(norm);
      for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
    }
    return vector;
  }
}
