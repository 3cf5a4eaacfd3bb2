import { sentenceStarts } from "@/lib/chunking/text/prose-sentences";
import { isSpace } from "@/lib/chunking/text/whitespace";

/**
 * The numbered units a model sees when it looks for section boundaries:
 * paragraphs (blocks between blank lines), a fenced code block whole even
 * across blank lines, and the sentences of a paragraph too long to be one
 * choice (a boundary can only fall between units). Ranges of the text,
 * trimmed, in order, never empty.
 */

export interface Unit {
  start: number;
  end: number;
}

/** A paragraph longer than this is offered to the model sentence by sentence. */
const LONG_PARAGRAPH_CHARS = 1200;

const FENCE = /^[ \t]{0,3}(`{3,}|~{3,})/;

export function boundaryUnits(text: string): Unit[] {
  const units: Unit[] = [];
  for (const block of blocks(text)) {
    if (block.end - block.start <= LONG_PARAGRAPH_CHARS || block.code) {
      units.push(block);
      continue;
    }
    let from = block.start;
    for (const at of [...sentenceStarts(text, block.start, block.end), block.end]) {
      const unit = trim(text, from, at);
      if (unit) units.push(unit);
      from = at;
    }
  }
  return units;
}

interface Block extends Unit {
  code: boolean;
}

/** Blocks separated by blank lines; a fenced code block runs to its closing fence (or the text's end). */
function blocks(text: string): Block[] {
  const out: Block[] = [];
  let blockStart = -1;
  let fence: string | undefined;
  let code = false;
  const close = (end: number) => {
    const unit = blockStart >= 0 ? trim(text, blockStart, end) : undefined;
    if (unit) out.push({ ...unit, code });
    blockStart = -1;
    code = false;
  };
  for (let lineStart = 0; lineStart <= text.length;) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    if (fence) {
      if (line.trimStart().startsWith(fence) && line.trim().replace(/[`~]/g, "") === "") {
        fence = undefined;
        close(lineEnd);
      }
    } else if (line.trim() === "") {
      close(lineStart);
    } else {
      const opening = FENCE.exec(line)?.[1];
      if (opening) {
        // A fence closes the paragraph before it, as in Markdown.
        close(lineStart);
        fence = opening;
        code = true;
      }
      if (blockStart < 0) blockStart = lineStart;
    }
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  close(text.length);
  return out;
}

function trim(text: string, start: number, end: number): Unit | undefined {
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return start < end ? { start, end } : undefined;
}
