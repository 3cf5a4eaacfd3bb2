/**
 * The block structure of plain text and PDF text (blocks.ts), from the full
 * Markdown parser with indented code turned off: indentation is layout there,
 * and with that construct off micromark lets every other construct start
 * after any indentation, which markdown-it's rules (scan.ts, for
 * Markdown) cannot be told. Below: the mdast tree, then its blocks.
 *
 * The tree comes from the real parser
 * (mdast-util-from-markdown with GFM: tables, task lists, footnotes), as the
 * document's top-level nodes, every block node's `position.start.offset` /
 * `position.end.offset` being an offset in the original text.
 *
 * Three things keep parsing affordable (micromark reads about half a
 * megabyte a second here, and some of its resolvers rewrite the whole event
 * list each time they fire, e.g. once per setext heading, which is quadratic
 * on a long document):
 * - the parser reads a skeleton of the document (skeleton.ts), so
 *   inline content in the tree is mangled and line/column numbers are the
 *   skeleton's: use block offsets only, and read text from the original;
 * - inline content is mostly not parsed (see `gfmBlocks`): what the tree
 *   holds below paragraphs, headings and cells, and code blocks' `lang` and
 *   `meta`, mean nothing;
 * - the skeleton is parsed in pieces of a few kilobytes, cut before a line
 *   that starts at column 0 with a letter or `#` after a blank line. Such a
 *   line ends every open block (a list item, a quote, an indented code block,
 *   a table, a paragraph: none continues across a blank line without
 *   indentation) except a fenced code block or an HTML block of the kinds
 *   that run to an end marker (`<script>`, `<!--`...). A piece whose last
 *   block is one of those, still open, is parsed again together with the
 *   next piece. Tests compare the result with a parse of the whole document.
 */
import type { Nodes, Root, RootContent } from "mdast";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfm } from "micromark-extension-gfm";
import { type Block, type BlockParseOptions, htmlLeftOpen } from "./blocks";
import { markdownSkeleton } from "./skeleton";

/** A micromark syntax extension (the type lives in micromark-util-types, not a dependency of ours). */
type Extension = ReturnType<typeof gfm>;

/** Skeleton characters per piece, at least (pieces end at the next safe place). */
const PIECE_CHARS = 8192;
/** A blank line followed by a line starting at column 0 with a letter (any non-ASCII character starts a paragraph too) or `#`. */
const SAFE_CUT = /\n[ \t]*\n(?=[#A-Za-z\u0080-\uffff])/g;

/**
 * GFM for block structure only. Inline content is mangled in a skeleton
 * anyway, and tokenizing it took over a third of the parse: GFM's literal autolinks
 * alone make every letter and digit a place where a construct is tried. No
 * inline construct decides where a block starts or ends (GFM table cells are
 * cut by the table's own flow construct, link reference definitions by the
 * content construct), with one exception: after a task list check ("[ ] "),
 * mdast moves the item paragraph's start past the space only when the
 * paragraph's first inline node is text. So the task list check stays, and a
 * piece holding one is parsed again with inline constructs on.
 */
function gfmBlocks(): Extension {
  const extension = gfm();
  const text: NonNullable<Extension["text"]> = {};
  for (const [code, constructs] of Object.entries(extension.text ?? {})) {
    const kept = [constructs ?? []].flat().filter((construct) => construct.name === "tasklistCheck");
    if (kept.length > 0) text[Number(code)] = kept;
  }
  // `insideSpan` holds strikethrough's resolver: with no strikethrough, nothing to resolve.
  return { ...extension, text, insideSpan: {} };
}

/**
 * CommonMark's inline constructs, turned off by name (they cannot be left
 * out like GFM's). Escapes and character references are also `string`
 * constructs (in a fence's info string or a definition's URL): values this
 * module does not read. Line endings stay on.
 */
const COMMONMARK_INLINE = [
  "attention",
  "autolink",
  "characterEscape",
  "characterReference",
  "codeText",
  "hardBreakEscape",
  "htmlText",
  "labelEnd",
  "labelStartImage",
  "labelStartLink",
];

/** Nodes whose children are inline content: below them positions are left as the skeleton's. */
const INLINE_PARENTS = new Set(["paragraph", "heading", "tableCell"]);

// Any indentation: with indented code turned off (plain text), these may start after 4 spaces or more.
const OPENING_FENCE = /^[ \t]*(`{3,}|~{3,})/;

function start(node: Nodes): number {
  return node.position?.start.offset ?? 0;
}

function end(node: Nodes): number {
  return node.position?.end.offset ?? 0;
}

/** Whether a piece's last top-level block would go on past the piece: a fenced code block or a marker-ended HTML block not closed yet. */
function endsOpen(piece: string, last: RootContent | undefined, plain: boolean): boolean {
  if (!last) return false;
  const source = piece.slice(start(last), end(last));
  if (last.type === "code") {
    const fence = OPENING_FENCE.exec(source)?.[1];
    if (!fence) return false; // indented code ends at the column-0 line
    const lines = source.split("\n");
    // A closing fence is indented at most 3 spaces, unless indented code is off (plain text).
    const indent = plain ? "[ \\t]*" : "[ \\t]{0,3}";
    const closing = new RegExp(`^${indent}${fence[0] === "`" ? "`" : "~"}{${fence.length},}[ \\t]*\\r?$`);
    return lines.length < 2 || !closing.test(lines[lines.length - 1]!);
  }
  if (last.type === "html") {
    return htmlLeftOpen(source);
  }
  return false;
}

/** An mdast handler that builds nothing. */
function ignore(): undefined {
  return undefined;
}

/** Whether any list item among `nodes` (at any depth) has a task list check. */
function hasTaskListItem(nodes: readonly Nodes[]): boolean {
  for (const node of nodes) {
    if (node.type === "listItem" && typeof node.checked === "boolean") return true;
    if ("children" in node && !INLINE_PARENTS.has(node.type) && hasTaskListItem(node.children)) return true;
  }
  return false;
}

/** The end of the piece starting at `from`: just after a safe cut at least PIECE_CHARS on, or the text's end. */
function pieceEnd(text: string, from: number): number {
  SAFE_CUT.lastIndex = from + PIECE_CHARS;
  const m = SAFE_CUT.exec(text);
  return m ? m.index + m[0].length : text.length;
}

/** Top-level nodes of `text`, parsed piece by piece, with offsets in `text`. */
function parsePieces(text: string, plain: boolean): RootContent[] {
  const plainOnly: Extension[] = plain ? [{ disable: { null: ["codeIndented"] } }] : [];
  const withInline = [gfm(), ...plainOnly];
  const blocksOnly = [gfmBlocks(), { disable: { null: COMMONMARK_INLINE } }, ...plainOnly];
  // GFM's only tree transform turns URLs in text into links: inline work this module has no use for (a third of the parse time).
  const mdastExtensions = gfmFromMarkdown().map((extension) => ({ ...extension, transforms: [] }));
  // Nor are text nodes of use: inline `data` tokens are not turned into them (block positions come from block tokens).
  const blocksOnlyMdast = [...mdastExtensions, { enter: { data: ignore }, exit: { data: ignore } }];
  const parse = (piece: string) => {
    const tree = fromMarkdown(piece, { extensions: blocksOnly, mdastExtensions: blocksOnlyMdast });
    return hasTaskListItem(tree.children) ? fromMarkdown(piece, { extensions: withInline, mdastExtensions }) : tree;
  };
  const nodes: RootContent[] = [];
  for (let from = 0; from < text.length;) {
    let to = pieceEnd(text, from);
    let piece = text.slice(from, to);
    let tree = parse(piece);
    while (to < text.length && endsOpen(piece, tree.children[tree.children.length - 1], plain)) {
      to = pieceEnd(text, to);
      piece = text.slice(from, to);
      tree = parse(piece);
    }
    const shift = (node: Nodes) => {
      const position = node.position;
      if (position?.start.offset !== undefined) position.start.offset += from;
      if (position?.end.offset !== undefined) position.end.offset += from;
      if ("children" in node && !INLINE_PARENTS.has(node.type)) for (const child of node.children) shift(child);
    };
    for (const node of tree.children) {
      shift(node);
      nodes.push(node);
    }
    from = to;
  }
  return nodes;
}

export function parseMarkdown(text: string, options: BlockParseOptions = {}): Root {
  const skeleton = markdownSkeleton(text);
  const map = skeleton.originalOffset;
  const children = parsePieces(skeleton.text, options.plain ?? false);
  const toOriginal = (node: Nodes) => {
    const position = node.position;
    if (position?.start.offset !== undefined) position.start.offset = map[position.start.offset]!;
    if (position?.end.offset !== undefined) position.end.offset = map[position.end.offset]!;
    if ("children" in node && !INLINE_PARENTS.has(node.type)) for (const child of node.children) toOriginal(child);
  };
  for (const node of children) toOriginal(node);
  return { type: "root", children };
}

/** mdast node types that are blocks.ts's blocks; below the leaves, only inline content. */
const BLOCK_TYPES = new Set<string>([
  "heading",
  "paragraph",
  "code",
  "html",
  "thematicBreak",
  "definition",
  "table",
  "tableRow",
  "list",
  "listItem",
  "blockquote",
  "footnoteDefinition",
]);
const LEAVES = new Set<string>(["heading", "paragraph", "code", "html", "thematicBreak", "definition", "tableRow"]);

/** The blocks of an mdast tree (whose block offsets are in the original text). */
export function mdastBlocks(nodes: readonly Nodes[]): Block[] {
  const blocks: Block[] = [];
  for (const node of nodes) {
    if (!BLOCK_TYPES.has(node.type)) continue;
    const children = "children" in node && !LEAVES.has(node.type) ? mdastBlocks(node.children) : [];
    const block: Block = { type: node.type as Block["type"], start: start(node), end: end(node), children };
    if (node.type === "heading") block.depth = node.depth;
    if (node.type === "list") block.ordered = node.ordered ?? false;
    blocks.push(block);
  }
  return blocks;
}

/** The blocks of plain text or PDF text. */
export function plainTextBlocks(text: string): Block[] {
  return mdastBlocks(parseMarkdown(text, { plain: true }).children);
}
