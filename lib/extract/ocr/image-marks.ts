/**
 * List bullets drawn as shapes (a filled disc or square, a hollow circle)
 * before a scanned line that Tesseract left out of it: found in the page
 * image as one compact blob of ink to the left of the line's first word, at
 * the height of its small letters, with nothing between it and the word.
 * They go to layout recovery as a text PDF's drawn marks do
 * (`attachBullets`), so the line starts a list item there.
 */
import type { PixelBox } from "./image-rules";
import type { GreyImage } from "./ink";

/** A line Tesseract read, in pixels: its box, its baseline's height at its start, and its size. */
export interface LineBox extends PixelBox {
  baseline: number;
  em: number;
}

/**
 * Looked for this many ems before the line's text, its right edge at most
 * NEAR_EM away: a bullet stands half an em or so before its text, and a
 * page's other column ends further off.
 */
const SEARCH_EM = 1.5;
const NEAR_EM = 1;
/** Specks smaller than this share of an em either way are no ink to count. */
const SPECK_EM = 0.08;
/** Its width and height: a disc or square a fifth to two thirds of an em across. */
const MIN_EM = 0.15;
const MAX_EM = 0.6;
/** Its width to its height, either way: a bullet is about as wide as it is high (a dash is not). */
const MAX_ASPECT = 2;

export function bulletMarks(image: GreyImage, threshold: number, lines: LineBox[]): PixelBox[] {
  const marks: PixelBox[] = [];
  for (const line of lines) {
    const left = Math.max(0, Math.floor(line.x0 - SEARCH_EM * line.em));
    const top = Math.max(0, Math.floor(line.baseline - line.em));
    const bottom = Math.min(image.height, Math.ceil(line.baseline + 0.1 * line.em));
    const right = Math.floor(line.x0) - 1;
    if (right - left < 2 || bottom - top < 2) continue;
    const speck = SPECK_EM * line.em;
    const blobs = components(image, threshold, left, top, right, bottom).filter(
      (b) => b.x1 - b.x0 >= speck || b.y1 - b.y0 >= speck,
    );
    // The blob nearest the line, and only when it is the only ink there: a bullet stands alone before its text.
    if (blobs.length !== 1) continue;
    const [blob] = blobs as [PixelBox];
    const w = blob.x1 - blob.x0;
    const h = blob.y1 - blob.y0;
    const middle = (blob.y0 + blob.y1) / 2;
    const fits =
      w >= MIN_EM * line.em &&
      h >= MIN_EM * line.em &&
      w <= MAX_EM * line.em &&
      h <= MAX_EM * line.em &&
      w <= MAX_ASPECT * h &&
      h <= MAX_ASPECT * w &&
      blob.x1 >= line.x0 - NEAR_EM * line.em &&
      // At the small letters' height: a bullet's middle sits between the baseline and the x-height.
      middle <= line.baseline - 0.1 * line.em &&
      middle >= line.baseline - 0.7 * line.em &&
      // Touching the window's edge, it may be part of something larger (a letter of a column to the left).
      blob.x0 > left &&
      blob.y0 > top &&
      blob.y1 < bottom;
    if (fits) marks.push(blob);
  }
  return marks;
}

/** Connected blobs of ink (8-neighbours) in a window, as their boxes. */
function components(
  { pixels, width }: GreyImage,
  threshold: number,
  left: number,
  top: number,
  right: number,
  bottom: number,
): PixelBox[] {
  const w = right - left;
  const seen = new Uint8Array(w * (bottom - top));
  const boxes: PixelBox[] = [];
  const stack: number[] = [];
  for (let y = top; y < bottom; y++)
    for (let x = left; x < right; x++) {
      const k = (y - top) * w + (x - left);
      if (seen[k] || pixels[y * width + x]! >= threshold) continue;
      const box = { x0: x, y0: y, x1: x + 1, y1: y + 1 };
      seen[k] = 1;
      stack.push(x, y);
      while (stack.length > 0) {
        const cy = stack.pop()!;
        const cx = stack.pop()!;
        box.x0 = Math.min(box.x0, cx);
        box.x1 = Math.max(box.x1, cx + 1);
        box.y0 = Math.min(box.y0, cy);
        box.y1 = Math.max(box.y1, cy + 1);
        for (let dy = -1; dy <= 1; dy++)
          for (let dx = -1; dx <= 1; dx++) {
            const nx = cx + dx;
            const ny = cy + dy;
            if (nx < left || nx >= right || ny < top || ny >= bottom) continue;
            const nk = (ny - top) * w + (nx - left);
            if (seen[nk] || pixels[ny * width + nx]! >= threshold) continue;
            seen[nk] = 1;
            stack.push(nx, ny);
          }
      }
      boxes.push(box);
    }
  return boxes;
}
