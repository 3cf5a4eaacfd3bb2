/**
 * Hostile documents that cost the parsers seconds to minutes, or that the
 * zip-bomb check and mammoth would read differently, refused before the
 * expensive readers see them (issue 26, reproduction 7).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { strToU8, unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";
import { extract, type ExtractLimits } from "@/lib/extract";
import { htmlOverBudget, MarkupMeter } from "@/lib/extract/markup-budget";
import { inspectZip, type ZipBudget } from "@/lib/extract/zip";
import { createServices, setServices } from "@/lib/services";
import { RedisStore } from "@/lib/store";
import { call, upload } from "./helpers/api";
import { type RedisServer, startRedisServer } from "./helpers/redis-server";
import { centralRecord, concat, endRecord, localRecord, pack, type RawEntry, writeZip } from "./helpers/zip-writer";

const DEFAULTS = loadConfig({}).limits;
const LIMITS: ExtractLimits = {
  maxUnpackedBytes: 20 * 1024 * 1024,
  markup: DEFAULTS.markup,
  maxChars: 10_000_000,
  maxPages: 10_000,
  maxOcrPages: 10,
  timeoutMs: 120_000,
};

const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dirname, "fixtures", name)));
const utf8 = (s: string) => new TextEncoder().encode(s);
const page = (body: string) => `<!DOCTYPE html><html><head><title>t</title></head><body>${body}</body></html>`;
const deepDivs = (n: number) => page(`${"<div>".repeat(n)}deep${"</div>".repeat(n)}`);
const deepLists = (n: number) => page(`<ul>${"<li>item<ul>".repeat(n)}<li>deep</li>${"</ul></li>".repeat(n)}</ul>`);

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "expected a refusal").toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** Prints how long a hostile input took to refuse: measured for the report, never asserted. */
async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await work();
  } finally {
    console.log(`[parser-budgets] ${label}: ${(performance.now() - start).toFixed(0)} ms`);
  }
}

describe("HTML nesting and element budget", () => {
  it("measures real structure: implied end tags keep a flat list flat, and parts are counted separately", () => {
    const budget = { maxDepth: 5, maxElements: 1000 };
    const flat = new MarkupMeter(budget, "html");
    // 200 <li> without end tags are siblings, not 200 levels: the converter's parser reads them so too.
    expect(flat.write(`<ul>${"<li>x".repeat(200)}</ul>`)).toBeUndefined();
    expect(flat.endPart()).toBeUndefined();

    const deep = new MarkupMeter(budget, "html");
    expect(deep.write("<div>".repeat(6))).toEqual({ limit: "depth", found: 6, max: 5 });

    const many = new MarkupMeter({ maxDepth: 100, maxElements: 10 }, "xml");
    expect(many.write("<a/>".repeat(6))).toBeUndefined();
    expect(many.endPart()).toBeUndefined();
    // The count runs on across parts; the depth starts again with each.
    expect(many.write("<b><c/></b>".repeat(3))).toEqual({ limit: "elements", found: 11, max: 10 });
  });

  it("keeps real pages within the default budget", async () => {
    for (const name of ["page.html", "layout.html"]) {
      const html = new TextDecoder().decode(fixture(name));
      expect(await htmlOverBudget(html, DEFAULTS.markup)).toBeUndefined();
    }
    // A deep but plausible page: 60 levels of layout wrappers, a table, a nested list.
    const plausible = page(
      `${"<div>".repeat(60)}<table><tr><td><ul><li>a<ul><li>b</li></ul></li></ul></td></tr></table>${"</div>".repeat(60)}`,
    );
    const result = await extract(utf8(plausible), { filename: "p.html" }, LIMITS);
    expect(result.text).toContain("b");
  });

  it("refuses 10,000 nested divs with 400 document_too_complex", async () => {
    const error = await timed("10,000 nested <div> (110 KB)", () =>
      refusal(extract(utf8(deepDivs(10_000)), { filename: "deep.html" }, LIMITS)),
    );
    expect({ status: error.status, code: error.code }).toEqual({ status: 400, code: "document_too_complex" });
    expect(error.message).toContain(`${DEFAULTS.markup.maxDepth}`);
  });

  it("refuses 50,000 nested lists with 400 document_too_complex, not a 500", async () => {
    const error = await timed("50,000 nested <ul><li>", () =>
      refusal(extract(utf8(deepLists(50_000)), { filename: "lists.html" }, LIMITS)),
    );
    expect({ status: error.status, code: error.code }).toEqual({ status: 400, code: "document_too_complex" });
  });

  it("refuses a page of more elements than allowed", async () => {
    const html = page("<p>x</p>".repeat(2000));
    const error = await refusal(
      extract(utf8(html), { filename: "many.html" }, { ...LIMITS, markup: { maxDepth: 256, maxElements: 1000 } }),
    );
    expect({ status: error.status, code: error.code }).toEqual({ status: 400, code: "document_too_complex" });
    expect(error.message).toContain("1,000 elements");
  });
});

/** A minimal DOCX (the parts mammoth needs), with `document` as word/document.xml. */
function docxParts(document: string): RawEntry[] {
  const report = unzipSync(fixture("report.docx"));
  return Object.entries(report).map(([name, data]) => ({
    name,
    data: name === "word/document.xml" ? strToU8(document) : data,
  }));
}

const WORD_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const paragraph = (text: string) => `<w:p><w:r><w:t>${text}</w:t></w:r></w:p>`;
const wordDocument = (body: string) =>
  `<?xml version="1.0"?><w:document ${WORD_NS}><w:body>${body}</w:body></w:document>`;

describe("ZIP archives read one way only", () => {
  const budget: ZipBudget = {
    maxEntries: 100,
    maxUnpackedBytes: 1024 * 1024,
    maxMarkupDepth: 64,
    isMarkup: (name) => name.endsWith(".xml"),
  };

  it("still reads the DOCX fixtures, and an archive the writer here makes honestly", async () => {
    for (const name of ["report.docx", "tables.docx"]) {
      const verdict = await inspectZip(fixture(name), { ...budget, maxUnpackedBytes: 20 * 1024 * 1024 });
      expect(verdict.ok, name).toBe(true);
    }
    const honest = writeZip(docxParts(wordDocument(paragraph("Honest text"))));
    expect((await inspectZip(honest, budget)).ok).toBe(true);
    const result = await extract(honest, { filename: "honest.docx" }, LIMITS);
    expect(result.text).toContain("Honest text");
  });

  it("refuses a DOCX whose end record hides a duplicate word/document.xml: 400 corrupted_docx", async () => {
    // The case: the zip-bomb check read one entry fewer than the archive holds; JSZip (in mammoth)
    // reads every record and lets the last word/document.xml win. Here the hidden one is 30 MB of text.
    const bomb = wordDocument(paragraph("A".repeat(30 * 1024 * 1024)));
    const parts = [...docxParts(wordDocument(paragraph("Decoy"))), { name: "word/document.xml", data: strToU8(bomb) }];
    const hidden = writeZip(parts, { declaredCount: parts.length - 1 });
    const error = await timed("DOCX hiding a 30 MB duplicate word/document.xml", () =>
      refusal(extract(hidden, { filename: "hidden.docx" }, LIMITS)),
    );
    expect({ status: error.status, code: error.code }).toEqual({ status: 400, code: "corrupted_docx" });

    // Each rule on its own: the count, and the duplicate with an honest count.
    expect(await inspectZip(hidden, budget)).toMatchObject({ ok: false, reason: "damaged" });
    const duplicate = writeZip([
      ...docxParts(wordDocument(paragraph("a"))),
      { name: "word/document.xml", data: strToU8("<x/>") },
    ]);
    expect(await inspectZip(duplicate, budget)).toMatchObject({
      ok: false,
      reason: "damaged",
      detail: expect.stringContaining("twice"),
    });
    await expect(refusal(extract(duplicate, { filename: "dup.docx" }, LIMITS))).resolves.toMatchObject({
      code: "corrupted_docx",
    });
  });

  it("refuses an end record declaring more entries than the directory holds", async () => {
    const parts = docxParts(wordDocument(paragraph("a")));
    expect(await inspectZip(writeZip(parts, { declaredCount: parts.length + 1 }), budget)).toMatchObject({
      ok: false,
      reason: "damaged",
    });
  });

  it("refuses a local header that disagrees with its directory record", async () => {
    // A wrong compressed size in a local header makes file-type (which walks local headers) lose its way: 415.
    const cases: Array<[RawEntry["local"], string]> = [
      [{ name: "word/other.xml" }, "corrupted_docx"],
      [{ method: 0 }, "corrupted_docx"],
      [{ size: 5 }, "corrupted_docx"],
      [{ compressedSize: 7 }, "unsupported_type"],
    ];
    for (const [local, code] of cases) {
      const parts = docxParts(wordDocument(paragraph("a"))).map((entry) =>
        entry.name === "word/document.xml" ? { ...entry, local } : entry,
      );
      const archive = writeZip(parts);
      expect(await inspectZip(archive, budget), JSON.stringify(local)).toMatchObject({ ok: false, reason: "damaged" });
      await expect(refusal(extract(archive, { filename: "x.docx" }, LIMITS))).resolves.toMatchObject({ code });
    }
  });

  it("refuses entries whose bytes overlap, and an entry unpacking to other than it declares", async () => {
    // b's whole local record is stored as a's data: both directory records agree with their local headers.
    const b = pack({ name: "b.txt", data: utf8("inner"), deflate: false });
    const bRecord = localRecord(b);
    const a = pack({ name: "a.txt", data: bRecord, deflate: false });
    const aRecord = localRecord(a);
    const bOffset = 30 + "a.txt".length;
    const directory = concat([centralRecord(a, 0), centralRecord(b, bOffset)]);
    const overlapping = concat([aRecord, directory, endRecord(2, directory.length, aRecord.length)]);
    expect(await inspectZip(overlapping, budget)).toMatchObject({
      ok: false,
      reason: "damaged",
      detail: expect.stringContaining("overlaps"),
    });

    const lying = writeZip([{ name: "a.xml", data: utf8("<a>small</a>"), declaredSize: 3, local: { size: 3 } }]);
    expect(await inspectZip(lying, budget)).toMatchObject({ ok: false, reason: "damaged" });
  });

  it("bounds the inflated size across every entry, and XML nesting in each part", async () => {
    const halves = writeZip([
      { name: "a.xml", data: utf8(`<a>${"x".repeat(600 * 1024)}</a>`) },
      { name: "b.xml", data: utf8(`<b>${"y".repeat(600 * 1024)}</b>`) },
    ]);
    expect(await inspectZip(halves, budget)).toMatchObject({ ok: false, reason: "too_large" });

    const deepXml = wordDocument(
      `${"<w:sdt><w:sdtContent>".repeat(20_000)}${paragraph("deep")}${"</w:sdtContent></w:sdt>".repeat(20_000)}`,
    );
    const deep = writeZip(docxParts(deepXml));
    expect(await inspectZip(deep, budget)).toMatchObject({
      ok: false,
      reason: "too_complex",
      part: "word/document.xml",
      excess: { limit: "depth" },
    });
    const error = await timed("DOCX nesting 40,000 elements deep", () =>
      refusal(extract(deep, { filename: "deep.docx" }, LIMITS)),
    );
    expect({ status: error.status, code: error.code }).toEqual({ status: 400, code: "document_too_complex" });
  });
});

describe("through the API", () => {
  let redis: RedisServer;
  let store: RedisStore;

  beforeAll(async () => {
    redis = await startRedisServer();
    store = new RedisStore({ url: redis.url });
    setServices(createServices(loadConfig({ REDIS_URL: redis.url }), { store }));
  });

  afterAll(async () => {
    setServices(undefined);
    await store?.close();
    await redis?.stop();
  });

  it("answers hostile HTML with 400 document_too_complex and keeps serving", async () => {
    for (const [name, html] of [
      ["divs.html", deepDivs(10_000)],
      ["lists.html", deepLists(50_000)],
    ] as const) {
      const response = await timed(`POST /api/chunk/free ${name}`, () =>
        call("POST", "/api/chunk/free", { body: upload(html, name, {}, "text/html"), client: "203.0.113.70" }),
      );
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ success: false, code: "document_too_complex" });
    }
    const normal = await call("POST", "/api/chunk/free", {
      body: upload(fixture("page.html"), "page.html", {}, "text/html"),
      client: "203.0.113.71",
    });
    expect(normal.status).toBe(200);
  });
});
