/**
 * How page images are made for OCR and how large they may be. Tesseract
 * reads text best at 10-40 pixels to a line; at 200 pixels per inch body
 * text (9-12 pt) is 25-35 pixels high.
 */

/** Pixels per inch a PDF page without a text layer is rendered at. */
export const RENDER_DPI = 200;
/** Pixels of one page image given to OCR (an A2 page at 200 dpi); a larger one is scaled down to it. */
export const MAX_OCR_PIXELS = 16_000_000;
/** Pixels of one uploaded image page: past it the image is refused before it is decoded (a decompression bomb). */
export const MAX_IMAGE_PIXELS = 64_000_000;
/** Pixels per inch assumed for an image that does not say: what scanners default to. */
export const DEFAULT_IMAGE_DPI = 300;
/** Pages of one request OCR'd at once: each is a task on the CPU pool, and other requests' tasks queue between them. */
export const PAGES_AT_ONCE = 2;
