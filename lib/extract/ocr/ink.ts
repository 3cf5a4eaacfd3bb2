/**
 * How heavy a scanned word's type is, from the page image: the mean width of
 * its strokes, measured across (runs of dark pixels along each pixel row of
 * its box). Tesseract's LSTM engine reports no font attributes, and a
 * scan's headings at body size differ from the text only in weight; a bold
 * face's stems are about 1.6 times as wide as its regular's, whatever the
 * letters, where ink per box area varies with the letters a word has.
 */

export interface GreyImage {
  pixels: Uint8Array;
  width: number;
  height: number;
}

/** The pixels of a binary PGM (P5, 8 bits): its last width × height bytes, after the header. */
export function pgmPixels(pgm: Uint8Array, width: number, height: number): GreyImage | undefined {
  const size = width * height;
  if (pgm.length < size) return undefined;
  return { pixels: pgm.subarray(pgm.length - size), width, height };
}

/** Darkest and lightest closer than this (of 255): no ink to measure, a blank or washed-out box. */
const MIN_CONTRAST = 60;
/**
 * Runs longer than this share of the box's height are strokes along the row
 * (a "T"'s bar, a dash), not across a stem.
 */
const MAX_RUN_OF_HEIGHT = 0.3;

/**
 * The mean width, in pixels, of the strokes in a box (image pixels, y down),
 * or undefined when it holds none. Ink is what is darker than halfway
 * between the box's darkest and lightest pixel: a grey background (a shaded
 * table row) or a faint scan keeps its contrast.
 */
export function strokeWidth(image: GreyImage, x0: number, y0: number, x1: number, y1: number): number | undefined {
  const left = Math.max(0, Math.floor(x0));
  const right = Math.min(image.width, Math.ceil(x1));
  const top = Math.max(0, Math.floor(y0));
  const bottom = Math.min(image.height, Math.ceil(y1));
  if (right - left < 2 || bottom - top < 2) return undefined;
  const { pixels, width } = image;
  let darkest = 255;
  let lightest = 0;
  for (let y = top; y < bottom; y++)
    for (let x = left, i = y * width + left; x < right; x++, i++) {
      const p = pixels[i]!;
      if (p < darkest) darkest = p;
      if (p > lightest) lightest = p;
    }
  if (lightest - darkest < MIN_CONTRAST) return undefined;
  const threshold = (darkest + lightest) / 2;
  const maxRun = Math.max(2, MAX_RUN_OF_HEIGHT * (bottom - top));
  let ink = 0;
  let runs = 0;
  for (let y = top; y < bottom; y++) {
    let run = 0;
    for (let x = left, i = y * width + left; x <= right; x++, i++) {
      if (x < right && pixels[i]! < threshold) {
        run++;
        continue;
      }
      if (run > 0 && run <= maxRun) {
        ink += run;
        runs++;
      }
      run = 0;
    }
  }
  return runs > 0 ? ink / runs : undefined;
}
