import { readFileSync } from "node:fs";
import { chunkExtracted } from "@/lib/pipeline/chunk-result";
import path from "node:path";
import { crc32, deflateSync } from "node:zlib";
import {
  PDFDocument,
  StandardFonts,
  concatTransformationMatrix,
  degrees,
  drawObject,
  popGraphicsState,
  pushGraphicsState,
} from "pdf-lib";
import sharp from "sharp";
import { z } from "zod";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { ConfigError, loadConfig } from "@/lib/ground/config";
import type { MethodContext } from "@/lib/pipeline/chunk-result";
import { ApiError } from "@/lib/ground/errors";
import { extract, type Extracted } from "@/lib/extract";
import { failures } from "@/lib/extract/failures";
import { type SplittableItem, splitAtColumns } from "@/lib/extract/ocr/column-splits";
import { type PlacedItem, scanOrder } from "@/lib/extract/ocr/scan-order";
import { layoutPages } from "@/lib/extract/pdf-layout";
import { SCAN_BLUR_SIGMA } from "@/lib/extract/ocr/settings";
import { stepsHere } from "@/lib/extract/steps-here";
import { withWorker } from "@/lib/extract/worker";
import { words } from "@/eval/ocr-accuracy";
import { COLUMNS, LEDGER_ROWS } from "./helpers/scan-fixture-pages";
import { LIMITS, pdfOfPages, renderPages } from "./helpers/scans";

/**
 * Scans and images read by OCR (tesseract.js, English from
 * @tesseract.js-data/eng). Every image here is made at test time from
 * tests/fixtures/structured.pdf (helpers/scans.ts), so the words a page
 * should give back are known: its text layer's.
 */

const fixture = (name: string) => new Uint8Array(readFileSync(path.join(process.cwd(), "tests/fixtures", name)));
const STRUCTURED = fixture("structured.pdf");

/** The share of `expected`'s words found in `actual`, each occurrence counted once. */
function wordRecall(expected: string, actual: string): number {
  const left = new Map<string, number>();
  for (const w of words(actual)) left.set(w, (left.get(w) ?? 0) + 1);
  const wanted = words(expected);
  let found = 0;
  for (const w of wanted) {
    const n = left.get(w) ?? 0;
    if (n > 0) {
      found++;
      left.set(w, n - 1);
    }
  }
  return found / wanted.length;
}

const pageText = (doc: Extracted, page: number) => {
  const range = doc.pages![page - 1]!;
  return doc.text.slice(range.start, range.end);
};

async function refusal(promise: Promise<unknown>, status: number, code: string): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "expected extraction to fail").toBeInstanceOf(ApiError);
  expect({ status: (error as ApiError).status, code: (error as ApiError).code }).toEqual({ status, code });
  return error as ApiError;
}

let textLayer: Extracted;
let page1: Uint8Array;
let page2: Uint8Array;

beforeAll(async () => {
  textLayer = await extract(STRUCTURED, {}, LIMITS);
  const pages = await renderPages(STRUCTURED, [1, 2], 200);
  [page1, page2] = [pages[0]!, pages[1]!];
});

describe("images", () => {
  it(
    "reads a PNG of a page by OCR, with its headings and lists laid out as Markdown",
    { timeout: 180_000 },
    async () => {
      const doc = await extract(page1, { filename: "scan.png" }, LIMITS);
      expect(doc).toMatchObject({ kind: "image", mediaType: "image/png", pageCount: 1, ocrPages: [1] });
      expect(wordRecall(pageText(textLayer, 1), doc.text)).toBeGreaterThan(0.9);
      // Headings come from the OCR'd lines' heights, as a text page's come from its font sizes; list items from
      // their markers (a bullet Tesseract reads as "«" or "+" is told by the gap after it) and hanging indents.
      expect(doc.text).toMatch(/^# Coastal Survey Handbook$/m);
      expect(doc.text).toMatch(/^## 1 Equipment$/m);
      expect(doc.text).toMatch(/^- Binoculars and a spotting scope with its tripod$/m);
      expect(doc.text).toMatch(/^- A waterproof notebook .* even when it gets soaked$/m);
      expect(doc.text).toMatch(/^ {2}- printed on paper, not kept on a phone$/m);
      expect(doc.text).toMatch(/^1\. Check the weather forecast/m);
    },
  );

  // OCR of several pages: minutes on a busy two-core machine, not the default 30 s.
  it("reads JPEG and WebP, and every page of a TIFF", { timeout: 180_000 }, async () => {
    const jpeg = await sharp(page1).jpeg({ quality: 85 }).toBuffer();
    const webp = await sharp(page1).webp({ quality: 85 }).toBuffer();
    const tiff = await sharp([Buffer.from(page1), Buffer.from(page2)], { join: { animated: true } })
      .tiff({ compression: "lzw" })
      .toBuffer();
    for (const [bytes, mediaType] of [
      [jpeg, "image/jpeg"],
      [webp, "image/webp"],
    ] as const) {
      const doc = await extract(new Uint8Array(bytes), {}, LIMITS);
      expect(doc).toMatchObject({ kind: "image", mediaType, pageCount: 1, ocrPages: [1] });
      expect(wordRecall(pageText(textLayer, 1), doc.text)).toBeGreaterThan(0.9);
    }
    const doc = await extract(new Uint8Array(tiff), {}, LIMITS);
    expect(doc).toMatchObject({ kind: "image", mediaType: "image/tiff", pageCount: 2, ocrPages: [1, 2] });
    expect(wordRecall(pageText(textLayer, 1), pageText(doc, 1))).toBeGreaterThan(0.9);
    expect(wordRecall(pageText(textLayer, 2), pageText(doc, 2))).toBeGreaterThan(0.9);
  });

  it("refuses a decompression bomb (30000 × 30000 pixels in ~110 KB) with 413 before decoding it", async () => {
    const side = 30_000;
    // One bit a pixel, every row filter byte 0 and white: 112 MB of rows deflated.
    const rows = Buffer.alloc(side * (1 + side / 8), 0);
    const header = Buffer.alloc(13);
    header.writeUInt32BE(side, 0);
    header.writeUInt32BE(side, 4);
    header.set([1, 0, 0, 0, 0], 8); // 1-bit greyscale
    const bomb = new Uint8Array(
      Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        pngChunk("IHDR", header),
        pngChunk("IDAT", deflateSync(rows, { level: 9 })),
        pngChunk("IEND", Buffer.alloc(0)),
      ]),
    );
    expect(bomb.length).toBeLessThan(200_000);
    const error = await refusal(extract(bomb, {}, LIMITS), 413, "image_too_large");
    expect(error.message).toContain("30000 × 30000");
  });

  it("refuses a truncated PNG or JPEG with 400 corrupted_image", async () => {
    const jpeg = new Uint8Array(await sharp(page1).jpeg().toBuffer());
    for (const whole of [page1, jpeg])
      await refusal(extract(whole.slice(0, Math.floor(whole.length / 2)), {}, LIMITS), 400, "corrupted_image");
  });

  it("answers 400 no_text, saying OCR found nothing, for an image without text", async () => {
    const blank = await sharp({ create: { width: 1700, height: 2200, channels: 3, background: "white" } })
      .png()
      .toBuffer();
    const error = await refusal(extract(new Uint8Array(blank), {}, LIMITS), 400, "no_text");
    expect(error.message).toContain("OCR found no text in this image");
    // Tesseract itself fails on an image a few pixels across; it is given none.
    for (const side of [1, 5]) {
      const tiny = await sharp({ create: { width: side, height: side, channels: 3, background: "black" } })
        .png()
        .toBuffer();
      await refusal(extract(new Uint8Array(tiny), {}, LIMITS), 400, "no_text");
    }
  });

  it("refuses more pages to OCR than one request reads with 413 ocr_too_many_pages, rendering none", async () => {
    // A 500-page scan: 500 pages without a text layer.
    const scan = await PDFDocument.create();
    for (let i = 0; i < 500; i++) scan.addPage([612, 792]);
    const error = await refusal(extract(await scan.save(), {}, LIMITS), 413, "ocr_too_many_pages");
    expect(error.message).toContain("500 pages");
    expect(error.message).toContain("at most 10");
  });
});

describe("a PDF with a text page and a scanned page", () => {
  let mixed: Extracted;
  let firstPageAlone: Extracted;

  beforeAll(async () => {
    firstPageAlone = await extract(await pdfOfPages(STRUCTURED, [{ page: 1, as: "text" }]), {}, LIMITS);
    const pages = [
      { page: 1, as: "text" },
      { page: 2, as: "scan" },
    ] as const;
    mixed = await extract(await pdfOfPages(STRUCTURED, [...pages]), {}, LIMITS);
  });

  it("OCRs only the page without a text layer and keeps the words of both", () => {
    expect(mixed).toMatchObject({ kind: "pdf", pageCount: 2, ocrPages: [2] });
    // Page 1 is read from its text layer alone, exactly as a PDF of that page alone is.
    expect(firstPageAlone.ocrPages).toBeUndefined();
    expect(pageText(mixed, 1)).toBe(firstPageAlone.text);
    expect(wordRecall(pageText(textLayer, 2), pageText(mixed, 2))).toBeGreaterThan(0.9);
  });

  it("gives chunks the page their text comes from, up to the scanned page", { timeout: 180_000 }, async () => {
    const context: MethodContext = {
      embedder: { id: "none", embed: () => Promise.reject(new Error("no embedding in this test")) },
    };
    const { chunks } = await chunkExtracted(mixed, "free", { maxTokens: 64, overlapTokens: 0 }, context);
    const secondPage = mixed.pages![1]!;
    expect(chunks.at(-1)?.metadata.page_end).toBe(2);
    for (const { metadata } of chunks) expect(metadata.page_start).toBe(metadata.start >= secondPage.start ? 2 : 1);
  });
});

describe("a scanned page's image", () => {
  const Image = z.object({
    ok: z.literal(true),
    image: z.instanceof(Uint8Array),
    width: z.number(),
    height: z.number(),
    dpi: z.number(),
  });
  type Image = z.infer<typeof Image>;

  /** What OCR gets of page 1 of `pdf` (the stored image, or the page rendered), and the page rendered at `dpi`. */
  async function both(pdf: Uint8Array, dpi: number): Promise<{ read: Image; rendered: Image }> {
    return withWorker({ timeoutMs: 60_000, damaged: failures.corruptedPdf }, async (worker) => {
      await worker.call({ op: "pdf-open", data: pdf }, z.object({ ok: z.literal(true) }));
      const ask = async (op: "pdf-page-image" | "pdf-render") => {
        const request = { page: 1, dpi, maxPixels: 16_000_000 };
        const reply = await worker.call(
          op === "pdf-render" ? { op, ...request } : { op, ...request, blur: SCAN_BLUR_SIGMA },
          Image,
        );
        if (!reply.ok) throw new Error(reply.message);
        return reply;
      };
      return { read: await ask("pdf-page-image"), rendered: await ask("pdf-render") };
    });
  }

  /** Of the dark pixels of `a`, the share dark in `b` too, `b` scaled to `a`'s size: the same page, the same way up. */
  async function darkAgreement(a: Image, b: Image): Promise<number> {
    const pixels = (image: Image) => image.image.subarray(image.image.length - image.width * image.height);
    const scaled = await sharp(pixels(b), { raw: { width: b.width, height: b.height, channels: 1 } })
      .resize(a.width, a.height, { fit: "fill" })
      .toColourspace("b-w")
      .raw()
      .toBuffer();
    const mine = pixels(a);
    let dark = 0;
    let both = 0;
    for (let i = 0; i < mine.length; i++) {
      if (mine[i]! >= 128) continue;
      dark++;
      if (scaled[i]! < 128) both++;
    }
    return both / dark;
  }

  it("is read as stored when the page is that image alone, 8-bit or 1-bit, instead of rendering the page", async () => {
    const { data, info } = await sharp(page1).greyscale().raw().toBuffer({ resolveWithObject: true });
    // 1 bit a pixel, rows padded to bytes, a set bit white (DeviceGray): a fax-style scan.
    const rowBytes = (info.width + 7) >> 3;
    const bits = new Uint8Array(rowBytes * info.height);
    for (let y = 0; y < info.height; y++)
      for (let x = 0; x < info.width; x++)
        if (data[y * info.width + x]! >= 128) bits[y * rowBytes + (x >> 3)]! |= 0x80 >> (x & 7);
    const oneBit = await PDFDocument.create();
    const page = oneBit.addPage([595, 842]);
    const stream = oneBit.context.flateStream(bits, {
      Type: "XObject",
      Subtype: "Image",
      Width: info.width,
      Height: info.height,
      ColorSpace: "DeviceGray",
      BitsPerComponent: 1,
    });
    const name = page.node.newXObject("Scan", oneBit.context.register(stream));
    page.pushOperators(
      pushGraphicsState(),
      concatTransformationMatrix(595, 0, 0, 842, 0, 0),
      drawObject(name),
      popGraphicsState(),
    );
    const eightBit = await PDFDocument.create();
    eightBit.addPage([595, 842]).drawImage(await eightBit.embedPng(page1), { x: 0, y: 0, width: 595, height: 842 });

    for (const pdf of [oneBit, eightBit]) {
      const { read, rendered } = await both(await pdf.save(), 200);
      // The image's own pixels at its own resolution: page1 was rendered at 200 ppi.
      expect({ width: read.width, height: read.height }).toEqual({ width: info.width, height: info.height });
      expect(read.dpi).toBeCloseTo((info.width / 595) * 72, 5);
      // Rendering blurs a 1-bit page's edges; a page upside down or inverted would agree on a few per cent.
      expect(await darkAgreement(read, rendered)).toBeGreaterThan(0.8);
    }
  });

  it("is rendered when the page shows more than one full-page image, or turns it", async () => {
    const inset = await PDFDocument.create();
    inset.addPage([595, 842]).drawImage(await inset.embedPng(page1), { x: 50, y: 50, width: 495, height: 742 });
    const turned = await PDFDocument.create();
    const page = turned.addPage([595, 842]);
    page.drawImage(await turned.embedPng(page1), { x: 0, y: 0, width: 595, height: 842 });
    page.setRotation(degrees(90));
    for (const pdf of [inset, turned]) {
      const { read, rendered } = await both(await pdf.save(), 100);
      // Rendered at the asked 100 ppi, as the page shows: not the 200-ppi image as stored.
      expect({ width: read.width, height: read.height, dpi: read.dpi }).toEqual({
        width: rendered.width,
        height: rendered.height,
        dpi: rendered.dpi,
      });
    }
  });
});

describe("languages", () => {
  it("reads English by default and takes OCR_LANGUAGES among the installed @tesseract.js-data packages", () => {
    expect(loadConfig({}).ocr).toEqual({ languages: ["eng"], syncMaxPages: 10, jobMaxPages: 300 });
    expect(loadConfig({ OCR_LANGUAGES: "deu+eng+deu" }).ocr.languages).toEqual(["deu", "eng"]);
    expect(() => loadConfig({ OCR_LANGUAGES: "eng+fra" })).toThrow(
      new ConfigError("OCR_LANGUAGES names fra, which is not installed: npm install @tesseract.js-data/fra"),
    );
    expect(() => loadConfig({ OCR_LANGUAGES: "english" })).toThrow(/"english" is not a Tesseract language code/);
    expect(() => loadConfig({ OCR_LANGUAGES: "../eng" })).toThrow(/not a Tesseract language code/);
  });

  it("in a build, takes only the languages the build shipped (a function without OCR has none installed)", () => {
    // What next.config.ts inlines into a build made with OCR_LANGUAGES unset.
    vi.stubEnv("CHUNKWISE_BUILT_OCR_LANGUAGES", "eng");
    try {
      expect(loadConfig({}).ocr.languages).toEqual(["eng"]);
      // German is installed here, but this build did not ship it.
      expect(() => loadConfig({ OCR_LANGUAGES: "eng+deu" })).toThrow(
        new ConfigError(
          "OCR_LANGUAGES names deu, which this build did not ship (it has eng): build again with OCR_LANGUAGES set as it is at run time.",
        ),
      );
      vi.stubEnv("CHUNKWISE_BUILT_OCR_LANGUAGES", "eng+xyz");
      // Shipped by the build: accepted though not installed in this checkout's node_modules.
      expect(loadConfig({ OCR_LANGUAGES: "xyz" }).ocr.languages).toEqual(["xyz"]);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it(
    "reads German's letters with German installed (a devDependency here) and named",
    { timeout: 180_000 },
    async () => {
      const pdf = await PDFDocument.create();
      const font = await pdf.embedFont(StandardFonts.Helvetica);
      const lines = [
        "Die Größe der Straße wurde im Frühjahr gemessen.",
        "Übermäßige Überschwemmungen führten zu Schäden.",
        "Die Bürger äußerten ihre Zufriedenheit.",
      ];
      const page = pdf.addPage([595, 842]);
      lines.forEach((line, i) => page.drawText(line, { x: 72, y: 760 - 24 * i, size: 14, font }));
      const [image] = await renderPages(await pdf.save(), [1], 200);
      const german = await extract(image!, {}, LIMITS, stepsHere(["deu", "eng"]));
      expect(wordRecall(lines.join(" "), german.text)).toBeGreaterThan(0.9);
      // English alone has no ß and reads fewer of these words.
      const english = await extract(image!, {}, LIMITS, stepsHere(["eng"]));
      expect(wordRecall(lines.join(" "), english.text)).toBeLessThan(wordRecall(lines.join(" "), german.text));
    },
  );
});

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** The Markdown tables in `text`, pipe or HTML, each as rows of cell texts (a pipe table's delimiter row left out). */
function markdownTables(text: string): string[][][] {
  const tables: string[][][] = [];
  let pipe: string[][] | undefined;
  for (const line of text.split("\n")) {
    if (!line.startsWith("|")) {
      pipe = undefined;
      continue;
    }
    const cells = line
      .slice(1, -1)
      .split(" | ")
      .map((c) => c.trim());
    if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
    if (!pipe) tables.push((pipe = []));
    pipe.push(cells);
  }
  for (const [html] of text.matchAll(/<table>[\s\S]*?<\/table>/g))
    tables.push(
      [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, row]) =>
        [...row!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map(([, cell]) => cell!.trim()),
      ),
    );
  return tables;
}

/** How many of `expected`'s rows' cells `table` has in the same row and column, exactly. */
function cellsRight(table: string[][], expected: string[][]): number {
  return expected.reduce((n, row, r) => n + row.filter((cell, c) => table[r]?.[c] === cell).length, 0);
}

describe("tables on scanned pages", () => {
  const context: MethodContext = {
    embedder: { id: "none", embed: () => Promise.reject(new Error("no embedding in this test")) },
  };
  /** The structure tier's chunks of a fixture image, joined. */
  async function structureChunks(name: string): Promise<string> {
    const doc = await extract(fixture(name), {}, LIMITS);
    const { chunks } = await chunkExtracted(doc, "structure", { maxTokens: 2000, overlapTokens: 0 }, context);
    return chunks.map((c) => c.text).join("\n\n");
  }
  let tables: string;
  beforeAll(async () => {
    tables = await structureChunks("scan-tables.png");
  });

  it("reads a ruled table, its borders read as | dropped, and an unruled one as Markdown tables", () => {
    const found = markdownTables(tables);
    const ruled = [
      ["Quay", "2024", "2025", "Change"],
      ["North", "41.2", "44.9", "+9.0%"],
      ["East", "75.0", "88.3", "+17.7%"],
      ["South", "63.5", "60.1", "-5.4%"],
      ["West", "28.7", "31.6", "+10.1%"],
    ];
    const plain = [
      ["Operator", "Vessels", "Crew"],
      ["Kestrel Lines", "14", "320"],
      ["Blue Heron Shipping", "9", "187"],
      ["Marlow Coastal", "22", "405"],
      ["Tern Ferries", "6", "98"],
    ];
    for (const expected of [ruled, plain]) {
      const table = found.find((t) => t[0]?.[0] === expected[0]![0]);
      expect(table, `a table headed ${expected[0]![0]}`).toBeDefined();
      expect(table!.map((row) => row.length)).toEqual(expected.map((row) => row.length));
      // OCR may misread a character or two; the cells are in their rows and columns.
      expect(cellsRight(table!, expected)).toBeGreaterThanOrEqual(expected.flat().length - 2);
    }
    expect(tables).not.toMatch(/\|\s*\|\s*\+17\.7%/);
  });

  it("reads a header with a cell over two columns and cells over two rows in reading order, its body in columns", () => {
    const table = markdownTables(tables).find((t) => t.flat().includes("Crane hours"));
    expect(table).toBeDefined();
    // The header's cells read row by row, left to right: not "Containers Berth Crane hours".
    expect(table!.flat().filter((c) => c !== "")).toEqual(
      expect.arrayContaining(["Berth", "Containers", "Crane hours", "Loaded", "Unloaded"]),
    );
    const header = table!
      .flat()
      .filter((c) => ["Berth", "Containers", "Crane hours", "Loaded", "Unloaded"].includes(c));
    expect(header).toEqual(["Berth", "Containers", "Crane hours", "Loaded", "Unloaded"]);
    const body = table!.filter((row) => /^Berth \d$/.test(row[0]!));
    expect(body).toEqual([
      ["Berth 1", "212", "198", "16"],
      ["Berth 2", "174", "230", "19"],
    ]);
  });

  it("writes a table Tesseract reads as column blocks row by row", { timeout: 180_000 }, async () => {
    const table = markdownTables(await structureChunks("scan-ledger.png"))[0];
    expect(table).toBeDefined();
    const expected = [["Operator", "Tonne km", "Calls", "Delays"], ...LEDGER_ROWS];
    expect(table!.map((row) => row.length)).toEqual(expected.map(() => 4));
    expect(cellsRight(table!, expected)).toBeGreaterThanOrEqual(expected.flat().length - 3);
  });

  it("restores drawn square bullets and a typed • between words", () => {
    expect(tables).toMatch(/^- Confirm the berth and tide window$/m);
    expect(tables).toMatch(/^- Inspect the mooring lines for wear$/m);
    expect(tables).toContain("Stores • fuel • water are logged at the gate.");
  });

  it("keeps two page columns of prose in reading order, read as no table", { timeout: 180_000 }, async () => {
    const text = await structureChunks("scan-columns.png");
    expect(markdownTables(text)).toEqual([]);
    const paragraphs = [...COLUMNS.matchAll(/<p>([\s\S]*?)<\/p>/g)].map(([, p]) => p!.replace(/\s+/g, " ").trim());
    expect(wordRecall(paragraphs.join(" "), text)).toBeGreaterThan(0.95);
    // Each paragraph one Markdown paragraph, down the left column and then the right.
    const starts = paragraphs.map((p) => text.indexOf(p.split(" ").slice(0, 4).join(" ")));
    expect(starts.every((s) => s >= 0)).toBe(true);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
  });
});

describe("scan order", () => {
  /** An item of 10-pt text at (x, y), a word about 5 pt a character wide. */
  const at = (text: string, x: number, y: number): PlacedItem => ({ text, x, y, size: 10, width: 5 * text.length });
  const texts = (items: PlacedItem[]) => scanOrder(items).order.map((i) => items[i]!.text);

  it("writes a table read as column blocks row by row, after what comes before it and before what follows", () => {
    const items = [
      at("Prices", 50, 700),
      ...["Fruit", "Apples", "Pears"].map((t, r) => at(t, 50, 680 - 18 * r)),
      ...["Price", "1.20", "0.95"].map((t, r) => at(t, 150, 680 - 18 * r)),
      ...["Stock", "40", "12"].map((t, r) => at(t, 250, 680 - 18 * r)),
      at("Prices are per kilogram and change every week of the season.", 50, 600),
    ];
    expect(texts(items)).toEqual([
      "Prices",
      ...["Fruit", "Price", "Stock", "Apples", "1.20", "40", "Pears", "0.95", "12"],
      "Prices are per kilogram and change every week of the season.",
    ]);
    // On a page turned by a degree and a half, its rows are found by their lines' heights at the page's edge.
    const slope = Math.tan((1.5 * Math.PI) / 180);
    const skewed = items.map((item) => ({ ...item, y: item.y - slope * item.x, level: item.y }));
    expect(texts(skewed)).toEqual(texts(items));
    // And each row's cells given one baseline, as table recovery wants them.
    const { baselines } = scanOrder(skewed);
    expect(baselines.get(4)).toBe(baselines.get(1));
    expect(baselines.get(7)).toBe(baselines.get(1));
    expect(baselines.get(5)! - baselines.get(2)!).toBeCloseTo(0, 6);
    expect(baselines.get(1)! - baselines.get(2)!).toBeCloseTo(18, 6);
    expect(baselines.has(0)).toBe(false);
  });

  it("keeps two page columns of prose in Tesseract's order", () => {
    const left = ["Moorings in a tidal harbour", "must allow for the rise and", "fall of the water twice a day."];
    const right = ["Fenders are set at the height", "of the rubbing strake when", "the vessel lies alongside at"];
    const items = [...left.map((t, r) => at(t, 50, 700 - 14 * r)), ...right.map((t, r) => at(t, 320, 700 - 14 * r))];
    expect(texts(items)).toEqual([...left, ...right]);
  });

  it("writes a cell's wrapped line right after its first line", () => {
    const items = [
      ...[at("Item", 50, 700), at("Notes", 150, 700), at("Qty", 300, 700)],
      ...[at("Rope", 50, 680), at("checked at", 150, 680), at("4", 300, 680)],
      at("each tide", 150, 668),
      ...[at("Chain", 50, 648), at("spare", 150, 648), at("2", 300, 648)],
    ];
    expect(texts(items)).toEqual([
      "Item",
      "Notes",
      "Qty",
      "Rope",
      "checked at",
      "each tide",
      "4",
      "Chain",
      "spare",
      "2",
    ]);
    // Rows a line apart, under a header of one more cell, are rows: no wrapped lines where every row lies so close.
    const tight = [
      ...[at("Operator", 50, 700), at("Tonne km", 150, 700), at("Calls", 250, 700)],
      ...["Kestrel", "Heron", "Marlow"].flatMap((t, r) => [
        at(t, 50, 685 - 15 * r),
        at(`${r + 1}00`, 150, 685 - 15 * r),
      ]),
    ];
    expect(texts(tight)).toEqual(["Operator", "Tonne km", "Calls", "Kestrel", "100", "Heron", "200", "Marlow", "300"]);
  });

  it("writes wrapped lines after their cells when every row wraps, its rows a little further apart than its lines", () => {
    // Each row's date wraps: half the baselines are wrapped lines, 14 pt under their row; rows start 30 pt apart.
    const rows = [
      ["2017-", "08-20", "0", "18"],
      ["2017-", "08-21", "1", "41"],
      ["2017-", "08-22", "0", "30"],
      ["2017-", "08-23", "1", "39"],
    ];
    const items = [
      ...[at("Date", 50, 720), at("Puerto Rico", 150, 720), at("Florida", 250, 720)],
      ...rows.flatMap(([first, wrap, a, b], r) => [
        at(first!, 50, 700 - 30 * r),
        at(a!, 150, 700 - 30 * r),
        at(b!, 250, 700 - 30 * r),
        at(wrap!, 50, 686 - 30 * r),
      ]),
    ];
    expect(texts(items)).toEqual([
      "Date",
      "Puerto Rico",
      "Florida",
      ...rows.flatMap(([first, wrap, a, b]) => [first, wrap, a, b]),
    ]);
    // Rows set evenly, a line apart, some with an empty cell, stay rows.
    const even = [
      ...[at("Port", 50, 720), at("Calls", 150, 720), at("Berths", 250, 720)],
      ...[at("Leith", 50, 706), at("12", 150, 706), at("4", 250, 706)],
      at("Rosyth", 50, 692),
      ...[at("Methil", 50, 678), at("3", 150, 678), at("1", 250, 678)],
      at("Kirkcaldy", 50, 664),
      ...[at("Granton", 50, 650), at("7", 150, 650), at("2", 250, 650)],
    ];
    expect(texts(even)).toEqual(even.map((item) => item.text));
  });
});

describe("columns set closer than a cell's gap on a scanned page", () => {
  /** A run of 10-pt words from x, each word 5 pt a character wide, the given gaps (pt) between them. */
  const run = (y: number, x: number, words: string[], gaps: number[] = []): SplittableItem => {
    const parts: { text: string; x: number; width: number }[] = [];
    let left = x;
    words.forEach((text, k) => {
      parts.push({ text, x: left, width: 5 * text.length });
      left += 5 * text.length + (gaps[k] ?? 3);
    });
    const last = parts.at(-1)!;
    return { text: words.join(" "), x, y, size: 10, width: last.x + last.width - x, parts };
  };
  /** Items as OCR hands them to layout recovery, in the order scan order gives. */
  const markdown = (items: SplittableItem[]) => {
    const { order, baselines } = scanOrder(items);
    const placed = order.map((i) => ({ ...items[i]!, y: baselines.get(i) ?? items[i]!.y }));
    const [page] = layoutPages([
      {
        box: [0, 0, 600, 800],
        items: placed.map((item) => ({ ...item, font: "ocr", upright: true, confidence: 90 })),
        monospaceFonts: [],
      },
    ]);
    return page!.text;
  };

  it("parts a narrow first column from the next where the rows' words line up under a header of its own", () => {
    // A row number 7 pt (0.7 em) from the name: one run, as Tesseract's words are cut into cells at an em.
    const names = ["Michael", "James", "John", "Robert"];
    const table = [
      run(700, 70, ["FirstName"]),
      run(700, 200, ["SMITH"]),
      ...names.flatMap((name, r) => [
        run(682 - 16 * r, 50, [String(70 - 9 * r), name], [7]),
        run(682 - 16 * r, 200, [String(3000 + r)]),
      ]),
    ];
    const split = splitAtColumns(table);
    expect(split.map((item) => item.text)).toEqual([
      "FirstName",
      "SMITH",
      ...names.flatMap((name, r) => [String(70 - 9 * r), name, String(3000 + r)]),
    ]);
    expect(markdown(split)).toContain("| 70 | Michael | 3000 |");
  });

  it("keeps cells whose words line up but whose column has no cell of its own, and prose", () => {
    // "New York", "New Haven": the second words start at one x, but nothing else does: one column.
    const cities = [run(700, 50, ["City"]), run(700, 200, ["Calls"])];
    for (const [r, second] of ["York", "Haven", "Bedford"].entries()) {
      cities.push(run(684 - 16 * r, 50, ["New", second]), run(684 - 16 * r, 200, [String(r + 1)]));
    }
    expect(splitAtColumns(cities)).toEqual(cities);
    const prose = ["The harbour master sets the", "order of the day for all of", "the vessels and their crews"].map(
      (line, r) => run(700 - 14 * r, 50, line.split(" ")),
    );
    expect(splitAtColumns(prose)).toEqual(prose);
  });
});
