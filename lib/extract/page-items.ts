/** What passes between PDF reading, OCR and layout recovery: a page's text items, a page image, an OCR'd page. */

import { z } from "zod";

/**
 * One page from the worker's "pdf-items" (or from OCR): per text item a
 * string, five numbers (x, y, size, width, upright), a font index, and from
 * OCR a confidence.
 */
export const PageItems = z
  .object({
    box: z.tuple([z.number(), z.number(), z.number(), z.number()]),
    rotate: z.number(),
    text: z.array(z.string()),
    geometry: z.instanceof(Float64Array),
    font: z.instanceof(Uint32Array),
    confidence: z.instanceof(Float64Array).optional(),
    fonts: z.array(z.string()),
    monospace: z.array(z.string()),
    /** Drawn rules and marks, four numbers each (left, bottom, right, top); an OCR'd page's rules are found in its image. */
    rules: z.instanceof(Float64Array).optional(),
    marks: z.instanceof(Float64Array).optional(),
  })
  .refine(
    (page) =>
      page.geometry.length === page.text.length * 5 &&
      page.font.length === page.text.length &&
      (page.confidence === undefined || page.confidence.length === page.text.length) &&
      page.font.every((index) => index < page.fonts.length) &&
      page.geometry.every(Number.isFinite) &&
      [page.rules, page.marks].every(
        (boxes) => boxes === undefined || (boxes.length % 4 === 0 && boxes.every(Number.isFinite)),
      ),
    "text items whose columns disagree",
  );

export type PdfPageItems = z.infer<typeof PageItems>;

export interface PageImage {
  /** The page in grey as a binary PGM (P5): Tesseract reads it without decoding anything. */
  image: Uint8Array;
  width: number;
  height: number;
  /** Its pixels per inch: positions and sizes are given in PDF points (1/72 inch), like pdf.js's. */
  dpi: number;
}

export interface OcrPage {
  items: PdfPageItems;
  /** Tesseract's mean word confidence, 0-100 (0 without words). */
  confidence: number;
  words: number;
}
