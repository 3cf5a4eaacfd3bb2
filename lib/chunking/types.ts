import type { Entity } from "./entity";

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

/**
 * A line of the chunk on its page as shown: left, top, right, bottom, as shares (0-1) of the page's width and height
 * from its top left corner. A type alias, not an interface, so it fits the store clients' index-signature types.
 */
export type ChunkBox = {
  page: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
};

export interface ChunkMetadata {
  chunk_index: number;
  char_count: number;
  start: number;
  end: number;
  token_count: number;
  page_start?: number;
  page_end?: number;
  /** PDFs and images: one box per line the chunk covers. */
  boxes?: ChunkBox[];
  /** Lines read by OCR: Tesseract's confidence in their words, 0-100, weighted by the characters the chunk holds. */
  ocr_confidence?: number;
  headings?: string[];
  /** ai-pro: what the chunk says, in a sentence or two. */
  summary?: string;
  /** ai-pro: the named entities it mentions. */
  entities?: Entity[];
}

export interface Chunk {
  text: string;
  metadata: ChunkMetadata;
}
