import { ApiError } from "@/lib/errors";

/**
 * Every way extraction can refuse a document, in one place so codes and
 * wording stay consistent. Messages tell the user what to do next.
 */
const ACCEPTED = "Send a PDF, a Word document (.docx), HTML, Markdown or plain text.";

export const failures = {
  unsupportedType: (what: string, advice = ACCEPTED) =>
    new ApiError(415, "unsupported_type", `This file is ${what}, which cannot be chunked. ${advice}`),
  binaryText: () =>
    new ApiError(
      415,
      "unsupported_type",
      `This file contains NUL bytes, so it is binary or text in an encoding that is not read here (UTF-16 without a byte-order mark, UTF-32). ${ACCEPTED} Text must be UTF-8, or UTF-16 with a byte-order mark.`,
    ),
  invalidEncoding: (encoding: string) =>
    new ApiError(
      400,
      "invalid_encoding",
      `This text is not valid ${encoding}. Save it as UTF-8 (or UTF-16 with a byte-order mark) and send it again.`,
    ),
  emptyDocument: () =>
    new ApiError(400, "empty_document", "The document contains no text. Check that you sent the right file."),
  corruptedPdf: () =>
    new ApiError(
      400,
      "corrupted_pdf",
      "This PDF is damaged or incomplete and could not be read. Open it in a PDF viewer, save or export it again, and send the new file.",
    ),
  encryptedPdf: () =>
    new ApiError(
      400,
      "encrypted_pdf",
      "This PDF is password-protected. Remove the password (for example by printing it to a new PDF) and send it again.",
    ),
  noText: () =>
    new ApiError(
      400,
      "no_text",
      "This PDF has no extractable text; it is probably scanned images. OCR is not supported: run it through OCR first and send the resulting PDF or text.",
    ),
  corruptedDocx: () =>
    new ApiError(
      400,
      "corrupted_docx",
      "This Word document is damaged or not a valid .docx file. Open it in Word or LibreOffice, save it as .docx again, and send the new file.",
    ),
  zipBomb: (detail: string) =>
    new ApiError(
      413,
      "zip_bomb",
      `This document's unpacked size is too large (${detail}). Split it into smaller documents and send them one by one.`,
    ),
  tooManyPages: (pages: number, max: number) =>
    new ApiError(
      413,
      "too_many_pages",
      `This document has ${pages} pages; at most ${max} are allowed per request. Split it and send the parts separately.`,
    ),
  /** `atLeast`: `chars` is a lower bound (the upload was refused for its size, before it was decoded). */
  tooManyCharacters: (chars: number, max: number, atLeast = false) =>
    new ApiError(
      413,
      "too_many_characters",
      `This document has ${atLeast ? "at least " : ""}${chars} characters of text; at most ${max} are allowed per request. Split it and send the parts separately.`,
    ),
  tooComplex: (reason: "time" | "memory") =>
    new ApiError(
      400,
      "document_too_complex",
      `Reading this document took more ${reason === "time" ? "time" : "memory"} than allowed. Simplify it or split it into smaller documents and send them one by one.`,
    ),
  extractorUnavailable: (cause: unknown) =>
    new ApiError(
      500,
      "extraction_failed",
      "The document reader failed on our side. Try again later; if it keeps failing, report it.",
      { cause },
    ),
};
