import type { PageRange } from "@/lib/extract/types";

/**
 * A slide deck's slides or a workbook's sheets as one Markdown text: each a
 * section under its own heading, and each section a "page" of the result, so
 * chunks carry `page_start`/`page_end` = the slide or sheet number.
 */
export interface Section {
  /** The slide's number in the deck, or the sheet's position in the workbook (1-based). */
  number: number;
  /** Markdown, starting with the section's heading. */
  markdown: string;
}

export function joinSections(sections: Section[]): { text: string; pages: PageRange[] } {
  const pages: PageRange[] = [];
  let text = "";
  for (const section of sections) {
    if (text) text += "\n\n";
    const start = text.length;
    text += section.markdown;
    pages.push({ number: section.number, start, end: text.length });
  }
  return { text, pages };
}

/** A cell or a run of text made safe for one line of Markdown: no line breaks, pipes escaped in tables. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ").trim();
}

/** A heading's text: on one line, and not read as Markdown of its own (a leading "#" or "1." stays text). */
export function headingText(text: string): string {
  return oneLine(text).replace(/^([#>*+-]|\d+[.)])/, "\\$1");
}
