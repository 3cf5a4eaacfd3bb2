/**
 * What the structure tier's packing weighs: the cost of a chunk boundary
 * before each kind of unit, relative to the cost of one more chunk (1), and
 * the budgets units and chunks are held to.
 */
export const CHUNK = 1;
export const BREAK = {
  section: 0,
  block: 0.05,
  /** Between the blocks inside a block quote or a list item. */
  inner: 0.12,
  /** Between list items at depth 0; deeper ones add `itemDepth` per level. */
  item: 0.15,
  itemDepth: 0.08,
  row: 0.2,
  codeBlank: 0.2,
  codeLine: 0.45,
  /** A sentence that ends a line. */
  lineSentence: 0.15,
  sentence: 1,
  /** Inside a sentence (words), a table row or a code line: only when it alone is too big. */
  word: 4,
  /** After a heading or an opening fence, before a closing fence: only when nothing else fits. */
  glue: 40,
} as const;
/** Weight of the squared unfilled share of a chunk: evens out sizes, second to boundary quality. */
export const UNFILLED = 0.25;
/** Per section change inside a chunk. */
export const SECTION_MIX = 0.3;

/** Tokens a unit keeps free for the few that joining texts can add (a fence or header added, edges re-scanned). */
export const JOIN_SLACK = 2;
/** Estimates this far under the limit are taken to fit; between NEAR and FAR they are counted exactly. */
export const NEAR = 8;
export const FAR = 24;
/** Fewest tokens `maxTokens` may be: a re-fenced line needs room next to its fences, a heading next to its body. */
export const MIN_MAX_TOKENS = 16;
/** `splitToFit`'s smallest budget (a code point can take 4 tokens). */
export const MIN_PIECE_TOKENS = 4;
