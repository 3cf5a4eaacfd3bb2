import type { Extracted, PageRange } from "@/lib/extract/types";
import type { TierId } from "@/lib/tiers";
import { splitRecursive } from "./recursive";
import type { Chunk, Span, SplitOptions } from "./types";

/**
 * Which method each tier runs. Paid tiers use the recursive splitter until
 * their own methods land; `GET /api` says so through `methodFor`.
 */
const METHODS: Record<TierId, { name: string; split: (text: string, options: SplitOptions) => Span[] }> = {
  free: { name: "recursive", split: splitRecursive },
  structure: { name: "recursive", split: splitRecursive },
  semantic: { name: "recursive", split: splitRecursive },
  ai: { name: "recursive", split: splitRecursive },
  "ai-pro": { name: "recursive", split: splitRecursive },
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

export function chunkExtracted(extracted: Extracted, tier: TierId, options: SplitOptions): Chunk[] {
  const spans = METHODS[tier].split(extracted.text, options);
  return spans.map((span, index) => {
    const text = extracted.text.slice(span.start, span.end);
    const chunk: Chunk = {
      text,
      metadata: { chunk_index: index, char_count: countCodePoints(text), start: span.start, end: span.end, token_count: span.tokenCount },
    };
    if (extracted.pages?.length) {
      chunk.metadata.page_start = pageAt(extracted.pages, span.start);
      chunk.metadata.page_end = pageAt(extracted.pages, span.end - 1);
    }
    return chunk;
  });
}
