/**
 * The block structure of a Markdown document as the structure tier reads it:
 * a tree of blocks, each with its range in the original text. Two parsers
 * produce it (scan.ts for Markdown, mdast-blocks.ts for plain
 * text); tests hold them to the same trees.
 *
 * Ranges follow mdast's positions: a block starts at its first character
 * after its containers' markers and its own indentation (a list item at its
 * marker, a block quote at its `>`) and ends after its last non-blank
 * character; a container ends where its last child ends.
 */
export type BlockType =
  | "heading"
  | "paragraph"
  | "code"
  | "html"
  | "thematicBreak"
  | "definition"
  | "table"
  | "tableRow"
  | "list"
  | "listItem"
  | "blockquote"
  | "footnoteDefinition";

export interface Block {
  type: BlockType;
  start: number;
  end: number;
  /** Blocks inside a list, list item, block quote or footnote definition; rows of a table (the header row first). */
  children: Block[];
  /** Headings: 1 to 6. */
  depth?: number;
  /** Lists: numbered or not. */
  ordered?: boolean;
}

export interface BlockParseOptions {
  /**
   * Plain text and PDF text: indentation is layout there, not an indented
   * code block, so that construct is turned off.
   */
  plain?: boolean;
}

/** HTML blocks that run until an end marker, blank lines included (CommonMark kinds 1 to 5), with that marker. */
const HTML_UNTIL_MARKER: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/^[ \t]*<(?:script|pre|style|textarea)(?=[\s>]|$)/i, /<\/(?:script|pre|style|textarea)>/i],
  [/^[ \t]*<!--/, /-->/],
  [/^[ \t]*<\?/, /\?>/],
  [/^[ \t]*<![A-Za-z]/, />/],
  [/^[ \t]*<!\[CDATA\[/, /\]\]>/],
];

/** Whether an HTML block (its source, from its start) is of a kind that runs to an end marker and has not met it. */
export function htmlLeftOpen(source: string): boolean {
  const firstLine = source.slice(0, source.indexOf("\n") >>> 0);
  const kind = HTML_UNTIL_MARKER.find(([opening]) => opening.test(firstLine));
  // The marker may sit on the opening line itself (after the opening), as in `<!-- note -->`.
  return kind !== undefined && !kind[1].test(source.slice(firstLine.search(/</) + 2));
}
