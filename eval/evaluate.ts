import type { Extracted } from "@/lib/extract/types";
import { countTokens } from "@/lib/tokens";
import type { QaDocument } from "./corpora";
import { type ElementKind, type MarkdownElement, markdownElements } from "./markdown-elements";
import type { MeasuredChunk, Method } from "./methods";
import { type Scale, cutElements, pk, scoreExcerpts, sizeStats, windowDiff } from "./metrics";
import type { SegmentationSample } from "./segmentation";
import { tokenScale } from "./token-scale";

/** What the harness knows about a document once, whatever method runs on it. */
interface Prepared {
  scale: Scale;
  totalTokens: number;
  /** Markdown elements with their own token counts (Markdown-derived text only). */
  elements: Array<MarkdownElement & { tokens: number }>;
}

const prepared = new WeakMap<Extracted, Prepared>();

/** Markdown, HTML and DOCX extract to Markdown; PDFs and plain text have no Markdown structure to damage. */
const isMarkdown = (extracted: Extracted) =>
  extracted.kind === "markdown" || extracted.kind === "html" || extracted.kind === "docx";

function prepare(extracted: Extracted): Prepared {
  let p = prepared.get(extracted);
  if (!p) {
    const { scale, total } = tokenScale(extracted.text);
    const elements = isMarkdown(extracted)
      ? markdownElements(extracted.text).map((e) => ({
          ...e,
          tokens: countTokens(extracted.text.slice(e.start, e.end)),
        }))
      : [];
    p = { scale, totalTokens: total, elements };
    prepared.set(extracted, p);
  }
  return p;
}

export interface CorpusScores {
  corpus: string;
  excerpts: number;
  whole: number;
  iou: number;
  meanTokens: number;
}

export type Damage = Record<ElementKind, { cut: number; total: number; oversized: number }>;

export interface MethodScores {
  excerpts: number;
  whole: number;
  iou: number;
  chunks: number;
  meanTokens: number;
  stdTokens: number;
  maxTokensSeen: number;
  /** Chunks over the budget, by their own o200k count. */
  overBudget: number;
  /** Elements that fit the budget yet were cut, per kind; `oversized` ones (larger than the budget) must be cut and are not counted. */
  damage: Damage;
  pk: number;
  windowDiff: number;
  segmentationSamples: number;
  perCorpus: CorpusScores[];
  seconds: number;
}

function emptyDamage(): Damage {
  return {
    fence: { cut: 0, total: 0, oversized: 0 },
    row: { cut: 0, total: 0, oversized: 0 },
    item: { cut: 0, total: 0, oversized: 0 },
  };
}

function checkRanges(method: Pick<Method, "id">, text: string, chunks: MeasuredChunk[]): void {
  for (const c of chunks)
    if (!(c.start >= 0 && c.end <= text.length && c.start < c.end))
      throw new Error(`${method.id}: chunk range [${c.start}, ${c.end}) outside the text (length ${text.length})`);
}

export async function evaluateMethod(
  method: Method,
  maxTokens: number,
  documents: QaDocument[],
  samples: SegmentationSample[],
): Promise<MethodScores> {
  const started = performance.now();
  const sizes: number[] = [];
  const damage = emptyDamage();
  let excerpts = 0;
  let wholeSum = 0;
  let iouSum = 0;
  const byCorpus = new Map<string, { excerpts: number; whole: number; iou: number; sizes: number[] }>();
  for (const doc of documents) {
    const chunks = await method.chunk(doc.extracted, maxTokens);
    checkRanges(method, doc.extracted.text, chunks);
    const { scale, elements } = prepare(doc.extracted);
    const scores = scoreExcerpts(doc.excerpts, chunks, scale);
    excerpts += scores.excerpts;
    wholeSum += scores.whole * scores.excerpts;
    iouSum += scores.iou * scores.excerpts;
    sizes.push(...chunks.map((c) => c.tokens));
    const corpus = byCorpus.get(doc.corpus) ?? { excerpts: 0, whole: 0, iou: 0, sizes: [] };
    corpus.excerpts += scores.excerpts;
    corpus.whole += scores.whole * scores.excerpts;
    corpus.iou += scores.iou * scores.excerpts;
    corpus.sizes.push(...chunks.map((c) => c.tokens));
    byCorpus.set(doc.corpus, corpus);
    const fitting = elements.filter((e) => e.tokens <= maxTokens);
    for (const e of elements) {
      damage[e.kind].total++;
      if (e.tokens > maxTokens) damage[e.kind].oversized++;
    }
    for (const e of cutElements(fitting, chunks)) damage[e.kind].cut++;
  }

  const segmentation = await segmentationScores(method, maxTokens, samples);

  const stats = sizeStats(sizes);
  return {
    excerpts,
    whole: excerpts ? wholeSum / excerpts : Number.NaN,
    iou: excerpts ? iouSum / excerpts : Number.NaN,
    chunks: stats.count,
    meanTokens: stats.mean,
    stdTokens: stats.std,
    maxTokensSeen: sizes.reduce((a, b) => Math.max(a, b), 0),
    overBudget: sizes.filter((s) => s > maxTokens).length,
    damage,
    pk: segmentation.pk,
    windowDiff: segmentation.windowDiff,
    segmentationSamples: samples.length,
    perCorpus: [...byCorpus].map(([corpus, c]) => ({
      corpus,
      excerpts: c.excerpts,
      whole: c.excerpts ? c.whole / c.excerpts : Number.NaN,
      iou: c.excerpts ? c.iou / c.excerpts : Number.NaN,
      meanTokens: sizeStats(c.sizes).mean,
    })),
    seconds: (performance.now() - started) / 1000,
  };
}

/** Pk and WindowDiff of a method's chunk starts against the samples' true boundaries, averaged over samples (NaN without samples). */
export async function segmentationScores(
  method: Pick<Method, "id" | "chunk">,
  maxTokens: number,
  samples: readonly SegmentationSample[],
): Promise<{ pk: number; windowDiff: number }> {
  let pkSum = 0;
  let wdSum = 0;
  for (const sample of samples) {
    const chunks = await method.chunk(sample.extracted, maxTokens);
    checkRanges(method, sample.extracted.text, chunks);
    const { scale, totalTokens } = prepare(sample.extracted);
    const length = Math.round(totalTokens);
    const toUnits = (offsets: number[]) =>
      [...new Set(offsets.map((o) => Math.round(scale(o))).filter((b) => b > 0 && b < length))].sort((a, b) => a - b);
    const reference = { length, boundaries: toUnits(sample.boundaries) };
    const hypothesis = { length, boundaries: toUnits(chunks.slice(1).map((c) => c.start)) };
    pkSum += pk(reference, hypothesis);
    wdSum += windowDiff(reference, hypothesis);
  }
  return {
    pk: samples.length ? pkSum / samples.length : Number.NaN,
    windowDiff: samples.length ? wdSum / samples.length : Number.NaN,
  };
}
