import { ApiError } from "@/lib/ground/errors";
import type { MarkupExcess } from "@/lib/extract/markup-budget";
import type { ExtractLimits } from "@/lib/extract/types";

/**
 * Every way extraction can refuse a document, in one place so codes and
 * wording stay consistent. Messages tell the user what to do next.
 */
const ACCEPTED =
  "Send a PDF, a Word document (.docx), OpenDocument text (.odt), RTF, an EPUB e-book, an e-mail (.eml, .msg), a slide deck (.pptx, .odp), a spreadsheet (.xlsx, .ods, .csv, .tsv), HTML, Markdown, plain text or an image of text (PNG, JPEG, TIFF, WebP).";

export const failures = {
  unsupportedType: (what: string, advice = ACCEPTED) =>
    new ApiError("unsupported_type", `This file is ${what}, which cannot be chunked. ${advice}`),
  binaryText: () =>
    new ApiError(
      "unsupported_type",
      `This file contains NUL bytes, so it is binary or text in an encoding that is not read here (UTF-16 without a byte-order mark, UTF-32). ${ACCEPTED} Text must be UTF-8, or UTF-16 with a byte-order mark.`,
    ),
  invalidEncoding: (encoding: string) =>
    new ApiError(
      "invalid_encoding",
      `This text is not valid ${encoding}. Save it as UTF-8 (or UTF-16 with a byte-order mark) and send it again.`,
    ),
  emptyDocument: () =>
    new ApiError("empty_document", "The document contains no text. Check that you sent the right file."),
  corruptedPdf: () =>
    new ApiError(
      "corrupted_pdf",
      "This PDF is damaged or incomplete and could not be read. Open it in a PDF viewer, save or export it again, and send the new file.",
    ),
  encryptedPdf: () =>
    new ApiError(
      "encrypted_pdf",
      "This PDF is password-protected. Remove the password (for example by printing it to a new PDF) and send it again.",
    ),
  /** `ocrPages`: the pages OCR read and found nothing on; the document had no text anywhere else. */
  noText: (ocrPages: number, kind: "pdf" | "image") =>
    new ApiError(
      "no_text",
      `${
        kind === "image"
          ? `OCR found no text in this image${ocrPages > 1 ? ` (${ocrPages} pages)` : ""}.`
          : `This PDF has no text layer, and OCR found no text on its ${ocrPages === 1 ? "page" : `${ocrPages} pages`}.`
      } Check that you sent the right file and that its text is legible (letters at least about 10 pixels high).`,
    ),
  corruptedImage: () =>
    new ApiError(
      "corrupted_image",
      "This image is damaged or incomplete and could not be read. Export or save it again and send the new file.",
    ),
  imageTooLarge: (width: number, height: number, maxPixels: number) =>
    new ApiError(
      "image_too_large",
      `This image is ${width} × ${height} pixels; at most ${(maxPixels / 1e6).toFixed(0)} million pixels a page are read. Scale it down (300 pixels per inch is plenty for OCR) and send it again.`,
    ),
  /** `maxOcrPagesAsync` is there when a synchronous request is refused: a job of it may read more. */
  ocrTooManyPages: (pages: number, limits: Pick<ExtractLimits, "maxOcrPages" | "maxOcrPagesAsync">) => {
    const found = `This document has ${pages} pages without a text layer to read by OCR`;
    const { maxOcrPages: max, maxOcrPagesAsync: asJob } = limits;
    return new ApiError(
      "ocr_too_many_pages",
      asJob === undefined
        ? `${found}; at most ${max} are read in one job. Split it and send the parts separately.`
        : pages <= asJob
          ? `${found}; at most ${max} are read in a synchronous request. Send it again with async=true (a form or JSON field) to run it as a job, which reads up to ${asJob}: the answer is a job_id and a status_url that shows progress page by page.`
          : `${found}; at most ${max} are read in a synchronous request and ${asJob} in a job (async=true). Split it and send the parts separately.`,
    );
  },
  corruptedDocx: () =>
    new ApiError(
      "corrupted_docx",
      "This Word document is damaged or not a valid .docx file. Open it in Word or LibreOffice, save it as .docx again, and send the new file.",
    ),
  /** An EPUB, ODT, RTF or e-mail that its reader could not read; `what` names the format ("This EPUB book"). */
  corruptedDocument: (what: string, detail?: string) =>
    new ApiError(
      "corrupted_document",
      `${what} is damaged or not valid${detail ? ` (${detail})` : ""}. Open it in the program that made it, save or export it again, and send the new file.`,
    ),
  drmProtected: () =>
    new ApiError(
      "drm_protected",
      "This EPUB book is protected by DRM: its chapters are encrypted and cannot be read. Send a DRM-free copy of the book.",
    ),
  /** An e-mail attached to an e-mail, more than `max` levels deep. */
  emailTooDeep: (max: number) =>
    new ApiError(
      "document_too_complex",
      `This e-mail holds e-mails attached more than ${max} level${max === 1 ? "" : "s"} deep; at most ${max} are read. Forward the inner message on its own and send that.`,
    ),
  corruptedOffice: (what: "presentation" | "spreadsheet") =>
    new ApiError(
      "corrupted_document",
      `This ${what} is damaged or not a valid ${what === "presentation" ? ".pptx or .odp" : ".xlsx or .ods"} file. Open it in its application (or LibreOffice), save it again, and send the new file.`,
    ),
  /** A sheet whose table (non-empty rows × non-empty columns) is over the budget. */
  sheetTooLarge: (sheet: string, rows: number, columns: number, max: number) =>
    new ApiError(
      "document_too_complex",
      `The sheet "${sheet.slice(0, 100)}" spans ${rows.toLocaleString("en-US")} rows by ${columns.toLocaleString("en-US")} columns; at most ${max.toLocaleString("en-US")} cells a sheet are read. Delete the empty cells between its data, or split it, and send it again.`,
    ),
  /** More filled cells (or rows of a CSV) than one request reads. */
  tooManyCells: (max: number) =>
    new ApiError(
      "document_too_complex",
      `This document holds more than ${max.toLocaleString("en-US")} filled cells; at most ${max.toLocaleString("en-US")} are read in one request. Split it into smaller files and send them one by one.`,
    ),
  zipBomb: (detail: string) =>
    new ApiError(
      "zip_bomb",
      `This document's unpacked size is too large (${detail}). Split it into smaller documents and send them one by one.`,
    ),
  tooManyPages: (pages: number, max: number) =>
    new ApiError(
      "too_many_pages",
      `This document has ${pages} pages; at most ${max} are allowed per request. Split it and send the parts separately.`,
    ),
  /** `atLeast`: `chars` is a lower bound (the upload was refused for its size, before it was decoded). */
  tooManyCharacters: (chars: number, max: number, atLeast = false) =>
    new ApiError(
      "too_many_characters",
      `This document has ${atLeast ? "at least " : ""}${chars} characters of text; at most ${max} are allowed per request. Split it and send the parts separately.`,
    ),
  tooComplex: (reason: "time" | "memory") =>
    new ApiError(
      "document_too_complex",
      `Reading this document took more ${reason === "time" ? "time" : "memory"} than allowed. Simplify it or split it into smaller documents and send them one by one.`,
    ),
  /** The markup nests deeper or holds more elements than its readers are given (lib/extract/markup-budget.ts). */
  markupTooComplex: (excess: MarkupExcess) =>
    new ApiError(
      "document_too_complex",
      excess.limit === "depth"
        ? `This document nests elements more than ${excess.max} deep; at most ${excess.max} levels are read. Flatten its structure (for example save it again from a word processor or browser) and send it again.`
        : `This document holds more than ${excess.max.toLocaleString("en-US")} elements; at most ${excess.max.toLocaleString("en-US")} are read in one request. Split it into smaller documents and send them one by one.`,
    ),
  extractorUnavailable: (cause: unknown) =>
    new ApiError(
      "extraction_failed",
      "The document reader failed on our side. Try again later; if it keeps failing, report it.",
      { cause },
    ),
};
