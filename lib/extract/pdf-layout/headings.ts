/** Which blocks are headings, and their levels: size against the body text, or a different font at body size. */
import type { Block } from "./blocks";
import { type BodyStyle, HEADING_MIN_RATIO } from "./body-style";
import { roundSize, isTitleLike } from "./lines";

/** At most this many lines and characters: a big-type block longer than that is a lead paragraph, not a title. */
const HEADING_MAX_LINES = 3;
const HEADING_MAX_CHARS = 200;

/** The Markdown level (1–6) of a block, or undefined for body text. */
export type HeadingLevels = (block: Block, next: Block | undefined) => number | undefined;

/**
 * Heading levels by rank of size: the largest heading size in the document is
 * `#`, the next `##`, and so on; a title-like line in another font at body
 * size (a bold title) ranks below them all.
 */
export function headingLevels(blocks: Block[], body: BodyStyle): HeadingLevels {
  const bySize = (block: Block) => {
    const line = block.lines[0]!;
    // A numbered heading ("2. Methods") reads as a list item until its size says otherwise.
    const numbered = block.kind === "item" && /^\d+\. $/.test(block.marker.output);
    if (!(block.kind === "text" || numbered) || block.lines.length > HEADING_MAX_LINES || !/\p{L}/u.test(line.text))
      return false;
    if (block.lines.reduce((n, l) => n + l.text.length + 1, 0) > HEADING_MAX_CHARS) return false;
    // Slightly larger counts too when the font differs as well: 12pt bold over 11pt body.
    return line.size >= body.size * HEADING_MIN_RATIO || (line.size >= body.size * 1.05 && line.font !== body.font);
  };
  const sizes = [...new Set(blocks.filter(bySize).map((b) => roundSize(b.lines[0]!.size)))].sort((a, b) => b - a);
  // Sizes within a point of each other are one rank: producers scale the same style slightly differently.
  // Markdown stops at six levels, so does the search for a block's rank.
  const ranks: number[] = [];
  for (const size of sizes) if (ranks.length < 6 && (ranks.length === 0 || ranks.at(-1)! - size >= 1)) ranks.push(size);
  const rankOf = (size: number) => {
    let rank = 0;
    while (rank + 1 < ranks.length && ranks[rank + 1]! >= roundSize(size) - 0.5) rank++;
    return rank;
  };

  const isBoldTitle = (block: Block, next: Block | undefined) => {
    const line = block.lines[0]!;
    if (block.kind !== "text" || block.lines.length !== 1 || !isTitleLike(line)) return false;
    if (line.font === body.font || Math.abs(line.size - body.size) > body.size * 0.05) return false;
    // Followed by body text: an italic caption at the foot of a page is not a title.
    return next !== undefined && next.lines[0]!.font === body.font;
  };

  return (block, next) => {
    if (bySize(block)) return Math.min(6, rankOf(block.lines[0]!.size) + 1);
    if (isBoldTitle(block, next)) return Math.min(6, ranks.length + 1);
    return undefined;
  };
}
