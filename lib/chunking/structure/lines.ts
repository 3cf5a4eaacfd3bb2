/** Lines in a text, as the structure tier reads them: where one ends, whether text follows, and a code block's fence lines. */

import { isSpace } from "../text/whitespace";

/**
 * Whether the gap [end, next) after a sentence holds a line break, or the
 * sentence ends with one written out as "\n" (text serialised as JSON or a
 * Python literal, such as exported chat logs, where it separates paragraphs).
 */
export function endsLine(text: string, end: number, next: number): boolean {
  if (text.slice(end, next).includes("\n")) return true;
  return text.charCodeAt(end - 1) === 110 /* n */ && text.charCodeAt(end - 2) === 92; /* \ */
}

/** End of the line holding `offset` (the offset of its "\n", or the text's end). */
export function lineEnd(text: string, offset: number): number {
  const newline = text.indexOf("\n", offset);
  return newline < 0 ? text.length : newline;
}

export interface Fences {
  /** The opening fence line, language tag included, for a piece that starts a chunk. */
  open: string;
  /** The closing fence, for a piece that ends a chunk which holds the block's opening line. */
  close: string;
  /** The closing fence, for a piece that ends a chunk opened with `open`. */
  reopenedClose: string;
}

/**
 * Fence lines for the pieces of a code block whose fence starts at `at`. A
 * block inside a list item or a quote keeps that container in the chunks
 * that hold the container's marker: the closing fence must then sit at the
 * item's indentation, or after the quote's `>`. A chunk that starts inside
 * the block has no list marker: its fence is indented at most 3 spaces
 * (4 would make an indented code block of it), and quotes keep their `>`.
 */
export function codeFences(text: string, at: number, fence: string): Fences {
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  const container = text.slice(lineStart, at).replace(/[-+*]|\d{1,9}[.)]/g, (marker) => " ".repeat(marker.length));
  const reopened = container.includes(">") ? container : " ".repeat(Math.min(container.length, 3));
  const openLine = text.slice(at, lineEnd(text, at)).replace(/\r$/, "");
  return { open: `${reopened}${openLine}\n`, close: `\n${container}${fence}`, reopenedClose: `\n${reopened}${fence}` };
}

/** Whether any non-whitespace follows `offset`. */
export function textFollows(text: string, offset: number): boolean {
  for (let i = offset; i < text.length; i++) if (!isSpace(text.charCodeAt(i))) return true;
  return false;
}
