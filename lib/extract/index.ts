import { type Detected, detect, type Hint } from "@/lib/extract/detect";
import { extractDocx } from "@/lib/extract/docx";
import { extractEmail } from "@/lib/extract/email";
import { extractEpub } from "@/lib/extract/epub";
import { extractOdt } from "@/lib/extract/odt";
import { extractRtf } from "@/lib/extract/rtf";
import { failures } from "@/lib/extract/failures";
import { convertHtml } from "@/lib/extract/html";
import { extractImage } from "@/lib/extract/image";
import {
  extractCsv,
  extractPresentation,
  extractSpreadsheet,
  type OfficeText,
  type ReadingOptions,
} from "@/lib/extract/office";
import { extractPdf } from "@/lib/extract/pdf";
import type { ExtractSteps } from "@/lib/extract/steps";
import { stepsHere } from "@/lib/extract/steps-here";
import { isBlank } from "@/lib/extract/text";
import {
  EMAIL_MEDIA_TYPES,
  MEDIA_TYPES,
  type DocumentKind,
  type Extracted,
  type ExtractLimits,
} from "@/lib/extract/types";
import { DEFAULT_SHEET_MAX_CELLS } from "@/lib/ground/config";

export type { Extracted, ExtractLimits } from "@/lib/extract/types";
export type { ReadingOptions } from "@/lib/extract/office";

/** What is read unless a request says otherwise. */
export const DEFAULT_READING: ReadingOptions = { includeNotes: true };

/** Characters that count as one page for documents without pages of their own. */
export const CHARS_PER_PAGE = 3000;

/**
 * Bytes → the text every chunker works on. The type comes from the bytes;
 * `hint` only tells Markdown from plain text. Every refusal is an ApiError
 * with its own code; parsers that can crash or exhaust memory run in a
 * worker thread, so no document can take the process down.
 */
export async function extract(
  bytes: Uint8Array,
  hint: Hint,
  limits: ExtractLimits,
  /** Where layout and OCR run; this thread, in English, without it. */
  steps: ExtractSteps = stepsHere(["eng"]),
  /** `detect`'s answer for these bytes, when the caller has it already. */
  known?: Detected,
  reading: ReadingOptions = DEFAULT_READING,
): Promise<Extracted> {
  const detected = known ?? (await detect(bytes, hint));
  const office = { ...limits, maxSheetCells: limits.maxSheetCells ?? DEFAULT_SHEET_MAX_CELLS };
  switch (detected.kind) {
    case "pdf":
    case "image": {
      const read =
        detected.kind === "pdf" ? await extractPdf(bytes, limits, steps) : await extractImage(bytes, limits, steps);
      checkChars(read.text, limits);
      return {
        kind: detected.kind,
        mediaType: detected.kind === "pdf" ? MEDIA_TYPES.pdf : detected.mediaType,
        text: read.text,
        pages: read.pages,
        lines: read.lines,
        pageCount: read.pageCount,
        ...(read.ocrPages.length > 0 ? { ocrPages: read.ocrPages } : {}),
      };
    }
    case "docx":
      return finish("docx", await extractDocx(bytes, limits), limits);
    case "epub": {
      const book = await extractEpub(bytes, limits);
      return { ...finish("epub", book.text, limits), pages: book.chapters };
    }
    case "odt":
      return finish("odt", await extractOdt(bytes, limits), limits);
    case "rtf":
      return finish("rtf", await extractRtf(bytes, limits), limits);
    case "email": {
      const mail = await extractEmail(bytes, detected.format, limits, (attached, hint, known, left) =>
        extract(attached, hint, left, steps, known),
      );
      return {
        ...finish("email", mail.text, limits),
        mediaType: EMAIL_MEDIA_TYPES[detected.format],
        parts: mail.parts,
      };
    }
    case "pptx":
    case "odp":
      return finishOffice(detected.kind, await extractPresentation(bytes, detected.kind, office, reading), limits);
    case "xlsx":
    case "ods":
      return finishOffice(detected.kind, await extractSpreadsheet(bytes, detected.kind, office), limits);
    case "csv":
      return finishOffice("csv", extractCsv(detected.text, detected.name, { tabHinted: detected.tab }, office), limits);
    case "html":
      return finish("html", await convertHtml(detected.text, limits), limits);
    case "markdown":
    case "text":
      return finish(detected.kind, detected.text, limits);
  }
}

function finish(kind: Exclude<DocumentKind, "pdf" | "image">, text: string, limits: ExtractLimits): Extracted {
  if (isBlank(text)) throw failures.emptyDocument();
  checkChars(text, limits);
  const pageCount = Math.max(1, Math.ceil(text.length / CHARS_PER_PAGE));
  if (pageCount > limits.maxPages) throw failures.tooManyPages(pageCount, limits.maxPages);
  return { kind, mediaType: MEDIA_TYPES[kind], text, pageCount };
}

/** Slides and sheets: their sections are the pages; the count is the format's (slides, or rows per sheet). */
function finishOffice(
  kind: "pptx" | "odp" | "xlsx" | "ods" | "csv",
  read: OfficeText,
  limits: ExtractLimits,
): Extracted {
  if (isBlank(read.text)) throw failures.emptyDocument();
  checkChars(read.text, limits);
  if (read.pageCount > limits.maxPages) throw failures.tooManyPages(read.pageCount, limits.maxPages);
  return { kind, mediaType: MEDIA_TYPES[kind], text: read.text, pages: read.pages, pageCount: read.pageCount };
}

function checkChars(text: string, limits: ExtractLimits): void {
  if (text.length > limits.maxChars) throw failures.tooManyCharacters(text.length, limits.maxChars);
}
