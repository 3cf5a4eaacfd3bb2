/**
 * Section titles: the text of Markdown headings, the heading lines of plain
 * text and PDF text (numbered "1.2 Title", "Chapter 3", ALL-CAPS lines), and
 * the path of titles above a point of the document.
 */
import MarkdownIt from "markdown-it";
import type { MarkdownIt as Parser, Token } from "markdown-it";
import type { Block } from "../markdown/blocks";

export interface SectionHeading {
  /** 1 (outermost) to 6. */
  level: number;
  title: string;
}

// ---------------------------------------------------------------------------
// Markdown headings
// ---------------------------------------------------------------------------

const ATX_OPENING = /^[ \t]*#{1,6}(?:[ \t]+|$)/;
const ATX_CLOSING = /(?:^|[ \t]+)#+[ \t]*$/;

/** The inline source of a heading: an ATX line without its `#` sequences, or a setext heading's lines without the underline. */
function headingSource(text: string, start: number, end: number): string {
  const source = text.slice(start, end);
  const newline = source.lastIndexOf("\n");
  if (newline >= 0 && !ATX_OPENING.test(source))
    return source
      .slice(0, newline)
      .replace(/\s*\n\s*/g, " ")
      .trim();
  return source.replace(ATX_OPENING, "").replace(ATX_CLOSING, "").trim();
}

/** Inline tokens whose content a reader sees: text, code spans, escapes and entities (not HTML, not image sources). */
const VISIBLE = new Set(["text", "text_special", "code_inline"]);

function plainText(tokens: readonly Token[]): string {
  let out = "";
  for (const token of tokens) {
    if (VISIBLE.has(token.type)) out += token.content;
    // An image's children are its alt text, which mdast keeps out of the text too.
    else if (token.children && token.type !== "image") out += plainText(token.children);
  }
  return out;
}

/** What starts inline syntax (escapes, code, emphasis, strikethrough, links, images, autolinks, HTML, entities) or is normalised. */
const INLINE_SYNTAX = /[\\`*_~[\]!<&\0\r\n]/;

/** Inline Markdown, read the CommonMark way (HTML tags recognised, so left out of titles). */
let inlineParser: Parser | undefined;

/**
 * Titles of Markdown headings as readers see them ("Use `npm`" for
 * "## Use `npm` #"): each heading's inline source, parsed alone (no link
 * references: a heading's "[x][ref]" reads as written).
 */
export function markdownHeadingTitles(text: string, headings: readonly Block[]): string[] {
  inlineParser ??= new MarkdownIt("default", { html: true });
  const parser = inlineParser;
  return headings.map((h) => {
    const source = headingSource(text, h.start, h.end);
    // Most titles are plain words: parsed, they would read exactly as written (and it costs a parse each).
    if (!INLINE_SYNTAX.test(source)) return source;
    const title = plainText(parser.parseInline(source.replace(/\n/g, " "), {})).trim();
    return title || source;
  });
}

// ---------------------------------------------------------------------------
// Plain-text headings
// ---------------------------------------------------------------------------

/** Longest line taken for a heading, and most words: titles are short. */
const MAX_HEADING_CHARS = 80;
const MAX_HEADING_WORDS = 12;

/** "1 Introduction", "2.3 Related work", "4.1.2. Results": numbers of at most 3 digits, the title starting with a capital. */
const NUMBERED = /^(\d{1,3}(?:\.\d{1,3}){0,5})(\.?)[ \t]+(\p{Lu}[^]*)$/u;
/** "Chapter 3", "CHAPTER IV. The Return", "Part Two: Origins", "Appendix B": the word and number, in any case... */
const CHAPTER =
  /^(?:chapter|part|book|appendix)[ \t]+(?:\d{1,3}|[ivxlcdm]{1,7}|[a-z]|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b/i;
/** ...then nothing, or a title that starts with a capital ("Chapter 3 explains..." is a sentence). Not case-insensitive: with `i`, \p{Lu} matches lower case too. */
const CHAPTER_TITLE = /^(?:[ \t]*[.:\u2013\u2014-]?[ \t]*(\p{Lu}[^]*))?$/u;

/** The title after "Chapter N", "" if none; undefined when the line is not a chapter heading. */
function chapterTitle(line: string): string | undefined {
  const head = CHAPTER.exec(line);
  if (!head) return undefined;
  const rest = CHAPTER_TITLE.exec(line.slice(head[0].length));
  return rest ? (rest[1] ?? "") : undefined;
}
/** Ends a sentence or a clause: a heading does not end so (except "?" in titles, still refused: conservative). */
const SENTENCE_END = /[.,;:!?…)\]"'”’]$/;
/** Ends like a table-of-contents line ("Introduction ...... 3") or a table row of figures. */
const ENDS_IN_NUMBER = /(?:\.{2,}|\s)\d+$/;

interface PlainLineContext {
  /** The line before, in the same paragraph; undefined on a paragraph's first line. */
  previous?: string;
  /** Whether that line was taken for a heading ("CHAPTER I" above "THE BOY"). */
  previousIsHeading?: boolean;
  /** The line after, in the same paragraph; undefined on a paragraph's last line. */
  next?: string;
  /** Whether text follows the paragraph (a body can come after a heading that is the paragraph's last line). */
  followedByText: boolean;
}

function words(line: string): string[] {
  return line.split(/\s+/).filter(Boolean);
}

/** The part of the title that must look like a title: not a sentence, not a list entry. */
function isTitleLike(title: string): boolean {
  const w = words(title);
  if (w.length === 0 || w.length > MAX_HEADING_WORDS) return false;
  if (SENTENCE_END.test(title) || ENDS_IN_NUMBER.test(title)) return false;
  return /\p{L}{2}/u.test(title);
}

function isAllCaps(line: string): boolean {
  const letters = line.replace(/[^\p{L}]/gu, "");
  if (letters.length < 4) return false;
  // Only scripts with case count: a CJK line has no lower case either.
  return letters === letters.toUpperCase() && letters !== letters.toLowerCase() && !/\p{Ll}/u.test(letters);
}

function numberedDepth(line: string): number | undefined {
  const m = NUMBERED.exec(line);
  if (!m) return undefined;
  const depth = m[1]!.split(".").length;
  // "1. Title" is an ordered-list item to the Markdown parser and to readers alike.
  if (depth === 1 && m[2] === ".") return undefined;
  return isTitleLike(m[3]!) ? depth : undefined;
}

/**
 * Whether a line of plain or PDF text is a heading, and its level.
 *
 * Conservative, because a false heading splits a paragraph and mislabels
 * chunks: the line must be short, must not end like a sentence, must stand
 * apart (a paragraph's first line, or after a line ending a sentence), must
 * have a body after it, and must not be one of a run of similar lines (a
 * numbered list, a block of capitals, a table of figures).
 */
export function plainHeadingLevel(line: string, context: PlainLineContext, insideChapter: boolean): number | undefined {
  const text = line.trim();
  if (text.length < 3 || text.length > MAX_HEADING_CHARS || text.includes("|")) return undefined;
  if (context.next === undefined && !context.followedByText) return undefined;
  if (context.previous !== undefined && !context.previousIsHeading && !/[.!?:"'”’)]$/.test(context.previous.trim()))
    return undefined;

  const title = chapterTitle(text);
  if (title !== undefined) return title === "" || isTitleLike(title) ? 1 : undefined;
  const depth = numberedDepth(text);
  if (depth !== undefined) {
    // A numbered list written without Markdown markers: "1 Apples" followed by "2 Pears".
    if (context.next !== undefined && numberedDepth(context.next.trim()) === depth) return undefined;
    if (context.previous !== undefined && numberedDepth(context.previous.trim()) === depth) return undefined;
    return Math.min(depth, 6);
  }
  if (isAllCaps(text) && isTitleLike(text)) {
    // Several capital lines in a row are a shouted passage or a letterhead, not a title.
    if (context.next !== undefined && isAllCaps(context.next.trim())) return undefined;
    return insideChapter ? 2 : 1;
  }
  return undefined;
}

/**
 * "1. Planning" alone is an ordered-list item to Markdown, and so it is left
 * unless what follows is numbered under it ("1.1 Choosing a site"): then it
 * is a chapter of numbered sections, level 1. `next` is the first line of the
 * next block, heading markers removed.
 */
export function numberedChapterLevel(line: string, next: string | undefined): number | undefined {
  const m = /^(\d{1,3})[.)][ \t]+(\S[^]*)$/.exec(line.trim());
  if (!m || next === undefined || !isTitleLike(m[2]!)) return undefined;
  return new RegExp(`^${m[1]}\\.1(?:[.\\s]|$)`).test(next.trim()) ? 1 : undefined;
}

// ---------------------------------------------------------------------------
// Section path
// ---------------------------------------------------------------------------

/** The titles of the headings enclosing the current point, outermost first. */
export class HeadingPath {
  private readonly stack: SectionHeading[] = [];

  /** Enters the section a heading starts: it closes every open section of its level or deeper. */
  enter(heading: SectionHeading): void {
    while (this.stack.length > 0 && this.stack[this.stack.length - 1]!.level >= heading.level) this.stack.pop();
    this.stack.push(heading);
  }

  titles(): string[] {
    return this.stack.map((h) => h.title);
  }

  /** Whether a "Chapter" (level-1 plain heading) is open, under which ALL-CAPS titles nest. */
  hasChapter(): boolean {
    return this.stack.some((h) => h.level === 1 && chapterTitle(h.title) !== undefined);
  }
}
