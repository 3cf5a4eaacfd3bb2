import type { Extracted, PageRange } from "@/lib/extract/types";
import type { TierId } from "@/lib/tiers";
import { splitRecursive } from "./recursive";
import { splitSemantic } from "./semantic";
import { splitExtractedStructure } from "./structure";
import type { Chunk, MethodContext, Span, SplitOptions } from "./types";

interface Method {
  name: string;
  split(extracted: Extracted, options: SplitOptions, context: MethodContext): Span[] | Promise<Span[]>;
}

const recursive: Method = { name: "recursive", split: (extracted, options) => splitRecursive(extracted.text, options) };

/**
 * Which method each tier runs. Tiers whose own method has not landed run the
 * recursive splitter; `GET /api` says so through `methodFor`.
 */
const METHODS: Record<TierId, Method> = {
  free: recursive,
  structure: { name: "structure", split: splitExtractedStructure },
  semantic: { name: "semantic", split: (extracted, options, context) => splitSemantic(extracted.text, options, context.embedder) },
  ai: recursive,
  "ai-pro": recursive,
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

export async function chunkExtracted(extracted: Extracted, tier: TierId, options: SplitOptions, context: MethodContext): Promise<Chunk[]> {
  const spans = await METHODS[tier].split(extracted, options, context);
  return spans.map((span, index) => {
    const text = span.text ?? extracted.text.slice(span.start, span.end);
    const chunk: Chunk = {
      text,
      metadata: { chunk_index: index, char_count: countCodePoints(text), start: span.start, end: span.end, token_count: span.tokenCount },
    };
    if (span.headings) chunk.metadata.headings = span.headings;
    if (extracted.pages?.length) {
      chunk.metadata.page_start = pageAt(extracted.pages, span.start);
      chunk.metadata.page_end = pageAt(extracted.pages, span.end - 1);
    }
    return chunk;
  });
}
