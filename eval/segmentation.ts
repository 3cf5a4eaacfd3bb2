import type { Config } from "@/lib/ground/config";
import type { Extracted } from "@/lib/extract/types";
import { countTokens } from "@/lib/tokens";
import { mulberry32 } from "@/tests/helpers/random";
import { extractBytes } from "./corpora";
import { markdownElements } from "./markdown-elements";

/**
 * The topic-segmentation set: samples made by concatenating sections of
 * different documents (Choi 2000's construction), so the true topic
 * boundaries are known. Sections are runs of whole sentences from a random
 * place in a source, of varied length; paragraph breaks inside a section and
 * between sections look the same ("\n\n"), and headings are left out, so
 * only the content tells where a topic changes.
 */

/** A source of prose: one topic per document. */
export interface SourceDocument {
  id: string;
  genre: string;
  paragraphs: string[];
}

export interface SegmentationSample {
  id: string;
  extracted: Extracted;
  /** Character offsets where a section other than the first starts. */
  boundaries: number[];
  /** Source id of each section, in order. */
  sources: string[];
}

export interface SegmentationOptions {
  samples: number;
  seed: number;
  /** Sections per sample, inclusive. */
  sections: [number, number];
  /** Section lengths in tokens: a band is drawn first, then a length in it, so short and long sections both occur. */
  lengthBands: Array<[number, number]>;
}

export const DEFAULT_SEGMENTATION: SegmentationOptions = {
  samples: 48,
  seed: 4_2024,
  sections: [4, 8],
  lengthBands: [
    [40, 120],
    [120, 300],
    [300, 700],
  ],
};

// ---------------------------------------------------------------------------
// Source readers
// ---------------------------------------------------------------------------

/** WikiText articles: " = Title = " lines open an article, " = = Section = = " lines are dropped. */
export function wikitextArticles(text: string, idPrefix: string): SourceDocument[] {
  const articles: SourceDocument[] = [];
  let current: SourceDocument | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    const title = /^= ([^=].*) =$/.exec(line);
    if (title) {
      current = { id: `${idPrefix}:${title[1]!.trim()}`, genre: "encyclopedia", paragraphs: [] };
      articles.push(current);
    } else if (/^(= )+.*( =)+$/.test(line)) continue;
    else current?.paragraphs.push(line);
  }
  // Stray one-line "articles" are table debris of the WikiText dump (" = Goals ; A = ").
  return articles.filter((a) => countTokens(a.paragraphs.join("\n\n")) > 600);
}

const TURN = /'content': (?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'), 'role'/g;

/** Chat logs stored one conversation per line as Python reprs of [{'content', 'role'}, ...]: each turn's paragraphs. */
export function chatConversations(text: string, idPrefix: string): SourceDocument[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("[{"))
    .map((line, i) => {
      const paragraphs = [...line.matchAll(TURN)]
        .map((m) => (m[1] ?? m[2] ?? "").replace(/\\n/g, "\n").replace(/\\(['"\\])/g, "$1"))
        .flatMap((turn) => turn.split(/\n\s*\n/))
        .map((p) => p.replace(/\s*\n\s*/g, " ").trim())
        .filter((p) => p.length > 0);
      return { id: `${idPrefix}:${i + 1}`, genre: "chat", paragraphs };
    })
    .filter((c) => c.paragraphs.length > 0);
}

/** The prose paragraphs of a Markdown document: no headings, code, tables, lists or HTML. */
export function markdownProse(text: string, id: string, genre: string): SourceDocument {
  const structural = markdownElements(text);
  const paragraphs = text
    .split(/\n[^\S\n]*\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0 && !/^(#|\||```|~~~|<|[-*+] |\d+[.)] |>|!\[|\[!)/.test(p) && !p.startsWith("    "))
    .filter((p) => !structural.some((e) => e.kind === "fence" && text.slice(e.start, e.end).includes(p)))
    .map((p) => p.replace(/\s*\n\s*/g, " "));
  return { id, genre, paragraphs };
}

/** Plain text whose paragraphs are separated by blank lines (licence texts and the like); short lines such as headings are left out. */
export function plainProse(text: string, id: string, genre: string): SourceDocument {
  const paragraphs = text
    .split(/\n[^\S\n]*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, " ").trim())
    .filter((p) => p.split(" ").length >= 8);
  return { id, genre, paragraphs };
}

// ---------------------------------------------------------------------------
// Sample construction
// ---------------------------------------------------------------------------

const sentenceSegmenter = new Intl.Segmenter("en", { granularity: "sentence" });

interface Sentence {
  paragraph: number;
  text: string;
}

function sentencesOf(source: SourceDocument): Sentence[] {
  return source.paragraphs.flatMap((p, paragraph) =>
    [...sentenceSegmenter.segment(p)]
      .map((s) => ({ paragraph, text: s.segment.trim() }))
      .filter((s) => s.text.length > 0),
  );
}

/** Whole sentences from `from` until `target` tokens, paragraph breaks kept. */
function takeSection(sentences: Sentence[], from: number, target: number): string {
  const paragraphs: string[][] = [];
  let tokens = 0;
  let lastParagraph = -1;
  for (let i = from; i < sentences.length && tokens < target; i++) {
    const s = sentences[i]!;
    if (s.paragraph !== lastParagraph) paragraphs.push([]);
    lastParagraph = s.paragraph;
    paragraphs[paragraphs.length - 1]!.push(s.text);
    tokens += countTokens(s.text) + 1;
  }
  return paragraphs.map((p) => p.join(" ")).join("\n\n");
}

/**
 * Seeded draws from the sources with at least `minSentences` sentences:
 * `documentAfter` draws a genre first, then a document of it other than
 * `previous`, so every genre is equally present whatever its number of
 * documents (undefined when that genre has no other).
 */
function sourceDraws(sources: SourceDocument[], minSentences: number, seed: number, set: string) {
  const usable = sources
    .map((source) => ({ source, sentences: sentencesOf(source) }))
    .filter((s) => s.sentences.length >= minSentences);
  if (new Set(usable.map((u) => u.source.id)).size < 3)
    throw new Error(`${set}: fewer than three usable source documents`);
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const genres = [...new Set(usable.map((u) => u.source.genre))].sort();
  const documentAfter = (previous: string | undefined) => {
    const genre = pick(genres);
    const candidates = usable.filter((u) => u.source.genre === genre && u.source.id !== previous);
    return candidates.length > 0 ? pick(candidates) : undefined;
  };
  return { random, pick, between, documentAfter };
}

/** A sample of `sections` joined by `joiner`, with the true boundaries; its text must come out of extraction unchanged. */
async function sampleOf(
  id: string,
  sections: string[],
  sources: string[],
  joiner: string,
  limits: Config["limits"],
): Promise<SegmentationSample> {
  const boundaries: number[] = [];
  let offset = 0;
  sections.forEach((section, i) => {
    if (i > 0) boundaries.push(offset);
    offset += section.length + joiner.length;
  });
  const text = sections.join(joiner);
  const extracted = await extractBytes(new TextEncoder().encode(text), `${id}.txt`, limits);
  if (extracted.text !== text) throw new Error(`${id}: extraction changed the text, the boundaries would be off`);
  return { id, extracted, boundaries, sources };
}

export async function buildSegmentationSet(
  sources: SourceDocument[],
  options: SegmentationOptions,
  limits: Config["limits"],
): Promise<SegmentationSample[]> {
  const { pick, between, documentAfter } = sourceDraws(sources, 8, options.seed, "segmentation set");
  const samples: SegmentationSample[] = [];
  for (let n = 0; n < options.samples; n++) {
    const count = between(...options.sections);
    const sections: string[] = [];
    const ids: string[] = [];
    while (sections.length < count) {
      const drawn = documentAfter(ids[ids.length - 1]);
      if (!drawn) continue;
      const { source, sentences } = drawn;
      const [lo, hi] = pick(options.lengthBands);
      const target = between(lo, hi);
      // Start at a paragraph's first sentence, leaving room for the section where possible.
      const starts = sentences
        .map((s, i) => (i === 0 || sentences[i - 1]!.paragraph !== s.paragraph ? i : -1))
        .filter((i) => i >= 0);
      const section = takeSection(sentences, pick(starts), target);
      if (countTokens(section) < Math.min(lo, 30)) continue;
      sections.push(section);
      ids.push(source.id);
    }
    samples.push(await sampleOf(`segmentation-${n + 1}`, sections, ids, "\n\n", limits));
  }
  return samples;
}

/**
 * Choi (2000)'s construction: samples of `segments` segments, each a run of
 * consecutive sentences (a number drawn from one range of `sentenceRanges`,
 * the ranges taking turns between samples) from a different document than
 * the one before, one sentence a line, so that no layout tells where a
 * segment ends. Choi took each segment from a document's start; here it
 * starts at a random sentence, so one document gives many segments.
 */
export interface ChoiOptions {
  samples: number;
  seed: number;
  segments: number;
  sentenceRanges: Array<[number, number]>;
}

export const CHOI_SET: ChoiOptions = {
  samples: 40,
  seed: 2000,
  segments: 10,
  sentenceRanges: [
    [3, 5],
    [6, 8],
    [9, 11],
    [3, 11],
  ],
};

export async function buildChoiSet(
  sources: SourceDocument[],
  options: ChoiOptions,
  limits: Config["limits"],
): Promise<SegmentationSample[]> {
  const { random, between, documentAfter } = sourceDraws(sources, 12, options.seed, "Choi-style set");
  const samples: SegmentationSample[] = [];
  for (let n = 0; n < options.samples; n++) {
    const [lo, hi] = options.sentenceRanges[n % options.sentenceRanges.length]!;
    const segments: string[] = [];
    const ids: string[] = [];
    while (segments.length < options.segments) {
      const drawn = documentAfter(ids[ids.length - 1]);
      if (!drawn) continue;
      const { source, sentences } = drawn;
      const count = Math.min(between(lo, hi), sentences.length);
      const from = Math.floor(random() * (sentences.length - count + 1));
      segments.push(
        sentences
          .slice(from, from + count)
          .map((s) => s.text.replace(/\s+/g, " "))
          .join("\n"),
      );
      ids.push(source.id);
    }
    samples.push(await sampleOf(`choi-${lo}-${hi}-${n + 1}`, segments, ids, "\n", limits));
  }
  return samples;
}

/**
 * The samples of a set as one long document, their sections joined as in a
 * sample: the semantic tier as it runs on documents too long for the
 * built-in model to read whole.
 */
export async function concatenatedSample(
  id: string,
  samples: readonly SegmentationSample[],
  joiner: string,
  limits: Config["limits"],
): Promise<SegmentationSample> {
  const sections: string[] = [];
  const ids: string[] = [];
  for (const { extracted, boundaries, sources } of samples) {
    const cuts = [0, ...boundaries, extracted.text.length];
    for (let i = 1; i < cuts.length; i++) sections.push(extracted.text.slice(cuts[i - 1], cuts[i]).trimEnd());
    ids.push(...sources);
  }
  return sampleOf(id, sections, ids, joiner, limits);
}
