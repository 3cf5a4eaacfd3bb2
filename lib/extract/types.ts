export type DocumentKind = "pdf" | "docx" | "html" | "markdown" | "text";

export const MEDIA_TYPES: Record<DocumentKind, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  html: "text/html",
  markdown: "text/markdown",
  text: "text/plain",
};

/** The page a range of `text` came from: page `number` (1-based) covers [start, end). */
export interface PageRange {
  number: number;
  start: number;
  end: number;
}

export interface Extracted {
  kind: DocumentKind;
  mediaType: string;
  /** The text every chunker works on. Markdown for HTML, DOCX and Markdown inputs, so structure survives. */
  text: string;
  /** Present for PDFs: one range per page, in order, covering `text` (pages joined by "\n\n"). */
  pages?: PageRange[];
  /** A PDF's real page count; otherwise ceil(characters / 3000), at least 1. */
  pageCount: number;
}

export interface ExtractLimits {
  maxUnpackedBytes: number;
  maxChars: number;
  maxPages: number;
  timeoutMs: number;
}
