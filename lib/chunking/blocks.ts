/**
 * The block structure of a Markdown document as the structure tier reads it:
 * a tree of blocks, each with its range in the original text. Two parsers
 * produce it (markdown-scan.ts for Markdown, markdown-blocks.ts for plain
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
