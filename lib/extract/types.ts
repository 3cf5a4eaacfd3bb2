export type DocumentKind = "pdf" | "image" | "docx" | "html" | "markdown" | "text";

/** The media type of each kind; an image's is its own (image/png, image/jpeg, image/tiff, image/webp). */
export const MEDIA_TYPES: Record<Exclude<DocumentKind, "image">, string> = {
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
  /** Present for PDFs and images: one range per page, in order, covering `text` (pages joined by "\n\n"). */
  pages?: PageRange[];
  /** A PDF's or an image's real page count; otherwise ceil(characters / 3000), at least 1. */
  pageCount: number;
  /** Pages read by OCR (1-based): a PDF's pages without a text layer, every page of an image. */
  ocrPages?: number[];
}

export interface ExtractLimits {
  maxUnpackedBytes: number;
  maxChars: number;
  maxPages: number;
  /** Pages read by OCR in one request. */
  maxOcrPages: number;
  timeoutMs: number;
}
