import type { Chunk as WireChunk } from "@/lib/api-schema";
import type { TokenizerName } from "@/lib/tokens";

/**
 * A chunk as a range of the extracted text. Its text is `source.slice(start, end)`
 * unless the method rewrites it (`text`), as the structure tier does when it
 * re-fences a split code block, repeats a table's header row or closes an
 * HTML table cut between rows.
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
  /** What `maxTokens`, `overlapTokens` and every `tokenCount` are measured in; o200k_base when absent. */
  tokenizer?: TokenizerName;
}

/** A chunk as the chunkers make it: the wire chunk before `embed_text` is added when it is formatted. */
export type Chunk = Omit<WireChunk, "embed_text">;
