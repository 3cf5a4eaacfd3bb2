import { findBoundaries } from "@/lib/ai/boundaries";
import { type ModelClient, requireModel } from "@/lib/ai/model-client";
import type { Extracted, PageRange } from "@/lib/extract/types";
import type { TierId } from "@/lib/tiers";
import { splitRecursive } from "./recursive";
import { splitSemantic } from "./semantic";
import { splitStructure, structureFlavor } from "./structure";
import type { Chunk, MethodContext, MethodDetails, SplitOptions, SplitResult } from "./types";

interface Method {
  name: string;
  split: (extracted: Extracted, options: SplitOptions, context: MethodContext) => SplitResult | Promise<SplitResult>;
}

/**
 * The AI tiers' method: a model finds section boundaries (lib/ai/boundaries.ts),
 * the structure splitter cuts along them and the headings, within `maxTokens`.
 * Where the model's answers were unusable, the structure splitter alone decides.
 */
async function splitWithModel(
  extracted: Extracted,
  options: SplitOptions,
  context: MethodContext,
  model: ModelClient,
): Promise<SplitResult> {
  const boundaries = await findBoundaries(extracted.text, model, {
    concurrency: context.modelConcurrency ?? 4,
    onProgress: context.progress && ((done, total) => context.progress!.boundaries(done, total)),
    signal: context.signal,
  });
  return {
    spans: splitStructure(extracted.text, {
      ...options,
      flavor: structureFlavor(extracted),
      sectionStarts: boundaries.sectionStarts,
    }),
    details: {
      model: model.model,
      units: boundaries.units,
      windows: boundaries.windows,
      sections_found: boundaries.sectionStarts.length,
      fallback: boundaries.fallback,
    },
  };
}

/** Which method each tier runs. */
const METHODS: Record<TierId, Method> = {
  free: { name: "recursive", split: (extracted, options) => ({ spans: splitRecursive(extracted.text, options) }) },
  structure: {
    name: "structure",
    split: (extracted, options) => ({
      spans: splitStructure(extracted.text, { ...options, flavor: structureFlavor(extracted) }),
    }),
  },
  semantic: {
    name: "semantic",
    split: async (extracted, options, context) => ({
      spans: await splitSemantic(extracted.text, options, context.embedder),
    }),
  },
  ai: {
    name: "ai-boundaries",
    split: (extracted, options, context) =>
      splitWithModel(extracted, options, context, requireModel(context.models, "ai")),
  },
  // Enrichment follows in the pipeline, on the chunks.
  "ai-pro": {
    name: "ai-boundaries-enriched",
    split: (extracted, options, context) =>
      splitWithModel(extracted, options, context, requireModel(context.models, "ai-pro")),
  },
};

export const methodFor = (tier: TierId) => METHODS[tier].name;

/** The page holding character `offset`: the last page starting at or before it. */
function pageAt(pages: PageRange[], offset: number): number {
  let lo = 0;
  let hi = pages.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (pages[mid]!.start <= offset) lo = mid;
    else hi = mid - 1;
  }
  return pages[lo]!.number;
}

/** `char_count` counts Unicode code points (what "characters" means to most clients); `start`/`end` are UTF-16 offsets, JavaScript string indices. */
function countCodePoints(text: string): number {
  let surrogates = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) surrogates++;
  }
  return text.length - surrogates;
}

export async function chunkExtracted(
  extracted: Extracted,
  tier: TierId,
  options: SplitOptions,
  context: MethodContext,
): Promise<{ chunks: Chunk[]; details?: MethodDetails }> {
  const { spans, details } = await METHODS[tier].split(extracted, options, context);
  const chunks = spans.map((span, index) => {
    const text = span.text ?? extracted.text.slice(span.start, span.end);
    const chunk: Chunk = {
      text,
      metadata: {
        chunk_index: index,
        char_count: countCodePoints(text),
        start: span.start,
        end: span.end,
        token_count: span.tokenCount,
      },
    };
    if (span.headings) chunk.metadata.headings = span.headings;
    if (extracted.pages?.length) {
      chunk.metadata.page_start = pageAt(extracted.pages, span.start);
      chunk.metadata.page_end = pageAt(extracted.pages, span.end - 1);
    }
    return chunk;
  });
  return { chunks, details };
}
