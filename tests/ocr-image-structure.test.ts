import { PDFDocument, StandardFonts, rgb } from "pdf-lib";
import type { Word } from "tesseract.js";
import { beforeAll, describe, expect, it } from "vitest";
import { extract } from "@/lib/extract";
import { bulletMarks } from "@/lib/extract/ocr/image-marks";
import { imageRules, otsu } from "@/lib/extract/ocr/image-rules";
import { type GreyImage, strokeWidth } from "@/lib/extract/ocr/ink";
import { type SegmentedBlock, tableAreas } from "@/lib/extract/ocr/table-areas";
import { wordRuns } from "@/lib/extract/ocr/word-items";
import { LIMITS, pdfOfPages } from "./helpers/scans";

/**
 * What a scanned page's image tells besides its words (lib/extract/ocr/):
 * rules, drawn bullets and the weight of type found in the pixels, and the
 * areas Tesseract's segmentation lost a table in. Pixel-level parts on
 * images drawn here; the whole on a page printed by pdf-lib, rendered by the
 * service's own PDF worker and put back as an image-only PDF.
 */

/** A white grey image with black rectangles (x, y, width, height in pixels, y down). */
function drawn(width: number, height: number, boxes: [number, number, number, number][]): GreyImage {
  const pixels = new Uint8Array(width * height).fill(255);
  for (const [x, y, w, h] of boxes)
    for (let j = y; j < y + h; j++) for (let i = x; i < x + w; i++) pixels[j * width + i] = 0;
  return { pixels, width, height };
}

describe("rules in a page image", () => {
  it("finds long thin level and upright runs of ink, not a filled box nor a glyph's stroke", () => {
    const image = drawn(600, 400, [
      [50, 100, 400, 2], // a level rule, 144 pt at 200 dpi
      [300, 150, 2, 200], // an upright one, 72 pt
      [460, 200, 100, 100], // a filled box
      [50, 300, 20, 3], // a dash
      [100, 300, 3, 25], // an "l"
    ]);
    const rules = imageRules(image, 200);
    expect(rules).toEqual([
      { x0: 50, y0: 100, x1: 450, y1: 102 },
      { x0: 300, y0: 150, x1: 302, y1: 350 },
    ]);
  });

  it("takes Otsu's threshold between ink and paper, so a light shaded band is not ink", () => {
    const image = drawn(200, 100, [[10, 10, 150, 2]]);
    for (let i = 60 * 200; i < 80 * 200; i++) image.pixels[i] = 230; // a zebra row
    const threshold = otsu(image);
    expect(threshold).toBeGreaterThan(0);
    expect(threshold).toBeLessThanOrEqual(230);
    expect(imageRules(image, 200, threshold)).toHaveLength(1);
  });
});

describe("stroke width", () => {
  it("measures stems across: a bold face's wider stems weigh more, whatever the box's height", () => {
    const stems = (width: number) =>
      drawn(
        200,
        40,
        [0, 1, 2, 3].map((k) => [10 + 30 * k, 5, width, 30]),
      );
    expect(strokeWidth(stems(3), 0, 0, 200, 40)).toBeCloseTo(3);
    expect(strokeWidth(stems(5), 0, 0, 200, 40)).toBeCloseTo(5);
    // A bar along the row is not a stem; a box without ink has none.
    const barred = drawn(200, 40, [
      [10, 5, 3, 30],
      [10, 5, 150, 3],
    ]);
    expect(strokeWidth(barred, 0, 0, 200, 40)).toBeCloseTo(3);
    expect(strokeWidth(drawn(50, 50, []), 0, 0, 50, 50)).toBeUndefined();
  });
});

describe("drawn bullets in a page image", () => {
  const line = { x0: 100, y0: 70, x1: 500, y1: 110, baseline: 100, em: 30 };
  it("finds one compact blob before a line's text, at its small letters' height", () => {
    const image = drawn(600, 200, [[75, 85, 9, 9]]);
    expect(bulletMarks(image, 128, [line])).toEqual([{ x0: 75, y0: 85, x1: 84, y1: 94 }]);
  });

  it("takes no dash, no blob at the baseline or above the letters, and nothing beside other ink", () => {
    const none = (boxes: [number, number, number, number][]) => bulletMarks(drawn(600, 200, boxes), 128, [line]);
    expect(none([[70, 88, 20, 3]])).toEqual([]); // a dash: three times as wide as high
    expect(none([[75, 96, 4, 4]])).toEqual([]); // a full stop, on the baseline
    expect(none([[75, 72, 6, 6]])).toEqual([]); // high, as an apostrophe
    expect(
      none([
        [60, 85, 9, 9],
        [80, 85, 9, 9],
      ]),
    ).toEqual([]); // two letters of something before the line
  });
});

describe("table areas Tesseract's segmentation lost", () => {
  const line = (y: number, text: string) => ({
    bbox: { x0: 0, y0: y, x1: 0, y1: y + 24 },
    words: text.split(" ").map((t) => ({ text: t })),
  });
  const block = (blocktype: number, x0: number, x1: number, lines: [number, string][]): SegmentedBlock => ({
    blocktype,
    bbox: { x0, y0: lines[0]![0], x1, y1: lines.at(-1)![0] + 24 },
    paragraphs: [{ lines: lines.map(([y, t]) => line(y, t)) }],
  });
  const names = block(1, 150, 420, [
    [400, "Aeromexico*"],
    [450, "Air Canada"],
    [500, "Air France"],
  ]);
  // Read as vertical text, a column of digits is one tall "line" (x 713-730, y 400-777 on a page of the eval's).
  const digits = block(7, 713, 730, [[400, "= NO OO Fr"]]);
  digits.bbox.y1 = 524;
  digits.paragraphs[0]!.lines[0]!.bbox.y1 = 524;
  const prose = block(1, 800, 1500, [
    [400, "The brothers Asa and Nelson Tift received the contract to convert"],
    [450, "the blockade runner into an ironclad in early 1862 with the name"],
    [500, "of Atlanta, after the city in Georgia, and set her to work."],
  ]);

  it("starts at a block read as vertical text and takes in the short-lined blocks beside it, not prose", () => {
    const areas = tableAreas([names, digits, prose], ["eng"]);
    expect(areas).toHaveLength(1);
    const [area] = areas;
    expect(area!.x0).toBeLessThan(150);
    expect(area!.x1).toBeGreaterThan(730);
    expect(area!.x1).toBeLessThan(800);
    expect(area!.y0).toBeLessThan(400);
    expect(area!.y1).toBeGreaterThan(524);
  });

  it("finds none without vertical text, nor in languages that are written vertically", () => {
    expect(tableAreas([names, prose], ["eng"])).toEqual([]);
    expect(tableAreas([names, digits, prose], ["jpn"])).toEqual([]);
  });
});

describe("word runs at a drawn rule", () => {
  const word = (text: string, x0: number, x1: number) =>
    ({ text, bbox: { x0, y0: 0, x1, y1: 30 }, confidence: 95, symbols: [] }) as unknown as Word;
  it("parts two words a rule runs between however close, and drops a border glyph on a rule", () => {
    const words = [word("45", 100, 130), word("|", 140, 146), word("https://example.org", 150, 400)];
    expect(wordRuns(words, 30).map((r) => r.text)).toEqual(["45 | https://example.org"]);
    expect(wordRuns(words, 30, undefined, [143]).map((r) => r.text)).toEqual(["45", "https://example.org"]);
    const close = [word("5/25/17", 100, 180), word("5/30/17", 192, 270)];
    expect(wordRuns(close, 30, undefined, [186]).map((r) => r.text)).toEqual(["5/25/17", "5/30/17"]);
  });
});

describe("a scanned page's structure", () => {
  let text: string;
  beforeAll(async () => {
    // Printed with the standard fonts, rendered at 200 dpi by the service's PDF worker, and put back as an image.
    const doc = await PDFDocument.create();
    const regular = await doc.embedFont(StandardFonts.Helvetica);
    const bold = await doc.embedFont(StandardFonts.HelveticaBold);
    const page = doc.addPage([595, 842]);
    const size = 11;
    let y = 770;
    const say = (words: string, x = 60, font = regular) => page.drawText(words, { x, y, size, font });
    const body = [
      "The harbour office keeps a record of every vessel that calls at the port during the season,",
      "with its berth, its cargo and the time it spent alongside the quay before it sailed again.",
    ];
    for (const l of body) {
      say(l);
      y -= 15;
    }
    y -= 12;
    say("Berth allocation", 60, bold);
    y -= 15;
    for (const l of body) {
      say(l);
      y -= 15;
    }
    y -= 10;
    for (const item of ["Confirm the berth and tide window", "Inspect the mooring lines for wear"]) {
      page.drawCircle({ x: 66, y: y + 3.5, size: 2, color: rgb(0, 0, 0) });
      say(item, 76);
      y -= 16;
    }
    y -= 20;
    // A ruled table: level rules above, under the header and below; cells set close to their borders.
    const columns = [60, 150, 188, 235];
    const rule = (at: number) =>
      page.drawLine({ start: { x: 56, y: at }, end: { x: 285, y: at }, thickness: 0.8, color: rgb(0, 0, 0) });
    const upright = (x: number, top: number, bottom: number) =>
      page.drawLine({ start: { x, y: top }, end: { x, y: bottom }, thickness: 0.8, color: rgb(0, 0, 0) });
    const rows = [
      ["Vessel", "Berth", "Arrived", "Sailed"],
      ["Northern Star", "4", "5/25/17", "5/30/17"],
      ["Harbour Queen", "12", "6/01/17", "6/04/17"],
      ["Atlantic Way", "7", "6/02/17", "6/09/17"],
    ];
    const top = y + 14;
    rule(top);
    for (const [r, row] of rows.entries()) {
      row.forEach((cell, c) => say(cell, columns[c], r === 0 ? bold : regular));
      y -= 18;
      rule(y + 14);
    }
    for (const x of [56, 145.5, 184, 230.5, 285]) upright(x, top, y + 14);
    const printed = await doc.save();
    const scan = await pdfOfPages(printed, [{ page: 1, as: "scan" }]);
    text = (await extract(scan, {}, LIMITS)).text;
  });

  it("reads a bold line at body size followed by body text as a heading", () => {
    expect(text).toMatch(/^#+ Berth allocation$/m);
  });

  it("reads lines after drawn discs as list items", () => {
    expect(text).toMatch(/^- Confirm the berth and tide window$/m);
    expect(text).toMatch(/^- Inspect the mooring lines for wear$/m);
  });

  it("reads a ruled table's cells apart at its drawn borders", () => {
    const rows = text.split("\n").filter((l) => l.startsWith("|") && !/^\|[\s|:-]+\|$/.test(l));
    const cells = rows.map((l) =>
      l
        .slice(1, -1)
        .split("|")
        .map((c) => c.trim()),
    );
    expect(cells).toEqual([
      ["Vessel", "Berth", "Arrived", "Sailed"],
      ["Northern Star", "4", "5/25/17", "5/30/17"],
      ["Harbour Queen", "12", "6/01/17", "6/04/17"],
      ["Atlantic Way", "7", "6/02/17", "6/09/17"],
    ]);
  });
});
