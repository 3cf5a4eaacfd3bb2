/** The semantic tier's tuning: what each weight does, and the values measured best on the development data. */

export interface SemanticTuning {
  /** Tokens in each block compared on either side of a gap. */
  blockTokens: number;
  maxBlockUnits: number;
  /** Cut where strength > mean + cutoff × sd of the valleys' strengths. */
  cutoff: number;
  /** Credit, in standard deviations of strength, of a gap at a blank line / a line break. */
  paragraphBonus: number;
  lineBonus: number;
  /** Sentences shorter than this join a neighbour before embedding. */
  minUnitTokens: number;
  /** Soft minimum chunk size: this fraction of maxTokens, at most `minChunkCap` tokens. */
  minChunkFraction: number;
  minChunkCap: number;
  /** Penalty, in standard deviations of strength, of an empty chunk; linear down to none at the minimum size. */
  shortPenalty: number;
  /** Chunks under this fraction of the soft minimum join their more similar neighbour after segmentation, where the two fit. */
  smallFraction: number;
  /** Weight of how far a gap's similarity lies below the document's mean similarity, added to its depth. */
  levelWeight: number;
  /** Share of word overlap (hashed words and n-grams) in the similarity at a gap, beside the embedder's (0..1). */
  lexicalWeight: number;
}

/**
 * Chosen by coordinate search (scripts/tune-semantic.ts) with the built-in
 * sentence encoder, minimising mean Pk over development samples built like
 * the evaluation's two topic-segmentation sets (mixed-length sections; and
 * Choi's 3-11 sentence segments) but drawn with another seed, at max_tokens
 * 512, 256 and 1024. `npm run eval` reports the sets it was not tuned on.
 */
export const DEFAULT_TUNING: SemanticTuning = {
  blockTokens: 80,
  maxBlockUnits: 8,
  cutoff: 0.75,
  paragraphBonus: 0.5,
  lineBonus: 1,
  minUnitTokens: 4,
  minChunkFraction: 0.5,
  minChunkCap: 160,
  shortPenalty: 0.25,
  levelWeight: 4,
  smallFraction: 0.25,
  lexicalWeight: 0.5,
};
