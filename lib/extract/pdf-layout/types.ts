/** What layout recovery reads (pdf.js's positioned text, or OCR's lines as the same items) and what it gives back. */

import type { PageBox } from "@/lib/extract/types";

export interface PdfTextItem {
  text: string;
  /** Baseline origin in PDF user space (y grows upwards). */
  x: number;
  y: number;
  /** Font size in user space, from the text matrix. */
  size: number;
  /** Advance width in user space. */
  width: number;
  /** pdf.js's id for the font resource: same id, same font. */
  font: string;
  /** Runs left to right on a horizontal baseline. Rotated text is kept, but as a line of its own. */
  upright: boolean;
  /** Read by OCR: Tesseract's confidence in the item's words, 0-100. */
  confidence?: number;
}

export interface PdfPageContent {
  /** The page's box in user space: left, bottom, right, top. */
  box: [number, number, number, number];
  items: PdfTextItem[];
  /** Fonts pdf.js classes as monospace: whole lines in them are code. */
  monospaceFonts: string[];
  /** Degrees the page is shown turned clockwise (pdf.js's `rotate`; a multiple of 90). */
  rotate?: number;
  /** Thin level or upright lines and bars the page draws: table borders, a line under a header row. */
  rules?: Rect[];
  /** Small shapes the page draws: bullets drawn as paths. */
  marks?: Rect[];
}

/** A rectangle in PDF user space: left, bottom, right, top. */
export type Rect = [left: number, bottom: number, right: number, top: number];

/** A line of a page's output: the range [start, end) of the page's text it became, and where it is on the page. */
interface LaidLine {
  start: number;
  end: number;
  box: PageBox;
  /** Read by OCR: Tesseract's confidence in its words, 0-100. */
  confidence?: number;
  /** A footnote written after a paragraph that ran on: it is printed this many pages before the page whose text holds it. */
  pagesBack?: number;
}

export interface PageLayout {
  /** Markdown; "" for a page without text. */
  text: string;
  /** It starts by continuing a table the page before ends with: the two join with a line break, not a blank line. */
  continuesTable?: boolean;
  /** It starts by going on with a paragraph the page before breaks off mid-sentence: the two join with a space. */
  continuesParagraph?: boolean;
  /** The lines the text came from, in the text's order; running headers and footers dropped are not among them. */
  lines: LaidLine[];
}
