import { readFileSync } from "node:fs";
import { chunkExtracted } from "@/lib/pipeline/chunk-result";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { NodeHtmlMarkdown } from "node-html-markdown";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { MethodContext } from "@/lib/pipeline/chunk-result";
import { htmlTableParts } from "@/lib/chunking/structure/html-table";
import { scanMarkdown } from "@/lib/chunking/markdown/scan";
import { ApiError } from "@/lib/ground/errors";
import { extract, type Extracted, type ExtractLimits } from "@/lib/extract";
import { detect } from "@/lib/extract/detect";
import { failures } from "@/lib/extract/failures";
import { convertHtml, MARKDOWN_OPTIONS } from "@/lib/extract/html";
import { splitHtml } from "@/lib/extract/html-segments";
import { withWorker } from "@/lib/extract/worker";
import { loadConfig } from "@/lib/ground/config";

const LIMITS: ExtractLimits = {
  maxUnpackedBytes: 20 * 1024 * 1024,
  markup: loadConfig({}).limits.markup,
  maxChars: 1_000_000,
  maxPages: 100,
  maxOcrPages: 10,
  timeoutMs: 20_000,
};

const fixture = (name: string) => new Uint8Array(readFileSync(path.join(process.cwd(), "tests/fixtures", name)));
const utf8 = (s: string) => new TextEncoder().encode(s);

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "expected extraction to fail").toBeInstanceOf(ApiError);
  return error as ApiError;
}

async function expectRefused(promise: Promise<unknown>, status: number, code: string): Promise<ApiError> {
  const error = await refusal(promise);
  expect({ status: error.status, code: error.code, message: error.message }).toMatchObject({ status, code });
  expect(error.message.length).toBeGreaterThan(20);
  return error;
}

// pdf.js rejects promises nobody awaits on damaged files; the worker thread must keep them out of this process.
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => {
  process.on("unhandledRejection", onUnhandled);
});
afterAll(() => {
  process.off("unhandledRejection", onUnhandled);
});

describe("type detection from bytes", () => {
  it("reads PDF bytes as a PDF whatever the name and content type say", async () => {
    const result = await extract(
      fixture("multipage.pdf"),
      { filename: "notes.txt", contentType: "text/plain" },
      LIMITS,
    );
    expect(result.kind).toBe("pdf");
    expect(result.mediaType).toBe("application/pdf");
  });

  it("reads DOCX bytes as DOCX under a .pdf name", async () => {
    const result = await extract(
      fixture("report.docx"),
      { filename: "report.pdf", contentType: "application/pdf" },
      LIMITS,
    );
    expect(result.kind).toBe("docx");
  });

  it("reads text bytes under a .pdf name as text, never as a PDF", async () => {
    const result = await extract(
      fixture("notes.md"),
      { filename: "notes.pdf", contentType: "application/pdf" },
      LIMITS,
    );
    expect(result.kind).toBe("text");
    expect(result.mediaType).toBe("text/plain");
  });

  it("reads HTML bytes as HTML under a .md name", async () => {
    const result = await extract(fixture("page.html"), { filename: "page.md", contentType: "text/markdown" }, LIMITS);
    expect(result.kind).toBe("html");
  });

  it("lets the hint choose Markdown over plain text, and only that", async () => {
    const bytes = fixture("notes.md");
    expect((await extract(bytes, { filename: "NOTES.MD" }, LIMITS)).kind).toBe("markdown");
    expect((await extract(bytes, { filename: "notes.markdown" }, LIMITS)).kind).toBe("markdown");
    expect((await extract(bytes, { contentType: "text/markdown; charset=utf-8" }, LIMITS)).kind).toBe("markdown");
    expect((await extract(bytes, {}, LIMITS)).kind).toBe("text");
    expect((await extract(bytes, { filename: "notes.txt" }, LIMITS)).kind).toBe("text");
  });

  it("detects HTML only when the text opens with a doctype or html/head/body tag", async () => {
    const page = await extract(
      utf8("<!-- saved page -->\n<?xml version='1.0'?>\n<HTML><BODY><p>Hello there</p></BODY></HTML>"),
      {},
      LIMITS,
    );
    expect(page.kind).toBe("html");
    expect(page.text).toBe("Hello there");
    const markdownAboutHtml =
      "# Writing pages\n\nA page starts like this:\n\n```html\n<html><body></body></html>\n```\n";
    const doc = await extract(utf8(markdownAboutHtml), { filename: "guide.md" }, LIMITS);
    expect(doc.kind).toBe("markdown");
    expect(doc.text).toBe(markdownAboutHtml);
  });

  it("refuses a GIF, an image it does not read, with 415 even under a .txt name", async () => {
    const gif = new Uint8Array(64);
    gif.set(utf8("GIF89a"));
    const error = await expectRefused(
      extract(gif, { filename: "image.txt", contentType: "text/plain" }, LIMITS),
      415,
      "unsupported_type",
    );
    expect(error.message).toContain("GIF");
    expect(error.message).toContain("PNG, JPEG, TIFF, WebP");
  });

  it("refuses a ZIP that is not a Word document with 415", async () => {
    const zip = zipSync({ "readme.txt": strToU8("hello"), "data/values.csv": strToU8("a,b\n1,2\n") });
    await expectRefused(extract(zip, { filename: "archive.docx" }, LIMITS), 415, "unsupported_type");
  });

  it("reads text whose first letters match a short binary signature as text", async () => {
    // "BM" is BMP's signature and "MZ" an executable's.
    expect((await extract(utf8("BMW sales rose in the third quarter."), {}, LIMITS)).text).toBe(
      "BMW sales rose in the third quarter.",
    );
    expect((await extract(utf8("MZ stands for the maintenance zone."), {}, LIMITS)).kind).toBe("text");
  });

  it("refuses text with NUL bytes with 415", async () => {
    const bytes = utf8("looks like text\u0000but is not");
    await expectRefused(extract(bytes, { filename: "a.txt" }, LIMITS), 415, "unsupported_type");
  });
});

describe("PDF", () => {
  const TITLES = [
    "Rivers and their deltas",
    "A short history of lighthouses",
    "Notes on sourdough baking",
    "Migratory birds of the northern coast",
  ];
  const PHRASES = [
    "fan of land cut by shifting channels",
    "Fresnel lenses",
    "lactic acid bacteria",
    "knots and godwits",
  ];

  it("gives one page range per page, numbered from 1, each covering that page's text", async () => {
    const result = await extract(fixture("multipage.pdf"), {}, LIMITS);
    expect(result.pageCount).toBe(4);
    const pages = result.pages ?? [];
    expect(pages.map((p) => p.number)).toEqual([1, 2, 3, 4]);
    expect(pages[0]?.start).toBe(0);
    expect(pages.at(-1)?.end).toBe(result.text.length);
    pages.forEach((page, i) => {
      const text = result.text.slice(page.start, page.end);
      // Each page's title is set large: it comes back as a Markdown heading.
      expect(text.startsWith(`# ${TITLES[i]}\n\n`)).toBe(true);
      expect(text).toContain(PHRASES[i]);
      // No other page's text leaks into this range.
      TITLES.filter((_, j) => j !== i).forEach((other) => expect(text).not.toContain(other));
      const next = pages[i + 1];
      if (next) expect(result.text.slice(page.end, next.start)).toBe("\n\n");
    });
    expect(result.text).not.toMatch(/[ \t]+\n|\r/);
  });

  it("leaves the caller's bytes intact after handing a copy to the worker", async () => {
    const bytes = fixture("multipage.pdf");
    const before = bytes.length;
    await extract(bytes, {}, LIMITS);
    expect(bytes.length).toBe(before);
    expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe("%PDF-");
  });

  it("extracts several PDFs at once, one worker each", async () => {
    const results = await Promise.all([1, 2, 3].map(() => extract(fixture("multipage.pdf"), {}, LIMITS)));
    results.forEach((r) => expect(r.pageCount).toBe(4));
  });

  it("refuses a PDF with more pages than allowed with 413", async () => {
    const error = await expectRefused(
      extract(fixture("multipage.pdf"), {}, { ...LIMITS, maxPages: 3 }),
      413,
      "too_many_pages",
    );
    expect(error.message).toContain("4 pages");
  });

  it("refuses a PDF with more characters than allowed with 413", async () => {
    await expectRefused(
      extract(fixture("multipage.pdf"), {}, { ...LIMITS, maxChars: 500 }),
      413,
      "too_many_characters",
    );
  });

  it.each(["corrupted.pdf", "truncated.pdf", "garbled.pdf"])("refuses %s with 400 corrupted_pdf", async (name) => {
    await expectRefused(extract(fixture(name), {}, LIMITS), 400, "corrupted_pdf");
  });

  it("keeps pdf.js's stray rejections out of this process", async () => {
    await expectRefused(extract(fixture("garbled.pdf"), {}, LIMITS), 400, "corrupted_pdf");
    // The stray rejections come a moment after the main error; give them time to arrive if they could.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(unhandled).toEqual([]);
  });

  it("refuses a password-protected PDF with 400 encrypted_pdf", async () => {
    await expectRefused(extract(fixture("encrypted.pdf"), {}, LIMITS), 400, "encrypted_pdf");
  });

  it.each(["repeated-pages.pdf", "repeated-rotated-pages.pdf"])(
    "keeps every page's text when the pages repeat the same lines (%s)",
    async (name) => {
      const extracted = await extract(fixture(name), {}, LIMITS);
      expect(extracted.pageCount).toBe(4);
      expect(extracted.pages).toHaveLength(4);
      for (const range of extracted.pages!) {
        const text = extracted.text.slice(range.start, range.end);
        expect(text).toContain("Notice of the annual general meeting of the estuary society");
        expect(text).toContain("All members are invited to attend.");
      }
    },
  );

  it("reads a PDF's pages without a text layer by OCR, and refuses with 400 no_text when it finds nothing", async () => {
    // no-text.pdf's two pages are empty: nothing for pdf.js, nothing for Tesseract.
    const error = await expectRefused(extract(fixture("no-text.pdf"), {}, LIMITS), 400, "no_text");
    expect(error.message).toContain("This PDF has no text layer, and OCR found no text on its 2 pages");
  });

  it("gives up on a document that takes longer than the timeout with 400 document_too_complex", async () => {
    await expectRefused(
      extract(fixture("multipage.pdf"), {}, { ...LIMITS, timeoutMs: 1 }),
      400,
      "document_too_complex",
    );
  });
});

describe("PDF layout", () => {
  // What tests/fixtures/structured.pdf shows a reader, page by page (scripts/make-fixtures.ts, STRUCTURED_PAGES).
  const PAGES = [
    [
      "# Coastal Survey Handbook",
      "This handbook explains how volunteer teams survey the shore, from the first equipment check to the final report. Every team follows the same steps, so that the well-known problems of earlier surveys, such as counts that cannot be compared from one year to the next, do not come back.",
      "## 1 Equipment",
      "Pack the following before every survey:",
      [
        "- Binoculars and a spotting scope with its tripod",
        "- A waterproof notebook and two pencils, because ink runs in the rain while a notebook written in pencil stays readable even when it gets soaked",
        "- Tide tables for the season",
        "  - printed on paper, not kept on a phone",
      ].join("\n"),
      "### 1.1 Checks before leaving",
      [
        "1. Check the weather forecast and the times of high and low water",
        "2. Tell the coordinator where the team is going and when it will be back",
        "3. Charge the radio and test it with the base station, so that help can always be called from anywhere on the shore",
      ].join("\n"),
      "Teams that skip these checks are not covered by the survey's insurance.",
    ],
    [
      "Draft for review",
      "## 2 Counting birds",
      "Count at high tide, when the birds crowd together onto the last dry ground and can be seen from the sea wall. Walk slowly, stop often, and count each flock twice, once from each end.",
      "Write the count down at once. Memory is a poor instrument on a cold, wet morning, and a number written later is a guess.",
      "#### Tide tables",
      "Spring tides push the birds closest to the wall; neap tides spread them out.",
      "- a) Note the height of the tide at the start of the count\n- b) Note it again at the end",
    ],
    [
      "## 3 Reporting",
      "Reports follow the well-known format of the national scheme. Send them from the command line with the survey tool:",
      '```\nsurvey submit --site north-spit --date 2025-05-01\n    --observer "A. N. Other" --count 214\n```',
      "The tool checks each record before it is sent and prints what it rejected.",
      "Nests found on the north spit: 7",
    ],
  ].map((blocks) => blocks.join("\n\n"));

  let doc: Extracted;
  const pageText = (n: number) => {
    const page = doc.pages?.find((p) => p.number === n);
    return page ? doc.text.slice(page.start, page.end) : "";
  };
  beforeAll(async () => {
    doc = await extract(fixture("structured.pdf"), {}, LIMITS);
  });

  it("recovers headings by size, paragraphs from wrapped lines, lists and code as Markdown", () => {
    expect(doc.pageCount).toBe(3);
    expect([1, 2, 3].map(pageText)).toEqual(PAGES);
  });

  it("drops the running header, the footer and the page numbers on every page, and keeps lines that occur once", () => {
    // The header's title survives once: as page 1's heading, set large.
    expect(doc.text.match(/Coastal Survey Handbook/g)).toEqual(["Coastal Survey Handbook"]);
    expect(doc.text).not.toMatch(/Page \d of 3/);
    [1, 2, 3].forEach((n) => expect(pageText(n)).not.toMatch(new RegExp(`(^|\\s)${n}$`, "m")));
    expect(pageText(2).startsWith("Draft for review\n\n")).toBe(true);
    expect(pageText(3).endsWith("north spit: 7")).toBe(true);
  });

  // A method that never embeds: these tiers do not ask for vectors.
  const context: MethodContext = {
    embedder: { id: "none", embed: () => Promise.reject(new Error("no embedding in this test")) },
  };

  it.each(["free", "structure"] as const)("gives each %s chunk the pages its text comes from", async (tier) => {
    const { chunks } = await chunkExtracted(doc, tier, { maxTokens: 40, overlapTokens: 0 }, context);
    expect(chunks.length).toBeGreaterThan(6);
    const pages = doc.pages ?? [];
    // Counted here without the chunker's search: pages that start at or before an offset.
    const pageOf = (offset: number) => pages.filter((p) => p.start <= offset).length;
    for (const { text, metadata } of chunks) {
      expect({ text, page_start: metadata.page_start, page_end: metadata.page_end }).toEqual({
        text,
        page_start: pageOf(metadata.start),
        page_end: pageOf(metadata.end - 1),
      });
    }
    const from = (phrase: string) => chunks.find((c) => c.text.includes(phrase))?.metadata;
    expect(from("Count at high tide")).toMatchObject({ page_start: 2, page_end: 2 });
    expect(from("Reports follow the well-known format")).toMatchObject({ page_start: 3, page_end: 3 });
    expect(from("Pack the following")).toMatchObject({ page_start: 1, page_end: 1 });
  });

  it("gives a chunk that runs over a page break both pages", async () => {
    const { chunks } = await chunkExtracted(doc, "free", { maxTokens: 2000, overlapTokens: 0 }, context);
    expect(chunks.map((c) => [c.metadata.page_start, c.metadata.page_end])).toEqual([[1, 3]]);
  });
});

describe("DOCX", () => {
  let report: Extracted;
  beforeAll(async () => {
    report = await extract(fixture("report.docx"), { filename: "report.docx" }, LIMITS);
  });

  it("turns headings, tables and lists into Markdown", () => {
    expect(report.kind).toBe("docx");
    expect(report.pages).toBeUndefined();
    expect(report.text).toMatch(/^# Quarterly field report$/m);
    expect(report.text).toMatch(/^## Sites visited$/m);
    expect(report.text).toMatch(/^\| \*\*Site\*\* +\| \*\*Visits\*\* +\| \*\*Species counted\*\* +\|$/m);
    expect(report.text).toMatch(/^\| -+ \| -+ \| -+ \|$/m);
    expect(report.text).toMatch(/^\| North mudflat +\| 6 +\| 14 +\|$/m);
    expect(report.text).toMatch(/^- Spotting scope with tripod$/m);
    expect(report.text).toMatch(/^- Tide tables for the season$/m);
    expect(report.text).toMatch(/^1\. Order the replacement scope$/m);
    expect(report.text).toMatch(/^3\. Publish the spring counts$/m);
    expect(report.text).toContain("This report summarises the survey work");
  });

  it("refuses a zip bomb by its declared size with 413 before any parser runs", async () => {
    // A 1 ms deadline: had the archive reached the worker, the answer would be document_too_complex.
    const error = await expectRefused(
      extract(fixture("zip-bomb.docx"), {}, { ...LIMITS, timeoutMs: 1 }),
      413,
      "zip_bomb",
    );
    expect(error.message).toMatch(/unpacked size is too large \(199\.0 MB, more than the 20\.0 MB allowed\)/);
  });

  it("refuses a zip bomb that lies about its size, by inflating under a cap, with 413", async () => {
    const bytes = fixture("zip-bomb-lying.docx");
    const error = await expectRefused(extract(bytes, {}, { ...LIMITS, timeoutMs: 1 }), 413, "zip_bomb");
    expect(error.message).toMatch(/although it declares \d+ KB/);
  });

  it("turns a worker that runs out of memory into 400 document_too_complex", async () => {
    // 100,000 tiny paragraphs: 3.4 MB of XML, far under the unpacked cap, yet mammoth needs hundreds of MB for it.
    const paragraphs = `<w:p><w:r><w:t>x</w:t></w:r></w:p>`.repeat(100_000);
    const dense = zipSync({
      "[Content_Types].xml": strToU8(
        `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
      ),
      "_rels/.rels": strToU8(
        `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
      ),
      "word/document.xml": strToU8(
        `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paragraphs}</w:body></w:document>`,
      ),
    });
    const reply = z.object({ ok: z.literal(true), html: z.string() });
    const session = withWorker({ timeoutMs: 20_000, damaged: failures.corruptedDocx, heapMb: 16 }, (worker) =>
      worker.call({ op: "docx-html", data: dense }, reply),
    );
    await expectRefused(session, 400, "document_too_complex");
  });

  it("refuses a .docx without its main document part with 400 corrupted_docx", async () => {
    await expectRefused(extract(fixture("broken.docx"), {}, LIMITS), 400, "corrupted_docx");
  });

  it("refuses a DOCX cut short with 400 corrupted_docx", async () => {
    const bytes = fixture("report.docx");
    await expectRefused(extract(bytes.slice(0, Math.floor(bytes.length * 0.9)), {}, LIMITS), 400, "corrupted_docx");
  });
});

/**
 * The HTML tables of a Markdown text, each as the structure tier reads it: one HTML block holding one table
 * (its source, and how many body rows it splits between).
 */
function htmlTables(text: string): Array<{ source: string; rows: number }> {
  return scanMarkdown(text)
    .filter((block) => block.type === "html" && text.startsWith("<table", block.start))
    .map((block) => ({
      source: text.slice(block.start, block.end),
      rows: htmlTableParts(text, block.start, block.end)?.rows.length ?? -1,
    }));
}

describe("DOCX and HTML tables", () => {
  let tables: Extracted;
  beforeAll(async () => {
    tables = await extract(fixture("tables.docx"), { filename: "tables.docx" }, LIMITS);
  });

  it("keeps a DOCX table with no merged cell and one line per cell a GFM pipe table, header row or not", () => {
    expect(tables.text).toMatch(/^\| Site +\| Visits +\| Species counted +\|\n\| -+ \| -+ \| -+ \|$/m);
    expect(tables.text).toMatch(/^\| Salt marsh +\| 4 +\| 9 +\|$/m);
    expect(tables.text).toMatch(/^\| \*\*Species\*\* +\| \*\*Tally\*\* +\|\n\| -+ \| -+ \|\n\| Knot +\| 212 +\|$/m);
  });

  it("writes a DOCX table with merged cells (gridSpan, vMerge) as an HTML table with colspan and rowspan", () => {
    const merged = htmlTables(tables.text);
    expect(merged.map((t) => t.source)).toContain(
      [
        "<table>",
        "<thead>",
        '<tr><th>Region</th><th colspan="2">Revenue (USD m)</th></tr>',
        "</thead>",
        "<tbody>",
        "<tr><td></td><td>2024</td><td>2025</td></tr>",
        "<tr><td>North</td><td>120.4</td><td>131.9</td></tr>",
        "<tr><td>South &amp; coast</td><td>98.1</td><td>104.2</td></tr>",
        "</tbody>",
        "</table>",
      ].join("\n"),
    );
    // Vertically merged: "May" stays under Month, as the row's second cell, not shifted under Season.
    const down = merged.find((t) => t.source.includes("Spring"))!;
    expect(down.source).toContain(
      '<tr><td rowspan="2">Spring</td><td>April</td><td>31</td></tr>\n<tr><td>May</td><td>44</td></tr>',
    );
    expect(tables.text).not.toMatch(/^\| May /m);
  });

  it("writes a DOCX table whose cells hold paragraphs or a list as HTML, the lines joined with <br>", () => {
    const cells = htmlTables(tables.text).find((t) => t.source.includes("Ring the birds"))!;
    expect(cells.source).toContain("<tr><td>Ring the birds</td><td>Only at low tide.<br>Two people per net.</td></tr>");
    expect(cells.source).toContain("<tr><td>Pack</td><td>- Rings<br>- Pliers</td></tr>");
  });

  it("gives the structure tier every HTML table as one HTML block it splits between rows", () => {
    const found = htmlTables(tables.text);
    expect(found).toHaveLength(3);
    for (const table of found) {
      expect(table.source, table.source).toMatch(/^<table>\n<thead>\n[^]*\n<\/table>$/);
      expect(table.source).not.toMatch(/\n\s*\n/);
      expect(table.rows, table.source).toBe(table.source.split("\n").filter((l) => l.startsWith("<tr>")).length - 1);
    }
  });

  it("does the same for HTML input: spans kept, text escaped, the first row the head when none is marked", async () => {
    const html =
      "<p>Before.</p><table><caption>Tides & ranges</caption>" +
      '<tr><td rowspan="2">Port</td><td colspan="2">High water</td></tr><tr><td>Spring</td><td>Neap</td></tr>' +
      '<tr><td>Dover <b>east</b></td><td>6.8</td><td>5.3</td></tr><tr><td>A&lt;B "quoted"</td><td>1</td><td>2</td></tr>' +
      "</table><p>After.</p>";
    const text = await convertHtml(html, LIMITS);
    expect(text).toBe(
      [
        "Before.",
        "",
        "<table>",
        "<caption>Tides &amp; ranges</caption>",
        "<thead>",
        '<tr><th rowspan="2">Port</th><th colspan="2">High water</th></tr>',
        "<tr><th>Spring</th><th>Neap</th></tr>",
        "</thead>",
        "<tbody>",
        "<tr><td>Dover east</td><td>6.8</td><td>5.3</td></tr>",
        "<tr><td>A&lt;B &quot;quoted&quot;</td><td>1</td><td>2</td></tr>",
        "</tbody>",
        "</table>",
        "",
        "After.",
      ].join("\n"),
    );
    expect(htmlTables(text).map((t) => t.rows)).toEqual([2]);
  });

  it("escapes every pipe in a pipe table's cell, not only the first", async () => {
    const text = await convertHtml(
      "<table><tr><th>a|b|c</th><th>d</th></tr><tr><td>1</td><td>x|y</td></tr></table>",
      LIMITS,
    );
    expect(text.split("\n")[0]).toMatch(/^\| a\\\|b\\\|c \| d +\|$/);
    expect(text.split("\n")[2]).toMatch(/^\| 1 +\| x\\\|y \|$/);
  });
});

describe("HTML", () => {
  let page: Extracted;
  beforeAll(async () => {
    page = await extract(fixture("page.html"), {}, LIMITS);
  });

  it("drops scripts, styles, navigation and noscript content", () => {
    expect(page.kind).toBe("html");
    // Markers are single words: the converter escapes "_", so a marker with one would never match.
    for (const hidden of [
      "SCRIPTMARKER",
      "BODYSCRIPTMARKER",
      "NAVMARKER",
      "NOSCRIPTMARKER",
      "stylemarker",
      "trackingPixel",
      "Home",
    ]) {
      expect(page.text).not.toContain(hidden);
    }
  });

  it("keeps headings, the table, lists and fenced code with its language", () => {
    expect(page.text).toMatch(/^# Tide gauge handbook$/m);
    expect(page.text).toMatch(/^## Stations$/m);
    expect(page.text).toMatch(/^\| Station +\| Datum \(m\) +\| Since \|$/m);
    expect(page.text).toMatch(/^\| Harbour pier +\| 2\.41 +\| 1998 +\|$/m);
    expect(page.text).toMatch(/^- Check the battery level$/m);
    expect(page.text).toMatch(/^2\. Download the last week$/m);
    expect(page.text).toMatch(/^```python\ndef to_chart_datum\(reading, datum\):\n {4}return reading - datum\n/m);
    expect(page.pageCount).toBe(1);
  });

  it("refuses a page with nothing visible with 400 empty_document", async () => {
    await expectRefused(
      extract(
        utf8("<!doctype html><html><head><title>x</title></head><body><script>go()</script></body></html>"),
        {},
        LIMITS,
      ),
      400,
      "empty_document",
    );
  });

  it("converts a long page in pieces, losing and reordering nothing", async () => {
    const sections = Array.from(
      { length: 400 },
      (_, i) =>
        `<h2>Section ${i}</h2><p>Paragraph <em>${i}</em> with a <a href="/s/${i}">link</a>.</p>` +
        `<table><tr><th>k</th><th>v</th></tr><tr><td>row</td><td>${i}</td></tr></table><script>var p = "<p>in script ${i}</p>";</script>`,
    );
    const html = `<!doctype html><html><head><title>Long</title></head><body><div>${sections.join("\n")}</div></body></html>`;
    const segments = splitHtml(html);
    expect(segments.length).toBeGreaterThan(5);
    expect(segments.join("")).toBe(html);
    // Every cut lands before a block and never inside a table, a link or a script.
    const count = (s: string, re: RegExp) => (s.match(re) ?? []).length;
    segments.slice(1).forEach((segment) => expect(segment).toMatch(/^<(h2|p|table)>/));
    segments.forEach((segment) => {
      expect(count(segment, /<table>/g)).toBe(count(segment, /<\/table>/g));
      expect(count(segment, /<a /g)).toBe(count(segment, /<\/a>/g));
      expect(count(segment, /<script>/g)).toBe(count(segment, /<\/script>/g));
    });

    const result = await extract(utf8(html), {}, LIMITS);
    const converter = new NodeHtmlMarkdown(MARKDOWN_OPTIONS);
    expect(result.text).toBe(converter.translate(html).trim());
    const headings = [...result.text.matchAll(/^## Section (\d+)$/gm)].map((m) => Number(m[1]));
    expect(headings).toEqual(sections.map((_, i) => i));
    expect(result.text).not.toContain("in script");
  });
});

describe("text and Markdown", () => {
  it("keeps Chinese and Japanese prose exactly", async () => {
    const raw = new TextDecoder().decode(fixture("cjk.txt"));
    const result = await extract(fixture("cjk.txt"), { filename: "cjk.txt" }, LIMITS);
    expect(result.kind).toBe("text");
    expect(result.text).toBe(raw);
    expect(result.text).toContain("清晨五点，渔港还没有完全醒来。");
    expect(result.text).toContain("その駅には一日に六本しか列車が止まらない。");
    expect(result.pageCount).toBe(Math.max(1, Math.ceil(raw.length / 3000)));
  });

  it("keeps emoji sequences (ZWJ families, flags, skin tones) intact", async () => {
    const raw = new TextDecoder().decode(fixture("emoji.txt"));
    const result = await extract(fixture("emoji.txt"), {}, LIMITS);
    expect(result.text).toBe(raw);
    for (const emoji of ["👨‍👩‍👧‍👦", "👩🏽‍💻", "🇯🇵", "🏳️‍🌈", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "👩🏻‍❤️‍👨🏾", "🫱🏼‍🫲🏿"]) expect(result.text).toContain(emoji);
  });

  it("keeps Markdown code fences and tables as written", async () => {
    const raw = new TextDecoder().decode(fixture("notes.md"));
    const result = await extract(fixture("notes.md"), { filename: "notes.md" }, LIMITS);
    expect(result).toMatchObject({ kind: "markdown", mediaType: "text/markdown", text: raw, pageCount: 1 });
    expect(result.text).toContain("```ts\nexport function bump");
    expect(result.text).toMatch(/^\| Changelog \| Ana \| yes \|$/m);
  });

  it.each(["utf16le-bom.txt", "utf16be-bom.txt"])("decodes %s and normalises its CRLF line endings", async (name) => {
    const result = await extract(fixture(name), {}, LIMITS);
    expect(result.text).toBe(
      "Café menu — crème brûlée, Grüße aus München, 日本語のテキスト.\nSecond line with CRLF.\n",
    );
  });

  it("drops a UTF-8 byte-order mark and turns CR and CRLF into LF", async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("one\r\ntwo\rthree\n")]);
    expect((await extract(bytes, {}, LIMITS)).text).toBe("one\ntwo\nthree\n");
  });

  it("decodes a large upload in steps without splitting a character at a step's edge", async () => {
    // Steps of 256 KiB: 3-byte and 4-byte characters straddle many step edges; UTF-16 with a BOM too.
    const text = "Grüße, 日本語 and 🫱🏼‍🫲🏿 emoji.\r\n".repeat(40_000);
    expect(utf8(text).length).toBeGreaterThan(1_000_000);
    const big = { ...LIMITS, maxChars: 2_000_000, maxPages: 1000 };
    expect((await extract(utf8(text), {}, big)).text).toBe(text.replace(/\r\n/g, "\n"));
    const utf16 = new Uint8Array(2 + text.length * 2);
    utf16.set([0xff, 0xfe]);
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      utf16[2 + 2 * i] = unit & 0xff;
      utf16[3 + 2 * i] = unit >> 8;
    }
    expect((await extract(utf16, {}, big)).text).toBe(text.replace(/\r\n/g, "\n"));
    // An invalid byte in a later step, and a character cut off at the very end, are still refused.
    const broken = utf8(text);
    broken[700_000] = 0xff;
    await expectRefused(extract(broken, {}, big), 400, "invalid_encoding");
    await expectRefused(extract(utf8(`${text}日`).subarray(0, -1), {}, big), 400, "invalid_encoding");
  });

  it("decodes large uploads one at a time, in the order they arrive", async () => {
    // Taking turns step by step, the two-step upload would finish long before the forty-step one started first.
    const big = { ...LIMITS, maxChars: 20_000_000, maxPages: 10_000 };
    const finished: string[] = [];
    const decoding = [
      extract(utf8("a".repeat(10_000_000)), {}, big).then(() => finished.push("40 steps")),
      extract(utf8("b".repeat(300_000)), {}, big).then(() => finished.push("2 steps")),
    ];
    await Promise.all(decoding);
    expect(finished).toEqual(["40 steps", "2 steps"]);
  });

  it("refuses invalid UTF-8 with 400 invalid_encoding", async () => {
    const error = await expectRefused(
      extract(fixture("invalid-utf8.txt"), { filename: "invalid-utf8.txt" }, LIMITS),
      400,
      "invalid_encoding",
    );
    expect(error.message).toMatch(/UTF-8/);
  });

  it("counts 3000 characters as a page and refuses too many pages or characters with 413", async () => {
    const text = "a".repeat(7000);
    expect((await extract(utf8(text), {}, LIMITS)).pageCount).toBe(3);
    await expectRefused(extract(utf8(text), {}, { ...LIMITS, maxPages: 2 }), 413, "too_many_pages");
    await expectRefused(extract(utf8(text), {}, { ...LIMITS, maxChars: 6999 }), 413, "too_many_characters");
  });

  it("refuses text over the character limit as soon as it is decoded, and HTML only once converted", async () => {
    await expectRefused(detect(utf8("a".repeat(7000)), {}, 6999), 413, "too_many_characters");
    expect(await detect(utf8("a".repeat(6999)), {}, 6999)).toMatchObject({ kind: "text" });
    // Markup is not text: a page of 7,000 characters may convert to fewer.
    const page = `<html><body><p>${"a".repeat(100)}</p>${"<br>".repeat(1700)}</body></html>`;
    expect(await detect(utf8(page), {}, 6999)).toMatchObject({ kind: "html" });
  });

  it("refuses text that cannot fit the character limit by its size, before decoding it", async () => {
    // Over 4 bytes a character allowed: refused undecoded, with a lower bound (invalid UTF-8 later on is never read).
    const huge = utf8("b".repeat(40_008));
    huge[30_000] = 0xff;
    const error = await expectRefused(detect(huge, {}, 10_000), 413, "too_many_characters");
    expect(error.message).toContain("at least 10001 characters");
    // Within 4 bytes a character: decoded, and the exact count given (UTF-16 "\r\n" takes 4 bytes for one).
    const exact = await expectRefused(detect(utf8("b".repeat(40_000)), {}, 10_000), 413, "too_many_characters");
    expect(exact.message).toContain("has 40000 characters");
    // HTML of the same size is converted first; a binary format is named, not counted.
    const page = utf8(`<!doctype html><p>${"<br>".repeat(10_001)}</p>`);
    expect(await detect(page, {}, 10_000)).toMatchObject({ kind: "html" });
    const gif = new Uint8Array(50_000);
    gif.set(utf8("GIF89a"));
    await expectRefused(detect(gif, {}, 10_000), 415, "unsupported_type");
  });
});

describe("empty documents", () => {
  it.each([
    ["no bytes", new Uint8Array(0)],
    ["only whitespace", utf8("  \n\t\r\n  ")],
    ["only a byte-order mark", new Uint8Array([0xef, 0xbb, 0xbf])],
  ])("refuses %s with 400 empty_document", async (_, bytes) => {
    await expectRefused(extract(bytes, { filename: "empty.txt" }, LIMITS), 400, "empty_document");
  });
});
