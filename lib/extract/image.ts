import type { Metadata } from "sharp";
import { failures } from "@/lib/extract/failures";
import type { PageImage } from "@/lib/extract/page-items";
import { readPages } from "@/lib/extract/ocr/read-pages";
import { DEFAULT_IMAGE_DPI, MAX_OCR_PIXELS, RENDER_DPI, SCAN_BLUR_SIGMA } from "@/lib/extract/ocr/settings";
import { MAX_IMAGE_PIXELS } from "@/lib/ground/limits";
import { joinPages, type PdfText } from "@/lib/extract/pdf";
import type { ExtractSteps } from "@/lib/extract/steps";
import type { ExtractLimits } from "@/lib/extract/types";

/**
 * An image of text (PNG, JPEG, TIFF with every page, WebP) read by OCR.
 * sharp (libvips) reads the header first, so an image too large to decode
 * safely is refused before any pixel is, then decodes each page upright
 * (EXIF orientation), in grey (a PGM, as PDF pages are rendered), scaled
 * down to what OCR needs at most; each page is then read like a scanned PDF
 * page.
 */
export async function extractImage(
  bytes: Uint8Array,
  limits: Pick<ExtractLimits, "maxPages" | "maxOcrPages" | "maxOcrPagesAsync" | "timeoutMs">,
  steps: ExtractSteps,
): Promise<PdfText> {
  const header = await readHeader(bytes);
  const pageCount = pagesOf(header, limits);
  if (pageCount > limits.maxOcrPages) throw failures.ocrTooManyPages(pageCount, limits);

  const density = header.density ?? DEFAULT_IMAGE_DPI;
  const deadline = performance.now() + limits.timeoutMs;
  const ocr = await readPages(pageCount, (k) => pageImage(bytes, k, density), steps, deadline);
  const layouts = await steps.layout(ocr.map((page) => page.items));
  if (layouts.every((page) => page.text === "")) throw failures.noText(pageCount, "image");
  return { ...joinPages(layouts), pageCount, ocrPages: ocr.map((_, index) => index + 1) };
}

/** An image's pages (a TIFF's or GIF's frames) from its header alone: what the free quota is checked against before OCR. */
export async function countImagePages(bytes: Uint8Array, limits: Pick<ExtractLimits, "maxPages">): Promise<number> {
  return pagesOf(await readHeader(bytes), limits);
}

/**
 * sharp, loaded on the first image: every route that can take a document imports this module, and those that never
 * get one (job status) must not load libvips (their functions ship none).
 */
const loadSharp = async () => (await import("sharp")).default;

async function readHeader(bytes: Uint8Array): Promise<Metadata> {
  const sharp = await loadSharp();
  try {
    return await sharp(bytes, HEADER_ONLY).metadata();
  } catch {
    throw failures.corruptedImage();
  }
}

function pagesOf(header: Metadata, limits: Pick<ExtractLimits, "maxPages">): number {
  const pageCount = header.pages ?? 1;
  if (pageCount > limits.maxPages) throw failures.tooManyPages(pageCount, limits.maxPages);
  return pageCount;
}

/** Reading a header decodes no pixel: sharp's own size limit would turn a bomb into "damaged" before ours names it. */
const HEADER_ONLY = { limitInputPixels: false } as const;

async function pageImage(bytes: Uint8Array, page: number, density: number): Promise<PageImage> {
  const sharp = await loadSharp();
  let size: Metadata;
  try {
    size = await sharp(bytes, { ...HEADER_ONLY, page }).metadata();
  } catch {
    throw failures.corruptedImage();
  }
  const { width = 0, height = 0 } = size;
  if (width * height > MAX_IMAGE_PIXELS) throw failures.imageTooLarge(width, height, MAX_IMAGE_PIXELS);
  // At RENDER_DPI at least (a coarse scan is read better scaled up), at most MAX_OCR_PIXELS.
  const up = density < 0.95 * RENDER_DPI ? RENDER_DPI / density : 1;
  const scale = Math.min(up, Math.sqrt(MAX_OCR_PIXELS / Math.max(1, width * height)));
  // Inside a square of the longer side: the same whichever way autoOrient turns the page.
  const side = Math.floor(Math.max(width, height) * scale);
  try {
    const { data, info } = await sharp(bytes, { page, limitInputPixels: MAX_IMAGE_PIXELS, failOn: "truncated" })
      .autoOrient()
      .resize(side, side, { fit: "inside", kernel: scale > 1 ? "linear" : "lanczos3" })
      // Transparent parts on white, as a viewer shows them; then one channel of grey, softened as a PDF's scan is.
      .flatten({ background: "#ffffff" })
      .toColourspace("b-w")
      .blur(SCAN_BLUR_SIGMA)
      .raw()
      .toBuffer({ resolveWithObject: true });
    const header = new TextEncoder().encode(`P5\n${info.width} ${info.height}\n255\n`);
    const image = new Uint8Array(header.length + data.length);
    image.set(header);
    image.set(data, header.length);
    return { image, width: info.width, height: info.height, dpi: (density * side) / Math.max(width, height) };
  } catch {
    throw failures.corruptedImage();
  }
}
