/**
 * Block structure of a Markdown document (CommonMark with GFM tables and
 * footnote definitions) from markdown-it's block parser alone, at some
 * 40 MB/s here: micromark, which reads inline content too, managed 0.7.
 *
 * markdown-it gives each block its lines; the ranges in blocks.ts come from
 * its own line state: every block rule is wrapped so that, once it has
 * matched, the tokens it pushed learn where their first line's content
 * starts in their container (`bMarks + tShift`, which markdown-it moves past
 * quote markers and list markers while it parses a container's inside). Two
 * rules are ours: link reference definitions, which markdown-it consumes
 * without a token (mdast keeps each as a block), and GFM footnote
 * definitions, for which markdown-it-footnote emits no line map and moves the
 * definitions to the end of the document.
 *
 * Tests hold the trees to mdast's (mdast-util-from-markdown with GFM) on the
 * CommonMark spec's examples, real documents and fuzzed ones.
 */
import MarkdownIt from "markdown-it";
import type { MarkdownIt as Parser, StateBlock, Token } from "markdown-it";
import { type Block, type BlockType, htmlLeftOpen } from "./blocks";

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

/** A token with where its first line's content starts in the text (-1 until its rule has matched). */
type ScanToken = Token & { start: number };

const SPACE = 0x20;
const TAB = 0x09;

/**
 * A GFM footnote definition: `[^label]:` at the start of a block, then
 * blocks indented by 4 columns (the first may follow the colon), modelled on
 * markdown-it-footnote's rule (MIT), but kept in place and given its lines.
 */
const footnoteDefinition: BlockRule = (state, startLine, endLine, silent) => {
  const src = state.src;
  const start = state.bMarks[startLine]! + state.tShift[startLine]!;
  const max = state.eMarks[startLine]!;
  if (start + 4 > max || src.charCodeAt(start) !== 0x5b /* [ */ || src.charCodeAt(start + 1) !== 0x5e /* ^ */)
    return false;
  let pos = start + 2;
  for (; pos < max; pos++) {
    const code = src.charCodeAt(pos);
    if (code === SPACE || code === TAB || code === 0x5b /* [ */) return false;
    if (code === 0x5d /* ] */) break;
  }
  if (pos === start + 2 || pos + 1 >= max || src.charCodeAt(++pos) !== 0x3a /* : */) return false;
  if (silent) return true;
  pos++;

  const open = state.push("footnote_open", "", 1);
  open.map = [startLine, 0];
  const saved = {
    bMark: state.bMarks[startLine]!,
    tShift: state.tShift[startLine]!,
    sCount: state.sCount[startLine]!,
    parentType: state.parentType,
  };
  // The first line's content starts after the colon and its spaces, at its column.
  const afterColon = pos;
  const initial = state.sCount[startLine]! + afterColon - start;
  let offset = initial;
  for (; pos < max; pos++) {
    const code = src.charCodeAt(pos);
    if (code === TAB) offset += 4 - (offset % 4);
    else if (code === SPACE) offset++;
    else break;
  }
  state.tShift[startLine] = pos - afterColon;
  state.sCount[startLine] = offset - initial;
  state.bMarks[startLine] = afterColon;
  state.blkIndent += 4;
  state.parentType = "footnote";
  if (state.sCount[startLine] < state.blkIndent) state.sCount[startLine] += state.blkIndent;
  state.md.block.tokenize(state, startLine, endLine);
  state.parentType = saved.parentType;
  state.blkIndent -= 4;
  state.tShift[startLine] = saved.tShift;
  state.sCount[startLine] = saved.sCount;
  state.bMarks[startLine] = saved.bMark;
  open.map[1] = state.line;
  state.push("footnote_close", "", -1);
  return true;
};

/** Every block rule, wrapped so that the tokens it pushes learn their start (see the module comment). */
function withStarts(rule: BlockRule): BlockRule {
  return (state, startLine, endLine, silent) => {
    // Most calls are silent: a paragraph asking, line by line, whether another block starts there.
    if (silent) return rule(state, startLine, endLine, true);
    const first = state.tokens.length;
    if (!rule(state, startLine, endLine, false)) return false;
    for (let k = first; k < state.tokens.length; k++) {
      const token = state.tokens[k] as ScanToken;
      // Tokens of nested blocks were placed by their own rule, inside their container.
      if (!token.map || token.start >= 0) continue;
      const line = token.map[0];
      // Indented code and HTML start where their container's content does: their indentation is theirs.
      token.start =
        token.type === "code_block" || token.type === "html_block"
          ? afterColumns(state, line, state.blkIndent)
          : state.bMarks[line]! + state.tShift[line]!;
    }
    return true;
  };
}

/** Where `columns` columns of indentation end on `line` in its container (a tab that straddles the column: after it). */
function afterColumns(state: StateBlock, line: number, columns: number): number {
  let pos = state.bMarks[line]!;
  let column = state.bsCount[line]!;
  const end = pos + state.tShift[line]!;
  while (pos < end && column - state.bsCount[line]! < columns) {
    column = state.src.charCodeAt(pos) === TAB ? column + 4 - (column % 4) : column + 1;
    pos++;
  }
  return pos;
}

/** A link reference definition: markdown-it's rule, plus a token for the lines it took. */
function withDefinitionToken(reference: BlockRule): BlockRule {
  return (state, startLine, endLine, silent) => {
    if (!reference(state, startLine, endLine, silent)) return false;
    if (!silent) state.push("definition", "", 0).map = [startLine, state.line];
    return true;
  };
}

/**
 * markdown-it's paragraph rule less what this module does not read: the
 * paragraph's inline content (a string per paragraph) and its inline token.
 * It asks the unwrapped rules whether a line ends the paragraph: paragraph
 * lines are most lines, and those questions most rule calls.
 */
function paragraphBlocks(terminators: readonly BlockRule[]): BlockRule {
  return (state, startLine, endLine) => {
    const parentType = state.parentType;
    state.parentType = "paragraph";
    let next = startLine + 1;
    for (; next < endLine && !state.isEmpty(next); next++) {
      // Indented 4 or more (a lazy continuation line) or inside a container's marker: no block starts there.
      if (state.sCount[next]! - state.blkIndent > 3 || state.sCount[next]! < 0) continue;
      if (terminators.some((rule) => rule(state, next, endLine, true))) break;
    }
    state.line = next;
    state.push("paragraph_open", "p", 1).map = [startLine, next];
    state.push("paragraph_close", "p", -1);
    state.parentType = parentType;
    return true;
  };
}

/** Tokens no block here is made of: a table's sections and cells, and inline content. */
const UNREAD = new Set([
  "inline",
  "thead_open",
  "thead_close",
  "tbody_open",
  "tbody_close",
  "th_open",
  "th_close",
  "td_open",
  "td_close",
]);

const leanToken = (type: string, tag: string, nesting: Token["nesting"], level: number) =>
  ({
    type,
    tag,
    attrs: null,
    map: null,
    nesting,
    level,
    children: null,
    content: "",
    markup: "",
    info: "",
    meta: null,
    block: true,
    hidden: false,
    start: -1,
  }) satisfies Omit<ScanToken, "attrIndex" | "attrPush" | "attrSet" | "attrGet" | "attrJoin"> as ScanToken;

/**
 * The line marks markdown-it's block state starts from, as its constructor
 * sets them (each line's start, end, indentation in characters and columns;
 * a last line of only spaces and tabs is left out, as there), found with
 * `indexOf` for line ends and reading only each line's leading whitespace:
 * its character-by-character loop was a quarter of the parse.
 */
export function markLines(state: StateBlock, src: string): void {
  const bMarks: number[] = [];
  const eMarks: number[] = [];
  const tShift: number[] = [];
  const sCount: number[] = [];
  const bsCount: number[] = [];
  const length = src.length;
  for (let start = 0; start < length;) {
    let pos = start;
    let columns = 0;
    for (; pos < length; pos++) {
      const code = src.charCodeAt(pos);
      if (code === SPACE) columns++;
      else if (code === TAB) columns += 4 - (columns % 4);
      else break;
    }
    if (pos === length) break;
    const newline = src.indexOf("\n", pos);
    const end = newline === -1 ? length : newline;
    bMarks.push(start);
    eMarks.push(end);
    tShift.push(pos - start);
    sCount.push(columns);
    bsCount.push(0);
    start = end + 1;
  }
  bMarks.push(length);
  eMarks.push(length);
  tShift.push(0);
  sCount.push(0);
  bsCount.push(0);
  Object.assign(state, { bMarks, eMarks, tShift, sCount, bsCount, lineMax: bMarks.length - 1 });
}

/**
 * markdown-it's block state, pushing plain objects with a `start` instead of
 * its Token class, whose compiled constructor defines each of its fields with
 * Object.defineProperty (a third of the parse), and not keeping the tokens
 * blocksOf never reads (a table's cells are most of its tokens). Block rules
 * only set the fields of the tokens they push (the renderer, never run here,
 * calls their methods), and read back none of those left out.
 */
function leanState(State: typeof StateBlock): typeof StateBlock {
  // What a rule gets for a token left out: it may set its fields, and nothing reads them.
  const scratch = leanToken("", "", 0, 0);
  return class LeanStateBlock extends State {
    constructor(...[src, md, env, tokens]: ConstructorParameters<typeof StateBlock>) {
      // markdown-it's constructor reads every character for the line marks; `markLines` finds the same ones faster.
      super("", md, env, tokens);
      this.src = src;
      markLines(this, src);
    }

    override push(type: string, tag: string, nesting: Token["nesting"]): Token {
      if (nesting < 0) this.level--;
      const unread = UNREAD.has(type);
      const token = unread ? scratch : leanToken(type, tag, nesting, this.level);
      if (nesting > 0) this.level++;
      if (!unread) this.tokens.push(token);
      return token;
    }
  };
}

function createParser(): Parser {
  // HTML blocks are CommonMark; markdown-it leaves them out unless asked. Nesting is bounded before parsing (structure/index.ts).
  const md = new MarkdownIt("default", { html: true, maxNesting: 1000 });
  md.block.State = leanState(md.block.State);
  const ruler = md.block.ruler;
  ruler.before("reference", "footnote_definition", footnoteDefinition, { alt: ["paragraph", "reference"] });
  const terminators = ruler.getRules("paragraph");
  // `__rules__` is markdown-it's own list of block rules (typed, marked internal): wrapping goes through the public `at`.
  for (const { name, fn, alt } of [...ruler.__rules__]) {
    const rule =
      name === "reference" ? withDefinitionToken(fn) : name === "paragraph" ? paragraphBlocks(terminators) : fn;
    ruler.at(name, withStarts(rule), { alt });
  }
  return md;
}

let parser: Parser | undefined;

const LEAVES: Readonly<Record<string, BlockType>> = {
  paragraph_open: "paragraph",
  heading_open: "heading",
  fence: "code",
  code_block: "code",
  html_block: "html",
  hr: "thematicBreak",
  definition: "definition",
};

const CONTAINERS: Readonly<Record<string, BlockType>> = {
  blockquote_open: "blockquote",
  bullet_list_open: "list",
  ordered_list_open: "list",
  list_item_open: "listItem",
  footnote_open: "footnoteDefinition",
  table_open: "table",
  tr_open: "tableRow",
};

/** Whether a fenced code block or HTML block (its source, from its start) never met its end. */
function leftOpen(token: Token, source: string): boolean {
  if (token.type === "fence") {
    const lastLine = source.slice(source.lastIndexOf("\n") + 1);
    const closing = new RegExp(`^[ \\t>]*\\${token.markup[0]}{${token.markup.length},}[ \\t]*$`);
    return !source.includes("\n") || !closing.test(lastLine);
  }
  return token.type === "html_block" && htmlLeftOpen(source);
}

const CONTAINER_CLOSES = new Set(Object.keys(CONTAINERS).map((open) => open.replace(/_open$/, "_close")));

function isBlank(code: number): boolean {
  return code === SPACE || code === TAB || code === 0x0a || code === 0x0d;
}

/**
 * The blocks of a Markdown document. `text` must hold no carriage return or
 * NUL (markdown-it would rewrite them and shift every offset); the caller's
 * text is normalised so by `scanMarkdown`.
 */
function blocksOf(text: string, original: string): Block[] {
  const md = (parser ??= createParser());
  const tokens: ScanToken[] = [];
  md.block.parse(text, md, {}, tokens);

  // Line ends, for block ends.
  const lineEnds: number[] = [];
  // A line ends before its CR LF (the CR became a space in `text`).
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1))
    lineEnds.push(original.charCodeAt(at - 1) === 0x0d ? at - 1 : at);
  lineEnds.push(text.length);
  /** The end of the last line in [first, last] holding more than whitespace (trailing whitespace included, as mdast has it). */
  const endOfLines = (first: number, last: number) => {
    for (let line = last; line > first; line--) {
      for (let at = lineEnds[line - 1]! + 1; at < lineEnds[line]!; at++)
        if (!isBlank(text.charCodeAt(at))) return lineEnds[line]!;
    }
    return lineEnds[first]!;
  };
  const lineCount = text.endsWith("\n") ? lineEnds.length - 1 : lineEnds.length;

  const root: Block = { type: "list", start: 0, end: 0, children: [] };
  const stack: Block[] = [root];
  for (const token of tokens) {
    const parent = stack[stack.length - 1]!;
    if (token.nesting === -1) {
      if (!CONTAINER_CLOSES.has(token.type)) continue;
      const done = stack.pop()!;
      const last = done.children[done.children.length - 1];
      // A list item ends with its last block; a list or a quote may go on to a blank line inside its container ("> ").
      if (last && (done.type === "listItem" || last.end > done.end)) done.end = last.end;
      continue;
    }
    if (!token.map) continue;
    const start = Math.max(token.start, 0);
    const containerType = CONTAINERS[token.type];
    if (containerType) {
      // Until its close: the end of its last line holding text (a list item's is corrected to its last block's then).
      const block: Block = {
        type: containerType,
        start,
        end: endOfLines(token.map[0], token.map[1] - 1),
        children: [],
      };
      if (containerType === "list") block.ordered = token.type === "ordered_list_open";
      parent.children.push(block);
      stack.push(block);
      continue;
    }
    const type = LEAVES[token.type];
    if (!type) continue;
    // A fenced code block or an HTML block left open at the end of the document runs to its very end.
    const end =
      token.map[1] >= lineCount && leftOpen(token, text.slice(start, lineEnds[token.map[1] - 1]))
        ? text.length
        : endOfLines(token.map[0], token.map[1] - 1);
    const block: Block = { type, start, end, children: [] };
    if (type === "heading") block.depth = Number(token.tag.slice(1));
    parent.children.push(block);
  }
  return root.children;
}

/** The blocks of a Markdown document, with ranges in `text`. */
export function scanMarkdown(text: string): Block[] {
  // Same length, so offsets hold: a CR before LF is trailing space to CommonMark, any other CR a line end.
  const normalised = /[\r\0]/.test(text)
    ? text
        .replace(/\r(?=\n)/g, " ")
        .replace(/\r/g, "\n")
        .replace(/\0/g, "\uFFFD")
    : text;
  return blocksOf(normalised, text);
}
