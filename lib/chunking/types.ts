import type { Embedder } from "@/lib/embeddings/types";

/**
 * A chunk as a range of the extracted text. Its text is `source.slice(start, end)`
 * unless the method rewrites it (`text`), as the structure tier does when it
 * re-fences a split code block or repeats a table's header row.
 */
export interface Span {
  start: number;
  end: number;
  tokenCount: number;
  text?: string;
  /** The path of section titles above the chunk (structure tier and up). */
  headings?: string[];
}

export interface SplitOptions {
  maxTokens: number;
  overlapTokens: number;
}

/** What a method may use besides the text: side effects arrive here, chosen at start-up. */
export interface MethodContext {
  embedder: Embedder;
}

export interface ChunkMetadata {
  chunk_index: number;
  char_count: number;
  start: number;
  end: number;
  token_count: number;
  page_start?: number;
  page_end?: number;
  headings?: string[];
}

export interface Chunk {
  text: string;
  metadata: ChunkMetadata;
}
