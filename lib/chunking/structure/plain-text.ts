/** Plain and PDF text, read without Markdown markers: heading lines inside a paragraph, and a one-item list that titles a numbered chapter. */

import { numberedChapterLevel, plainHeadingLevel } from "./headings";
import type { Block } from "../markdown/blocks";
import { BREAK } from "./costs";
import { lineEnd, textFollows } from "./lines";
import type { UnitBuilder } from "./units";

/** A plain-text paragraph: heading lines in it start sections, the lines between them are prose. */
export function plainParagraph(builder: UnitBuilder, node: Block): void {
  const text = builder.text;
  const { start, end } = node;
  const lines: Array<[number, number]> = [];
  for (let s = start; s < end;) {
    const e = Math.min(lineEnd(text, s), end);
    lines.push([s, e]);
    s = e + 1;
  }
  const followedByText = textFollows(text, end);
  let proseStart = start;
  let previousIsHeading = false;
  lines.forEach(([s, e], k) => {
    const line = text.slice(s, e);
    const level = plainHeadingLevel(
      line,
      {
        previous: k > 0 ? text.slice(lines[k - 1]![0], lines[k - 1]![1]) : undefined,
        previousIsHeading,
        next: k + 1 < lines.length ? text.slice(lines[k + 1]![0], lines[k + 1]![1]) : undefined,
        followedByText,
      },
      builder.insideChapter(),
    );
    previousIsHeading = level !== undefined;
    if (level === undefined) return;
    builder.prose(proseStart, s, BREAK.block, "prose", builder.proseBudget);
    const [hs, he] = [s + (line.length - line.trimStart().length), e - (line.length - line.trimEnd().length)];
    builder.heading(hs, he, { level, title: text.slice(hs, he) });
    proseStart = e;
  });
  builder.prose(proseStart, end, BREAK.block, "prose", builder.proseBudget);
}

/** A one-item ordered list "1. Title" on one line, followed by a block numbered under it ("## 1.1 ..."): a chapter heading. */
export function isNumberedChapter(text: string, list: Block, next: Block | undefined): boolean {
  if (!list.ordered || list.children.length !== 1 || !next) return false;
  const { start, end } = list;
  const line = text.slice(start, end);
  if (line.includes("\n")) return false;
  const nextStart = next.start;
  const nextLine = text.slice(nextStart, lineEnd(text, nextStart)).replace(/^[ \t]*#{1,6}[ \t]+/, "");
  return numberedChapterLevel(line, nextLine) !== undefined;
}
