/** A chunk as a range of the extracted text; the text itself is always `source.slice(start, end)`. */
export interface Span {
  start: number;
  end: number;
  tokenCount: number;
}

export interface SplitOptions {
  maxTokens: number;
  overlapTokens: number;
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
