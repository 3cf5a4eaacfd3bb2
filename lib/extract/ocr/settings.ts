/**
 * How page images are made for OCR and how large they may be. Tesseract
 * reads text best at 10-40 pixels to a line; at 200 pixels per inch body
 * text (9-12 pt) is 25-35 pixels high.
 */

/**
 * Pixels per inch a PDF page without a text layer is rendered at, and the
 * least a scan (a PDF page's stored image, an uploaded image) is read at:
 * one stored coarser is scaled up to it. Read at their own 150 ppi, the
 * evaluation's coarse scans lost headings into paragraphs (the structure
 * tier's cuts on them: Pk 16.5 against the text copy); scaled up, 0.0.
 */
export const RENDER_DPI = 200;
/**
 * The Gaussian blur (in pixels, under a stroke's width) a scan is softened by
 * before Tesseract binarises it, as drawing a page smooths it; without it
 * grain defeats the threshold. On the evaluation's scans (npm run eval,
 * "Scans"), read from their stored images, noise σ 40 went from 75.7% of
 * words to 99.7%, 150 ppi with noise and skew from 82.5% to 98.5% (99.2%
 * once scaled up to RENDER_DPI as well).
 */
export const SCAN_BLUR_SIGMA = 0.8;
/** Pixels of one page image given to OCR (an A2 page at 200 dpi); a larger one is scaled down to it. */
export const MAX_OCR_PIXELS = 16_000_000;
/** Pixels per inch assumed for an image that does not say: what scanners default to. */
export const DEFAULT_IMAGE_DPI = 300;
/** Pages of one request OCR'd at once: each is a task on the CPU pool, and other requests' tasks queue between them. */
export const PAGES_AT_ONCE = 2;
