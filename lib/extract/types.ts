import type { EmailHeaders } from "@/lib/api-schema";
import type { MarkupBudget } from "@/lib/extract/markup-budget";

export type DocumentKind =
  | "pdf"
  | "image"
  | "docx"
  | "pptx"
  | "odp"
  | "xlsx"
  | "ods"
  | "csv"
  | "html"
  | "markdown"
  | "text"
  | "epub"
  | "odt"
  | "rtf"
  | "email";

/** The media type of each kind; an image's is its own (image/png, image/jpeg, image/tiff, image/webp), an Outlook .msg's EMAIL_MEDIA_TYPES.msg. */
export const MEDIA_TYPES: Record<Exclude<DocumentKind, "image">, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  odp: "application/vnd.oasis.opendocument.presentation",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
  csv: "text/csv",
  epub: "application/epub+zip",
  odt: "application/vnd.oasis.opendocument.text",
  rtf: "application/rtf",
  email: "message/rfc822",
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

export const EMAIL_MEDIA_TYPES = { eml: "message/rfc822", msg: "application/vnd.ms-outlook" } as const;

/**
 * A part of `text` chunked as a document of its own: an e-mail's body, and each attachment. Parts are in
 * order, do not overlap, and cover `text` (joined by "\n\n"); no chunk spans two.
 */
export interface DocumentPart {
  start: number;
  end: number;
  /** The headers of the e-mail the part belongs to (a nested e-mail's own). */
  email?: EmailHeaders;
  /** The attachment's file name, for a part that is one (the path through nested e-mails, joined by " / "). */
  attachment?: string;
}

/** A rectangle on a page as it is shown: left, top, right, bottom, as shares (0-1) of its width and height from its top left corner. */
export type PageBox = [x0: number, y0: number, x1: number, y1: number];

/** A line of a PDF's or an image's text: the range [start, end) of `text` it became, its page (1-based) and where it is there. */
export interface SourceLine {
  start: number;
  end: number;
  page: number;
  box: PageBox;
  /** Read by OCR: Tesseract's confidence in its words, 0-100. */
  confidence?: number;
}

export interface Extracted {
  kind: DocumentKind;
  mediaType: string;
  /** The text every chunker works on. Markdown for HTML, DOCX and Markdown inputs, so structure survives. */
  text: string;
  /**
   * PDFs and images: one range per page, in order, covering `text` (pages joined by "\n\n"); slide decks and
   * spreadsheets: one per slide or sheet (its number); EPUB: one per chapter (spine item with text), `number` its
   * place in the spine (1-based).
   */
  pages?: PageRange[];
  /** Present for PDFs and images: the lines of `text`, in order (running headers and footers, dropped, are not among them). */
  lines?: SourceLine[];
  /** A PDF's or an image's real page count; a deck's slides; a spreadsheet's rows / 50 per sheet; otherwise ceil(characters / 3000), at least 1. */
  pageCount: number;
  /** E-mails: the body and each attachment, chunked apart. */
  parts?: DocumentPart[];
  /** Pages read by OCR (1-based): a PDF's pages without a text layer, every page of an image. */
  ocrPages?: number[];
}

export interface ExtractLimits {
  maxUnpackedBytes: number;
  /** HTML pages' and zip-based documents' XML parts' nesting depth and element count. */
  markup: MarkupBudget;
  maxChars: number;
  maxPages: number;
  /** E-mails: how many levels of attached e-mails are opened (0, when absent: an attached e-mail is not read). */
  maxEmailDepth?: number;
  /** Pages read by OCR in one request. */
  maxOcrPages: number;
  /** A synchronous request's: pages an async job of it would read by OCR, which the refusal names. */
  maxOcrPagesAsync?: number;
  timeoutMs: number;
  /** Filled cells a spreadsheet or CSV may hold, and cells a sheet's table may span (SHEET_MAX_CELLS); the config's default when absent. */
  maxSheetCells?: number;
}
