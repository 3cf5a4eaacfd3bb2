/**
 * The free tier's method: the document cut at its coarsest separators
 * (paragraphs, lines, sentences, words, graphemes) into chunks of at most
 * `maxTokens`, with the requested overlap; no structure and no model. The
 * splitting itself is the fitting library the other tiers share
 * (fit/split-to-fit.ts); this module is the tier's entry to it.
 */
import { splitToFit } from "./fit/split-to-fit";
import type { Span, SplitOptions } from "./types";

export function splitRecursive(text: string, options: SplitOptions): Span[] {
  return splitToFit(text, options);
}
