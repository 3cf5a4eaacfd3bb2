// Runs the parsers that must not share a thread with the server: pdf.js
// leaves stray unhandled rejections behind on damaged PDFs, mammoth can
// exhaust memory on a zip bomb, and node-html-markdown slows down more than
// linearly on large pages. lib/extract/worker.ts starts one worker per
// document, sends it requests one at a time and owns every decision; each
// request here is a single library call whose answer is posted back. The one
// piece of ours that runs here is node-html-markdown's table translator
// (html-tables.mjs): a hook must run inside the conversion it changes.
import { parentPort } from "node:worker_threads";
import { keepTables } from "./html-tables.mjs";

// pdf.js's renderer calls ArrayBuffer.prototype.transferToFixedLength (Node 21+); on Node 20 every page
// rendered blank. A copy does what pdf.js needs of it: the original buffer is dropped right after.
ArrayBuffer.prototype.transferToFixedLength ??= function transferToFixedLength(length = this.byteLength) {
  const copy = new ArrayBuffer(length);
  new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
  return copy;
};

let pdfDocument;

/** A page with one word in Helvetica and a rule under it: what `warm` runs pdf.js over (pdf.js rebuilds the missing cross-reference table). */
const WARMUP_PDF = [
  "%PDF-1.4",
  "1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj",
  "2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj",
  "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R",
  "/Resources << /Font << /F1 5 0 R >> >> >> endobj",
  "4 0 obj << /Length 60 >> stream",
  "BT /F1 12 Tf 20 50 Td (Warm) Tj ET 20 40 100 1 re f",
  "endstream endobj",
  "5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj",
  "trailer << /Root 1 0 R >>",
  "%%EOF",
].join("\n");

const handlers = {
  // A worker started ahead of its document loads pdf.js, and runs it once over a page of one word, while it waits:
  // its first document would otherwise pay for loading pdf.js's own worker code and its first font.
  async warm() {
    const { getDocumentProxy } = await load("unpdf");
    const warmup = await getDocumentProxy(new TextEncoder().encode(WARMUP_PDF), { verbosity: 0 });
    try {
      const page = await warmup.getPage(1);
      await page.getTextContent();
      await page.getOperatorList();
    } finally {
      await warmup.cleanup();
    }
    return {};
  },

  async "pdf-open"({ data }) {
    const { getDocumentProxy } = await load("unpdf");
    // verbosity 0: pdf.js would otherwise print warnings about damaged files to the server's log.
    pdfDocument = await getDocumentProxy(data, { verbosity: 0 });
    return { pageCount: pdfDocument.numPages };
  },

  // Positioned text, not plain text: lib/extract/pdf-layout/ recovers
  // headings, paragraphs and lists from sizes and positions. `pages` (1-based): only those, in that order (a job's
  // slice reads only the pages no earlier slice read); every page without it.
  async "pdf-items"({ pages }) {
    const { getResolvedPDFJS } = await load("unpdf");
    const { OPS } = await getResolvedPDFJS();
    const numbers = pages ?? Array.from({ length: pdfDocument.numPages }, (_, i) => i + 1);
    return { pages: await Promise.all(numbers.map((number) => pageItems(number, OPS))) };
  },

  // A scanned page for OCR: its one image as stored, when the page is that image and nothing else that shows
  // (~0.1 s: decoding it), or else the page rendered (~1 s of drawing). As a grey PGM either way.
  async "pdf-page-image"({ page: number, dpi, maxPixels, blur }) {
    return (
      (await storedScan(number, { dpi, maxPixels, blur })) ?? handlers["pdf-render"]({ page: number, dpi, maxPixels })
    );
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
      const { image, pixels } = pgm(w, h);
      luma(drawing.canvas.data(), 4, pixels);
      return { image, width: w, height: h, dpi: scale * 72 };
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
    // Tables whose cells span or hold several lines stay HTML: see html-tables.mjs.
    keepTables(converter);
    return { markdown: segments.map((segment) => converter.translate(segment)) };
  },
};

/**
 * One page's text items as columns: their strings, five numbers each in one
 * Float64Array (x, y, size, width, upright as 1 or 0), and an index into the
 * page's font names. Typed arrays cross to the main thread as plain copies.
 */
async function pageItems(number, OPS) {
  const page = await pdfDocument.getPage(number);
  const { items, styles } = await page.getTextContent();
  const { rules, marks } = pageGraphics(await page.getOperatorList(), OPS);
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
    rules: Float64Array.from(rules),
    marks: Float64Array.from(marks),
  };
}

/** A painted shape at most this many points across, about as wide as tall, is a mark: a list's drawn bullet. */
const MARK_MAX = 9;
/** A painted shape at most this thick and at least this long is a rule: a table's border, a line under a header. */
const RULE_MAX_THICKNESS = 2.5;
const RULE_MIN_LENGTH = 6;

/**
 * What a page draws besides text that tells structure: rules (thin
 * horizontal or vertical lines and bars: table borders, a line under a
 * header) and marks (small filled or stroked shapes: bullets drawn as
 * vector paths, as Chromium, Word and LaTeX draw them). Each as four
 * numbers, left, bottom, right, top in PDF user space. Shapes painted
 * white (or near it) are the page's background, not ink.
 */
function pageGraphics({ fnArray, argsArray }, OPS) {
  const rules = [];
  const marks = [];
  const fills = new Set([
    OPS.fill,
    OPS.eoFill,
    OPS.fillStroke,
    OPS.eoFillStroke,
    OPS.closeFillStroke,
    OPS.closeEOFillStroke,
  ]);
  const strokes = new Set([
    OPS.stroke,
    OPS.closeStroke,
    OPS.fillStroke,
    OPS.eoFillStroke,
    OPS.closeFillStroke,
    OPS.closeEOFillStroke,
  ]);
  let ctm = [1, 0, 0, 1, 0, 0];
  const saved = [];
  let fillInk = true;
  let strokeInk = true;
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i];
    if (fn === OPS.save) saved.push({ ctm, fillInk, strokeInk });
    else if (fn === OPS.restore) ({ ctm, fillInk, strokeInk } = saved.pop() ?? { ctm, fillInk, strokeInk });
    else if (fn === OPS.transform) ctm = multiply(ctm, args);
    else if (fn === OPS.setFillRGBColor) fillInk = isInk(args[0]);
    else if (fn === OPS.setStrokeRGBColor) strokeInk = isInk(args[0]);
    else if (fn === OPS.constructPath) {
      const [paint, [path], minMax] = args;
      if (!path || !minMax) continue;
      const fill = fills.has(paint) && fillInk;
      const stroke = strokes.has(paint) && strokeInk;
      if (!fill && !stroke) continue;
      const box = transformBox(ctm, minMax);
      const [w, h] = [box[2] - box[0], box[3] - box[1]];
      if (w <= MARK_MAX && h <= MARK_MAX && w >= 1 && h >= 1 && w <= 2.5 * h && h <= 2.5 * w) marks.push(...box);
      else if (
        fill &&
        (h <= RULE_MAX_THICKNESS ? w >= RULE_MIN_LENGTH : w <= RULE_MAX_THICKNESS && h >= RULE_MIN_LENGTH)
      )
        rules.push(...box);
      else if (stroke) strokedRules(path, ctm, rules);
    }
  }
  return { rules, marks };
}

/** Straight, level or upright pieces of a stroked path (a line, a rectangle's sides), as rules. */
function strokedRules(path, ctm, rules) {
  // pdf.js's path data: an op code (0 moveTo, 1 lineTo, 2 curveTo, 3 quadraticCurveTo, 4 closePath) and its points.
  const counts = [2, 2, 6, 4, 0];
  let x = 0;
  let y = 0;
  let startX = 0;
  let startY = 0;
  for (let k = 0; k < path.length;) {
    const op = path[k];
    const n = counts[op];
    if (n === undefined) return;
    let toX = x;
    let toY = y;
    if (op === 4) [toX, toY] = [startX, startY];
    else [toX, toY] = [path[k + n - 1], path[k + n]];
    if (op === 1 || op === 4) {
      const [ax, ay] = apply(ctm, x, y);
      const [bx, by] = apply(ctm, toX, toY);
      const [w, h] = [Math.abs(bx - ax), Math.abs(by - ay)];
      if ((h <= 0.5 && w >= RULE_MIN_LENGTH) || (w <= 0.5 && h >= RULE_MIN_LENGTH))
        rules.push(Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by));
    }
    if (op === 0) [startX, startY] = [toX, toY];
    [x, y] = [toX, toY];
    k += n + 1;
  }
}

/** Not white or near it: a colour a reader sees on paper. */
function isInk(color) {
  if (typeof color !== "string" || !/^#[0-9a-f]{6}$/i.test(color)) return true;
  const [r, g, b] = [1, 3, 5].map((at) => Number.parseInt(color.slice(at, at + 2), 16));
  return r * 0.299 + g * 0.587 + b * 0.114 < 235;
}

function apply([a, b, c, d, e, f], x, y) {
  return [a * x + c * y + e, b * x + d * y + f];
}

/** A box [minX, minY, maxX, maxY] under a matrix, as the box around its four corners. */
function transformBox(ctm, [x0, y0, x1, y1]) {
  const corners = [apply(ctm, x0, y0), apply(ctm, x1, y0), apply(ctm, x0, y1), apply(ctm, x1, y1)];
  const xs = corners.map(([x]) => x);
  const ys = corners.map(([, y]) => y);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** What a scanned page may draw besides its image and still be read from the image alone: state, and no paint. */
const NOT_PAINTING = new Set([
  "save",
  "restore",
  "transform",
  "dependency",
  "setGState",
  "beginMarkedContent",
  "beginMarkedContentProps",
  "endMarkedContent",
  "setFillRGBColor",
  "setFillGray",
  "setStrokeRGBColor",
  "setStrokeGray",
  "setFillColorSpace",
  "setStrokeColorSpace",
  "setFillColor",
  "setStrokeColor",
  "setLineWidth",
]);

/**
 * Page `number`'s one image, as stored, if that is all the page shows: a
 * single image drawn upright and unflipped over the whole page (within 1% of
 * each edge), the page not turned, nothing else painted, stored as grey,
 * RGB, RGBA or 1-bit pixels. Otherwise undefined, and the page is rendered:
 * what it shows then is what OCR reads.
 */
async function storedScan(number, { dpi, maxPixels, blur }) {
  const { getResolvedPDFJS } = await load("unpdf");
  const { OPS, ImageKind } = await getResolvedPDFJS();
  const names = new Map(Object.entries(OPS).map(([name, code]) => [code, name]));
  const page = await pdfDocument.getPage(number);
  try {
    if (page.rotate % 360 !== 0) return undefined;
    const { fnArray, argsArray } = await page.getOperatorList();
    let ctm = [1, 0, 0, 1, 0, 0];
    const saved = [];
    let image;
    for (let i = 0; i < fnArray.length; i++) {
      const op = names.get(fnArray[i]);
      if (op === "save") saved.push(ctm);
      else if (op === "restore") ctm = saved.pop() ?? ctm;
      else if (op === "transform") ctm = multiply(ctm, argsArray[i]);
      else if (op === "paintImageXObject" && !image) image = { key: argsArray[i][0], ctm };
      else if (!NOT_PAINTING.has(op)) return undefined;
    }
    if (!image) return undefined;
    const [a, b, c, d, e, f] = image.ctm;
    const [left, bottom, right, top] = page.view;
    const [width, height] = [right - left, top - bottom];
    const near = (x, y) => Math.abs(x - y) <= 0.01 * Math.max(width, height);
    // The unit square the image fills, mapped to the page: upright, unflipped, edge to edge.
    if (b !== 0 || c !== 0 || a <= 0 || d <= 0) return undefined;
    if (!near(e, left) || !near(f, bottom) || !near(e + a, right) || !near(f + d, top)) return undefined;
    const objects = image.key.startsWith("g_") ? page.commonObjs : page.objs;
    const stored = await new Promise((resolve) => objects.get(image.key, resolve));
    // Far larger than OCR reads (a 600-ppi poster): drawn at the scale OCR wants rather than copied whole.
    if (!stored?.data || !stored.width || !stored.height || stored.width * stored.height > 4 * maxPixels)
      return undefined;
    const grey = greyPixels(stored, ImageKind);
    if (!grey) return undefined;
    // At `dpi` at least (Tesseract reads coarse scans better scaled up), at most `maxPixels`, softened by `blur`.
    const own = (stored.width / width) * 72;
    // Within 5% of `dpi` is near enough: a 199.9-ppi scan is not resampled by a pixel.
    const up = own < 0.95 * dpi ? dpi / own : 1;
    const scale = Math.min(up, Math.sqrt(maxPixels / (stored.width * stored.height)));
    const [w, h] = [Math.round(stored.width * scale), Math.round(stored.height * scale)];
    const sharp = (await load("sharp")).default;
    const softened = await sharp(grey, { raw: { width: stored.width, height: stored.height, channels: 1 } })
      .resize(w, h, { fit: "fill", kernel: scale > 1 ? "linear" : "lanczos3" })
      .blur(blur)
      .toColourspace("b-w")
      .raw()
      .toBuffer();
    const made = pgm(w, h);
    made.pixels.set(softened);
    return { image: made.image, width: w, height: h, dpi: own * (w / stored.width) };
  } finally {
    page.cleanup();
  }
}

function multiply([a1, b1, c1, d1, e1, f1], [a2, b2, c2, d2, e2, f2]) {
  return [
    a2 * a1 + b2 * c1,
    a2 * b1 + b2 * d1,
    c2 * a1 + d2 * c1,
    c2 * b1 + d2 * d1,
    e2 * a1 + f2 * c1 + e1,
    e2 * b1 + f2 * d1 + f1,
  ];
}

/** A decoded pdf.js image's pixels as one byte of grey each; undefined for a layout this does not know. */
function greyPixels({ data, width, height, kind }, ImageKind) {
  const count = width * height;
  const grey = new Uint8Array(count);
  if (kind === ImageKind.GRAYSCALE_1BPP) {
    // Rows of bits padded to whole bytes; pdf.js has applied /Decode, so a set bit is white.
    const rowBytes = (width + 7) >> 3;
    if (data.length < rowBytes * height) return undefined;
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) grey[y * width + x] = data[y * rowBytes + (x >> 3)] & (0x80 >> (x & 7)) ? 255 : 0;
    return grey;
  }
  const channels = kind === ImageKind.RGB_24BPP ? 3 : kind === ImageKind.RGBA_32BPP ? 4 : 0;
  if (channels === 0 || data.length < count * channels) return undefined;
  luma(data, channels, grey);
  return grey;
}

/** RGB or RGBA pixels (`channels` bytes each) → their luma (ITU-R BT.601 weights), one byte each, into `out`. */
function luma(data, channels, out) {
  for (let i = 0, o = 0; o < out.length; i += channels, o++)
    out[o] = (data[i] * 77 + data[i + 1] * 150 + data[i + 2] * 29) >> 8;
}

/** A library that fails to load is our fault, not the document's: `stage` tells the two apart. */
class LoadError extends Error {}

/** A binary PGM (P5) of `width` × `height`, and its pixels (one byte of grey each) to fill in place. */
function pgm(width, height) {
  const header = new TextEncoder().encode(`P5\n${width} ${height}\n255\n`);
  const image = new Uint8Array(header.length + width * height);
  image.set(header);
  return { image, pixels: image.subarray(header.length) };
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
