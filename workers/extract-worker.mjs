// Runs the parsers that must not share a thread with the server: pdf.js
// leaves stray unhandled rejections behind on damaged PDFs, mammoth can
// exhaust memory on a zip bomb, and node-html-markdown slows down more than
// linearly on large pages. lib/extract/worker.ts starts one worker per
// document, sends it requests one at a time and owns every decision; each
// request here is a single library call whose answer is posted back.
import { parentPort } from "node:worker_threads";

// pdf.js's renderer calls ArrayBuffer.prototype.transferToFixedLength (Node 21+); on Node 20 every page
// rendered blank. A copy does what pdf.js needs of it: the original buffer is dropped right after.
ArrayBuffer.prototype.transferToFixedLength ??= function transferToFixedLength(length = this.byteLength) {
  const copy = new ArrayBuffer(length);
  new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
  return copy;
};

let pdfDocument;

const handlers = {
  async "pdf-open"({ data }) {
    const { getDocumentProxy } = await load("unpdf");
    // verbosity 0: pdf.js would otherwise print warnings about damaged files to the server's log.
    pdfDocument = await getDocumentProxy(data, { verbosity: 0 });
    return { pageCount: pdfDocument.numPages };
  },

  // Positioned text, not plain text: lib/extract/pdf-layout.ts recovers
  // headings, paragraphs and lists from sizes and positions.
  async "pdf-items"() {
    const numbers = Array.from({ length: pdfDocument.numPages }, (_, i) => i + 1);
    return { pages: await Promise.all(numbers.map(pageItems)) };
  },

  // A page in grey for OCR, at `dpi` unless that would make more than `maxPixels` pixels, as a PGM:
  // Tesseract reads it without decoding, and making it costs no encoding (a PNG took ~0.2 s a page each way).
  async "pdf-render"({ page: number, dpi, maxPixels }) {
    const { createIsomorphicCanvasFactory } = await load("unpdf");
    const CanvasFactory = await createIsomorphicCanvasFactory(() => load("@napi-rs/canvas"));
    const page = await pdfDocument.getPage(number);
    const factory = new CanvasFactory();
    let drawing;
    try {
      const { width, height } = page.getViewport({ scale: 1 });
      const scale = Math.min(dpi / 72, Math.sqrt(maxPixels / Math.max(1, width * height)));
      const viewport = page.getViewport({ scale });
      drawing = factory.create(viewport.width, viewport.height);
      await page.render({ canvas: drawing.canvas, canvasContext: drawing.context, viewport }).promise;
      const { width: w, height: h } = drawing.canvas;
      return { image: greyPgm(drawing.canvas.data(), w, h), width: w, height: h, dpi: scale * 72 };
    } finally {
      if (drawing) factory.destroy(drawing);
      page.cleanup();
    }
  },

  async "docx-html"({ data }) {
    const mammoth = (await load("mammoth")).default;
    const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const result = await mammoth.convertToHtml(
      { buffer },
      // Images would come back inlined as base64; only text is kept, so never read them.
      { convertImage: mammoth.images.imgElement(async () => ({ src: "" })) },
    );
    return { html: result.value };
  },

  async markdown({ segments, options }) {
    const { NodeHtmlMarkdown } = await load("node-html-markdown");
    const converter = new NodeHtmlMarkdown(options);
    return { markdown: segments.map((segment) => converter.translate(segment)) };
  },
};

/**
 * One page's text items as columns: their strings, five numbers each in one
 * Float64Array (x, y, size, width, upright as 1 or 0), and an index into the
 * page's font names. Typed arrays cross to the main thread as plain copies.
 */
async function pageItems(number) {
  const page = await pdfDocument.getPage(number);
  const { items, styles } = await page.getTextContent();
  const text = [];
  const font = [];
  const geometry = [];
  const fonts = [];
  const fontIndex = new Map();
  for (const item of items) {
    // Marked-content entries carry no text; empty strings only mark line ends, which positions tell anyway.
    if (typeof item.str !== "string" || item.str === "") continue;
    const [a, b, c, d, x, y] = item.transform;
    const size = Math.hypot(c, d) || item.height;
    // A degenerate matrix in a damaged file: the text cannot be placed.
    if (![x, y, size, item.width].every(Number.isFinite)) continue;
    const upright = a > 0 && Math.abs(b) <= 0.01 * a && Math.abs(c) <= 0.01 * Math.abs(d);
    let index = fontIndex.get(item.fontName);
    if (index === undefined) {
      index = fonts.length;
      fonts.push(String(item.fontName));
      fontIndex.set(item.fontName, index);
    }
    text.push(item.str);
    font.push(index);
    geometry.push(x, y, size, item.width, upright ? 1 : 0);
  }
  page.cleanup();
  return {
    box: page.view,
    rotate: page.rotate,
    text,
    font: Uint32Array.from(font),
    geometry: Float64Array.from(geometry),
    fonts,
    monospace: fonts.filter((name) => styles[name]?.fontFamily === "monospace"),
  };
}

/** A library that fails to load is our fault, not the document's: `stage` tells the two apart. */
class LoadError extends Error {}

/** RGBA pixels → a binary PGM (P5) of their luma (ITU-R BT.601 weights). */
function greyPgm(rgba, width, height) {
  const header = new TextEncoder().encode(`P5\n${width} ${height}\n255\n`);
  const pgm = new Uint8Array(header.length + width * height);
  pgm.set(header);
  for (let i = 0, o = header.length; i < rgba.length; i += 4, o++)
    pgm[o] = (rgba[i] * 77 + rgba[i + 1] * 150 + rgba[i + 2] * 29) >> 8;
  return pgm;
}

async function load(name) {
  try {
    return await import(name);
  } catch (error) {
    throw new LoadError(`cannot load ${name}: ${error?.message ?? error}`);
  }
}

parentPort.on("message", async (request) => {
  const handler = handlers[request?.op];
  try {
    if (!handler) throw new LoadError(`unknown request ${JSON.stringify(request?.op)}`);
    parentPort.postMessage({ ok: true, ...(await handler(request)) });
  } catch (error) {
    parentPort.postMessage({
      ok: false,
      stage: error instanceof LoadError ? "load" : "document",
      name: typeof error?.name === "string" ? error.name : "Error",
      message: typeof error?.message === "string" ? error.message : String(error),
    });
  }
});
