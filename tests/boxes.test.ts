import { readFileSync } from "node:fs";
import { chunkExtracted } from "@/lib/pipeline/chunk-result";
import path from "node:path";
import { degrees, PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import type { MethodContext } from "@/lib/pipeline/chunk-result";
import { extract, type Extracted } from "@/lib/extract";
import type { PageBox } from "@/lib/extract/types";
import { LIMITS, pdfOfPages, renderPages } from "./helpers/scans";

/**
 * Where chunks come from on the page: every line of a PDF's or an image's
 * text keeps its box, from pdf.js's positions on a text page and from
 * Tesseract's on a scanned one. The boxes are checked against the pixels of
 * the page as rendered (its ink lies inside them) and against each other (a
 * page's text layer and a scan of it put the same line in the same place).
 */

const DPI = 100;

const STRUCTURED = new Uint8Array(readFileSync(path.join(process.cwd(), "tests/fixtures/structured.pdf")));
const context: MethodContext = {
  embedder: { id: "none", embed: () => Promise.reject(new Error("no embedding in this test")) },
};

/** Of a rendered page's dark pixels, the share inside `boxes`; and the share of the page the boxes cover. */
async function inkInside(png: Uint8Array, boxes: PageBox[]): Promise<{ inside: number; area: number }> {
  const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const covered = new Uint8Array(width * height);
  let area = 0;
  for (const [x0, y0, x1, y1] of boxes) {
    // Half a millimetre around each box: anti-aliased edges of glyphs.
    const pad = 2;
    for (let y = Math.max(0, Math.floor(y0 * height) - pad); y < Math.min(height, Math.ceil(y1 * height) + pad); y++)
      for (let x = Math.max(0, Math.floor(x0 * width) - pad); x < Math.min(width, Math.ceil(x1 * width) + pad); x++) {
        if (!covered[y * width + x]) area++;
        covered[y * width + x] = 1;
      }
  }
  // Within the rectangle the lines span: running headers and footers, dropped from the text, lie outside it.
  const [left, top] = [Math.min(...boxes.map((b) => b[0])) * width, Math.min(...boxes.map((b) => b[1])) * height];
  const [right, bottom] = [Math.max(...boxes.map((b) => b[2])) * width, Math.max(...boxes.map((b) => b[3])) * height];
  let ink = 0;
  let inkInBoxes = 0;
  for (let i = 0; i < data.length; i++) {
    const [x, y] = [i % width, Math.floor(i / width)];
    if (x < left || x >= right || y < top || y >= bottom) continue;
    if (data[i]! >= 128) continue;
    ink++;
    if (covered[i]) inkInBoxes++;
  }
  return { inside: inkInBoxes / ink, area: area / (width * height) };
}

const boxesOn = (doc: Extracted, page: number) => doc.lines!.filter((l) => l.page === page).map((l) => l.box);
const lineText = (doc: Extracted, line: { start: number; end: number }) => doc.text.slice(line.start, line.end);
const key = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, "");

describe("line boxes", () => {
  let textLayer: Extracted;
  let rendered: Uint8Array[];

  beforeAll(async () => {
    textLayer = await extract(STRUCTURED, {}, LIMITS);
    rendered = await renderPages(STRUCTURED, [1, 2, 3], DPI);
  });

  it("cover the lines' own text, in order, without gaps or overlaps within a page", () => {
    const lines = textLayer.lines!;
    expect(lines.length).toBeGreaterThan(30);
    for (const [i, line] of lines.entries()) {
      const next = lines[i + 1];
      // Between blocks, the blank line belongs to neither.
      if (next?.page === line.page) expect(textLayer.text.slice(line.end, next.start)).toMatch(/^\s*$/);
      expect(line.end).toBeGreaterThan(line.start);
      const [x0, y0, x1, y1] = line.box;
      expect(0 <= x0 && x0 < x1 && x1 <= 1 && 0 <= y0 && y0 < y1 && y1 <= 1, `box ${line.box.join(" ")}`).toBe(true);
    }
    const page = textLayer.pages![0]!;
    const onPage = lines.filter((l) => l.page === 1);
    expect(onPage[0]!.start).toBe(page.start);
    expect(onPage.at(-1)!.end).toBe(page.end);
    expect(lineText(textLayer, onPage[0]!)).toBe("# Coastal Survey Handbook");
    // A wrapped line runs to the next line's start: a space between them is its own, a hyphen it lost ("equip-ment") is gone.
    expect(lineText(textLayer, onPage[1]!)).toMatch(/^This handbook explains .* from the first equip$/);
  });

  it("hold a text page's ink as pdf.js renders it", async () => {
    for (const page of [1, 2, 3]) {
      const { inside, area } = await inkInside(rendered[page - 1]!, boxesOn(textLayer, page));
      expect(inside, `page ${page}`).toBeGreaterThan(0.97);
      // Boxes hug lines: far from the whole page.
      expect(area, `page ${page}`).toBeLessThan(0.35);
    }
  });

  it("follow a page shown turned by its /Rotate", async () => {
    const source = await PDFDocument.load(STRUCTURED);
    const pdf = await PDFDocument.create();
    for (const angle of [90, 180, 270]) {
      const [page] = await pdf.copyPages(source, [0]);
      page!.setRotation(degrees(angle));
      pdf.addPage(page);
    }
    const bytes = await pdf.save();
    const turned = await extract(bytes, {}, LIMITS);
    const images = await renderPages(bytes, [1, 2, 3], DPI);
    for (const page of [1, 2, 3]) {
      const { inside } = await inkInside(images[page - 1]!, boxesOn(turned, page));
      expect(inside, `page ${page}`).toBeGreaterThan(0.97);
    }
  });

  it("of a scanned page agree with the text layer's for the same lines", async () => {
    const [scan] = await renderPages(STRUCTURED, [1], 200);
    const read = await extract(scan!, { filename: "scan.png" }, LIMITS);
    const scanned = new Map(read.lines!.map((line) => [key(lineText(read, line)), line]));
    const textLines = textLayer.lines!.filter((l) => l.page === 1);
    let matched = 0;
    for (const line of textLines) {
      const twin = scanned.get(key(lineText(textLayer, line)));
      if (!twin) continue;
      matched++;
      // 0.005 of an A4 page: 3 points across, 4 down.
      line.box.forEach((edge, i) => expect(Math.abs(twin.box[i]! - edge)).toBeLessThan(0.005));
      expect(twin.confidence).toBeGreaterThan(70);
      expect(line.confidence).toBeUndefined();
    }
    expect(matched / textLines.length).toBeGreaterThan(0.8);
    const { inside } = await inkInside(scan!, boxesOn(read, 1));
    expect(inside).toBeGreaterThan(0.97);
  });
});

describe("chunk boxes", () => {
  let mixed: Extracted;

  beforeAll(async () => {
    // structured.pdf's first page as text, its second as a scan.
    const pdf = await pdfOfPages(STRUCTURED, [
      { page: 1, as: "text" },
      { page: 2, as: "scan" },
    ]);
    mixed = await extract(pdf, {}, LIMITS);
  });

  it("give each chunk the boxes of the lines it covers, and OCR's confidence where OCR read them", async () => {
    for (const tier of ["free", "structure"] as const) {
      const { chunks } = await chunkExtracted(mixed, tier, { maxTokens: 64, overlapTokens: 16 }, context);
      for (const { metadata } of chunks) {
        const { boxes = [], page_start = 0, page_end = 0, start, end } = metadata;
        const covered = mixed.lines!.filter((l) => l.start < end && l.end > start);
        expect(boxes).toEqual(covered.map(({ page, box: [x0, y0, x1, y1] }) => ({ page, x0, y0, x1, y1 })));
        expect(boxes.length).toBeGreaterThan(0);
        for (const box of boxes) expect(box.page >= page_start && box.page <= page_end).toBe(true);
        if (page_end === 2) {
          expect(metadata.ocr_confidence).toBeGreaterThan(80);
          expect(metadata.ocr_confidence).toBeLessThanOrEqual(100);
        } else {
          expect(metadata.ocr_confidence).toBeUndefined();
        }
      }
    }
  });
});
