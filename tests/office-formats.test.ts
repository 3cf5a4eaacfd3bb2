import { readFileSync } from "node:fs";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { ChunkOptionsSchema } from "@/lib/api-schema/requests";
import {
  type MethodContext,
  chunkExtracted,
  extractDocument,
  loaded,
  resolveOptions,
} from "@/lib/pipeline/chunk-result";
import { loadConfig } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";
import { extract, type Extracted, type ExtractLimits } from "@/lib/extract";
import { detect } from "@/lib/extract/detect";
import { chartData } from "@/lib/extract/office/chart";
import { estimatePages } from "@/lib/extract/page-count";
import { ElementBudget, parseXml } from "@/lib/extract/xml";
import { documentKind, pagesFromCsv, slidesFromPptx } from "@/web/pages";

const LIMITS: ExtractLimits = {
  maxUnpackedBytes: 20 * 1024 * 1024,
  markup: loadConfig({}).limits.markup,
  maxChars: 1_000_000,
  maxPages: 1000,
  maxOcrPages: 10,
  timeoutMs: 60_000,
  maxSheetCells: 100_000,
};

const fixture = (name: string) =>
  new Uint8Array(readFileSync(path.join(process.cwd(), "tests/fixtures/formats", name)));

const read = (name: string, options?: { includeNotes: boolean }) =>
  extract(fixture(name), { filename: name }, LIMITS, undefined, undefined, options);

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "expected extraction to fail").toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** The text of the section that is page (slide or sheet) `number`. */
const section = (doc: Extracted, number: number) => {
  const page = doc.pages!.find((p) => p.number === number)!;
  return doc.text.slice(page.start, page.end);
};

const headings = (text: string) => text.split("\n").filter((line) => /^#{1,6} /.test(line));

const context: MethodContext = {
  embedder: { id: "none", embed: () => Promise.reject(new Error("no embedding in this test")) },
};

/** A minimal XLSX around `sheetXml` (one sheet named "Data"), for hostile variants. */
function xlsxWith(sheetXml: string): Uint8Array {
  const rel = (id: string, type: string, target: string) =>
    `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"/>`;
  return zipSync({
    "[Content_Types].xml": strToU8(
      `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`,
    ),
    "_rels/.rels": strToU8(`<Relationships>${rel("rId1", "officeDocument", "xl/workbook.xml")}</Relationships>`),
    "xl/workbook.xml": strToU8(
      `<workbook xmlns:r="r"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ),
    "xl/_rels/workbook.xml.rels": strToU8(
      `<Relationships>${rel("rId1", "worksheet", "worksheets/sheet1.xml")}</Relationships>`,
    ),
    "xl/worksheets/sheet1.xml": strToU8(sheetXml),
  });
}

const cell = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;

describe("PPTX", () => {
  it("makes one section per slide, in the deck's order, each titled by its slide's title", async () => {
    const doc = await read("markitdown-test.pptx");
    expect(doc.kind).toBe("pptx");
    expect(doc.pageCount).toBe(6);
    expect(doc.pages!.map((p) => p.number)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(section(doc, 1).startsWith("# AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation\n"));
    expect(headings(doc.text)).toEqual([
      "# AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation",
      "# 2cdda5c8-e50e-4db4-b5f0-9722a649f455",
      "# A table to test parsing:",
      "# A chart\u00a0to test parsing:",
      "# A Nested Shape parsing",
      expect.stringMatching(/^# /),
    ]);
  });

  it("writes a slide's table as a Markdown table with its header row", async () => {
    const doc = await read("markitdown-test.pptx");
    expect(section(doc, 3)).toContain(
      [
        "| ColA | ColB | ColC | ColD | ColE | ColF |",
        "| --- | --- | --- | --- | --- | --- |",
        "| 1 | 2 | 3 | 4 | 5 | 6 |",
      ].join("\n"),
    );
    const tables = await read("pandoc-tables.pptx");
    expect(section(tables, 1)).toContain(
      "| Right | Left | Center | Default |\n| --- | --- | --- | --- |\n| 12 | 12 | 12 | 12 |",
    );
  });

  it("reads shapes inside groups", async () => {
    expect(section(await read("markitdown-test.pptx"), 5)).toContain("This is a nested shape with content");
  });

  it("reads placeholders that take their place from the layout: the left column before the right", async () => {
    const doc = await read("pandoc-two-column.pptx");
    const text = section(doc, 1);
    const order = ["# Two-Column Layout", "One paragraph.", "Another paragraph.", "Second column paragraph."].map((s) =>
      text.indexOf(s),
    );
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("puts speaker notes under a marked sub-heading, and leaves them out when asked", async () => {
    const withNotes = await read("pandoc-speaker-notes.pptx");
    expect(section(withNotes, 1)).toBe(
      "# Slide 1\n\nHere is a slide.\n\n## Notes\n\nHere is a note.\n\nHere is some other formatting.",
    );
    expect(section(withNotes, 2)).not.toContain("## Notes");
    const without = await read("pandoc-speaker-notes.pptx", { includeNotes: false });
    expect(without.text).not.toContain("## Notes");
    expect(without.text).not.toContain("Here is a note.");
    expect(without.text).toContain("Here is a slide.");
  });

  it("takes include_notes from a request's fields (a form sends text) through to the reader", async () => {
    const config = loadConfig({});
    const fields = ChunkOptionsSchema.parse({ include_notes: "false" });
    const options = resolveOptions(fields, config.chunking);
    expect(options.includeNotes).toBe(false);
    expect(resolveOptions(ChunkOptionsSchema.parse({}), config.chunking).includeNotes).toBe(true);
    expect(ChunkOptionsSchema.safeParse({ include_notes: "maybe" }).success).toBe(false);
    const doc = loaded({ bytes: fixture("pandoc-speaker-notes.pptx"), filename: "talk.pptx" });
    expect((await extractDocument(doc, config, undefined, undefined, options)).text).not.toContain("## Notes");
    expect((await extractDocument(doc, config)).text).toContain("## Notes");
  });

  it("writes a chart's cached data as a table under its title, and pictures' alt text in place", async () => {
    const doc = await read("markitdown-test.pptx");
    expect(section(doc, 4)).toContain(
      [
        "Chart: a3f6004b-6f4f-4ea8-bee3-3741f4dc385f",
        "",
        "|  | Series 1 |",
        "| --- | --- |",
        "| 2000 | 2000 |",
        "| 2001 | 2001 |",
        "| 2002 | 2002 |",
        "| 2003 | 2003 |",
      ].join("\n"),
    );
    expect(section(doc, 2)).toContain(
      "_(Image: The first page of the AutoGen ArXiv paper.  44bf7d06-5e7a-4a40-a2e1-a2e42ef28c8a)_",
    );
    expect(section(doc, 6)).toContain("_(Image: This phrase of the caption is Human-written.)_");
  });

  it("reads a chart's series, categories and gaps from the part's caches, whatever indices it claims", () => {
    const pt = (idx: number | string, v: string) => `<c:pt idx="${idx}"><c:v>${v}</c:v></c:pt>`;
    const ser = (name: string, cat: string, val: string) =>
      `<c:ser><c:tx><c:strRef><c:strCache>${pt(0, name)}</c:strCache></c:strRef></c:tx><c:cat><c:strRef><c:strCache>${cat}</c:strCache></c:strRef></c:cat><c:val><c:numRef><c:numCache>${val}</c:numCache></c:numRef></c:val></c:ser>`;
    const xml = `<c:chartSpace xmlns:c="c" xmlns:a="a"><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Sales</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:barChart>${ser(
      "North",
      pt(0, "Q1") + pt(1, "Q2") + pt(999_999_999, "Q9"),
      pt(0, "10") + pt(999_999_999, "90"),
    )}${ser("South", pt(0, "Q1") + pt(1, "Q2"), pt(0, "5") + pt(1, "7"))}</c:barChart></c:plotArea></c:chart></c:chartSpace>`;
    expect(chartData(parseXml(xml, new ElementBudget(1000)))).toEqual({
      title: "Sales",
      rows: [
        ["", "North", "South"],
        ["Q1", "10", "5"],
        ["Q2", "", "7"],
        ["Q9", "90", ""],
      ],
    });
    // A part with more elements than the document's budget is refused while it is parsed.
    expect(() => parseXml(xml, new ElementBudget(20))).toThrow(ApiError);
  });

  it("gives every chunk the slides it covers as page_start and page_end", async () => {
    const doc = await read("markitdown-test.pptx");
    const { chunks } = await chunkExtracted(doc, "structure", { maxTokens: 64, overlapTokens: 0 }, context);
    expect(chunks.length).toBeGreaterThan(6);
    const slideOf = (offset: number) => doc.pages!.filter((p) => p.start <= offset).length;
    for (const { metadata } of chunks) {
      expect(metadata.page_start).toBe(slideOf(metadata.start));
      expect(metadata.page_end).toBe(slideOf(metadata.end - 1));
    }
    const starts = chunks.map((c) => c.metadata.page_start!);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    expect(chunks.at(-1)!.metadata.page_end).toBe(6);
  });
});

describe("ODP", () => {
  it("makes one section per slide with its title, lists, tables and notes", async () => {
    const doc = await read("officeparser-test.odp");
    expect(doc.kind).toBe("odp");
    expect(doc.pageCount).toBe(9);
    expect(headings(doc.text).slice(0, 3)).toEqual([
      "# Demonstration of DOCX support in\u00a0calibre",
      "## Notes",
      "# Text Formatting",
    ]);
    expect(section(doc, 1)).toContain("\n\n## Notes\n\nSlide Note 1.");
    // The deck separates some words by no-break spaces.
    expect(section(doc, 1)).toMatch(
      /\n- This\sdocument\sdemonstrates\sthe\sability\sof\sthe\scalibre\sDOCX\sInput\splugin/,
    );
    expect(section(doc, 3)).toContain("| ITEM | NEEDED |\n| --- | --- |\n| Books | 1 |\n| Pens | 3 |");
    const without = await read("officeparser-test.odp", { includeNotes: false });
    expect(without.text).not.toContain("## Notes");
    expect(without.text).not.toContain("Slide Note 1.");
  });
});

describe("ODP written by LibreOffice", () => {
  it("reads a chart's own data table, pictures' alt text, and a table whose frame also holds its rendering", async () => {
    const doc = await read("libreoffice-markitdown-test.odp");
    expect(doc.kind).toBe("odp");
    expect(section(doc, 4)).toContain(
      "Chart: a3f6004b-6f4f-4ea8-bee3-3741f4dc385f\n\n|  | Series 1 |\n| --- | --- |\n| 2000 | 2000 |",
    );
    expect(section(doc, 2)).toContain("_(Image: The first page of the AutoGen ArXiv paper.");
    expect(section(doc, 3)).toContain(
      "| ColA | ColB | ColC | ColD | ColE | ColF |\n| --- | --- | --- | --- | --- | --- |",
    );
    const tables = await read("libreoffice-pandoc-tables.odp");
    expect(section(tables, 1)).toContain(
      "| Right | Left | Center | Default |\n| --- | --- | --- | --- |\n| 12 | 12 | 12 | 12 |",
    );
    const notes = await read("libreoffice-pandoc-speaker-notes.odp");
    expect(section(notes, 1)).toBe(
      "# Slide 1\n\nHere is a slide.\n\n## Notes\n\nHere is a note.\n\nHere is some other formatting.",
    );
  });
});

describe("XLSX and ODS", () => {
  it("makes one section per visible sheet, named by it; hidden and empty sheets are left out", async () => {
    const doc = await read("readings-5000.xlsx");
    expect(doc.kind).toBe("xlsx");
    expect(headings(doc.text)).toEqual(["# Summary", "# Readings"]);
    expect(doc.text).not.toContain("HIDDEN-LOOKUP-MARKER");
    // Sheet numbers are positions in the workbook.
    expect(doc.pages!.map((p) => p.number)).toEqual([1, 2]);
    // 1 page for Summary, 5,000 rows / 50 for Readings.
    expect(doc.pageCount).toBe(101);
    for (const name of ["calamine-any_sheets.xlsx", "calamine-any_sheets.ods"]) {
      const visible = await read(name);
      expect(headings(visible.text)).toEqual(["# Visible"]);
    }
  });

  it("writes cached formula values and dates, repeats merged cells and puts a title row above the table", async () => {
    const doc = await read("readings-5000.xlsx");
    expect(section(doc, 1)).toBe(
      [
        "# Summary",
        "",
        "Station readings, January 2024 onwards",
        "",
        "| Region | Station | Readings | Note |",
        "| --- | --- | --- | --- |",
        "| North Sea | Aberdeen | 625 | coastal |",
        "| North Sea | Esbjerg | 625 | coastal \\| harbour |",
        "| Atlantic | Galway | 625 | west |",
      ].join("\n"),
    );
    expect(section(doc, 2)).toContain(
      "| Station | Date | Temperature (°C) | Rainfall (mm) | Temperature (°F) |\n| --- | --- | --- | --- | --- |\n| Aberdeen | 2024-01-01 | 7.9 | 28.3 | 46.22 |",
    );
    const merged = await read("calamine-merged_range.xlsx");
    expect(section(merged, 2)).toContain("| A1 | B4 | C3 | E4 | F1 |");
  });

  it("gives a sheet without a label row its column letters as the header", async () => {
    const doc = await read("calamine-any_sheets.ods");
    expect(doc.text).toContain("| A | B |\n| --- | --- |\n| 1 | 2 |");
  });

  it("expands ODS's repeated rows with values and ignores repeated empty ones", async () => {
    const doc = await read("calamine-number_rows_repeated.ods");
    expect(doc.kind).toBe("ods");
    expect(
      section(doc, 1)
        .split("\n")
        .filter((line) => line === "| C | D |"),
    ).toHaveLength(4);
  });

  it("splits a 5,000-row sheet by rows, its header row in every chunk and no row cut", async () => {
    const doc = await read("readings-5000.xlsx");
    const { chunks } = await chunkExtracted(doc, "structure", { maxTokens: 200, overlapTokens: 0 }, context);
    const header = "| Station | Date | Temperature (°C) | Rainfall (mm) | Temperature (°F) |";
    // The table's chunks: the first may also hold the end of the sheet before it and the sheet's heading.
    const tableChunks = chunks.filter((c) => c.text.includes(header));
    expect(tableChunks.length).toBeGreaterThan(50);
    const rows = new Map<string, number>();
    for (const chunk of tableChunks) {
      const lines = chunk.text.split("\n");
      const at = lines.indexOf(header);
      expect(lines[at + 1]).toBe("| --- | --- | --- | --- | --- |");
      const body = lines.slice(at + 2);
      expect(body.length).toBeGreaterThan(0);
      for (const line of body) {
        // Whole rows only: five cells, closed.
        expect(line).toMatch(/^\| [^|]+ \| \d{4}-\d{2}-\d{2} \| [-\d.]+ \| [\d.]+ \| [-\d.]+ \|$/);
        rows.set(line, (rows.get(line) ?? 0) + 1);
      }
    }
    // No chunk holds table rows without the header.
    for (const chunk of chunks.filter((c) => !c.text.includes(header)))
      expect(chunk.text).not.toMatch(/^\| (Aberdeen|Bergen|Cork|Dunedin|Esbjerg|Faro|Galway|Hobart) \|/m);
    const all = section(doc, 2)
      .split("\n")
      .filter((line) => line.startsWith("|"))
      .slice(2);
    expect(all).toHaveLength(5000);
    // Every row is in some chunk, once per occurrence in the sheet.
    const expected = new Map<string, number>();
    for (const line of all) expected.set(line, (expected.get(line) ?? 0) + 1);
    expect(rows).toEqual(expected);
  });
});

describe("a real 5,000-row sheet (LibreOffice's XLSX, ODS and TSV of Unicode's data)", () => {
  it.each(["unicode-data-5000.xlsx", "unicode-data-5000.ods", "unicode-data-5000.tsv"])(
    "%s: every chunk of the table starts with its header row, every row whole and once",
    async (name) => {
      const doc = await read(name);
      const header =
        "| Code point | Name | General category | Combining class | Bidi class | Decomposition | Decimal digit | Digit | Numeric | Bidi mirrored | Unicode 1 name | ISO comment | Uppercase | Lowercase | Titlecase |";
      const all = doc.text.split("\n").filter((line) => /^\| [0-9A-F]{4} \|/.test(line));
      expect(all).toHaveLength(5000);
      expect(all[0]).toBe("| 0000 | <control> | Cc | 0 | BN |  |  |  |  | N | NULL |  |  |  |  |");
      const { chunks } = await chunkExtracted(doc, "structure", { maxTokens: 300, overlapTokens: 0 }, context);
      expect(chunks.length).toBeGreaterThan(50);
      const seen: string[] = [];
      for (const chunk of chunks) {
        const lines = chunk.text.split("\n");
        const rows = lines.filter((line) => /^\| [0-9A-F]{4} \|/.test(line));
        if (rows.length === 0) continue;
        expect(lines).toContain(header);
        // Fifteen cells, closed: no row cut.
        for (const row of rows) expect(row.split(" | ")).toHaveLength(15);
        seen.push(...rows);
      }
      expect(seen).toEqual(all);
    },
  );
});

describe("CSV and TSV", () => {
  it("keeps quoted separators, quotes and line breaks inside one cell", async () => {
    const doc = await read("spectrum-quotes_and_newlines.csv");
    expect(doc.kind).toBe("csv");
    expect(doc.text).toBe('# spectrum-quotes_and_newlines\n\n| a | b |\n| --- | --- |\n| 1 | ha "ha" ha |\n| 3 | 4 |');
    expect((await read("spectrum-comma_in_quotes.csv")).text).toContain(
      "| John | Doe | 120 any st. | Anytown, WW | 08123 |",
    );
  });

  it("reads CSV in Windows-1252 and Shift_JIS as well as UTF-8", async () => {
    expect((await read("spectrum-latin1.csv")).text).toContain("| 4 | 5 | © |");
    const kanji = await read("markitdown-mskanji.csv");
    expect(kanji.text).toContain("| 名前 | 年齢 | 住所 |\n| --- | --- | --- |\n| 佐藤太郎 | 30 | 東京 |");
    expect((await read("spectrum-utf8.csv")).text).toContain("| 1 | 2 | 3 |");
  });

  it("sniffs the separator: tabs and semicolons", async () => {
    const tsv = await extract(strToU8("name\tcity\nAda\tLondon\n"), { filename: "people.tsv" }, LIMITS);
    expect(tsv.text).toBe("# people\n\n| name | city |\n| --- | --- |\n| Ada | London |");
    const semicolons = await extract(strToU8("name;price\nTea;1,50\nCake;3,20\n"), { contentType: "text/csv" }, LIMITS);
    expect(semicolons.text).toContain("| Tea | 1,50 |");
  });

  it("is only CSV when the name or type says so; bytes of a workbook stay a workbook whatever the name", async () => {
    expect((await detect(strToU8("a,b\n1,2\n"), { filename: "x.txt" })).kind).toBe("text");
    expect((await detect(strToU8("a,b\n1,2\n"), { filename: "x.CSV" })).kind).toBe("csv");
    expect((await detect(fixture("markitdown-test.xlsx"), { filename: "data.csv" })).kind).toBe("xlsx");
    expect((await detect(fixture("markitdown-test.pptx"), { filename: "deck.bin" })).kind).toBe("pptx");
    expect((await detect(fixture("calamine-merged_cells.ods"), {})).kind).toBe("ods");
    expect((await detect(fixture("officeparser-test.odp"), { filename: "x.pdf" })).kind).toBe("odp");
  });

  it("counts a CSV's pages before reading it close to how extraction does", async () => {
    const lines = ["id,value", ...Array.from({ length: 120 }, (_, i) => `${i},${i * 2}`)].join("\n");
    const bytes = strToU8(lines);
    const detected = await detect(bytes, { filename: "t.csv" });
    expect(await estimatePages(bytes, detected, LIMITS)).toBe(3);
    expect((await extract(bytes, { filename: "t.csv" }, LIMITS, undefined, detected)).pageCount).toBe(3);
  });
});

describe("hostile spreadsheets and decks", () => {
  it("refuses ODS's 10⁹ × 10⁹ repeated cell (a known denial-of-service file) once the cell budget is spent", async () => {
    const error = await refusal(read("calamine-issue_594_dos.ods"));
    expect(error.code).toBe("document_too_complex");
    expect(error.status).toBe(400);
  });

  it("ignores a declared dimension of the whole grid and reads a merge over it without filling it", async () => {
    const sheet = `<worksheet><dimension ref="A1:XFD1048576"/><sheetData><row r="1">${cell("A1", "name")}${cell("B1", "value")}</row><row r="2">${cell("A2", "x")}${cell("B2", "1")}</row></sheetData><mergeCells count="1"><mergeCell ref="A1:XFD1048576"/></mergeCells></worksheet>`;
    const doc = await extract(xlsxWith(sheet), {}, LIMITS);
    expect(doc.text).toBe("# Data\n\n| name | value |\n| --- | --- |\n| x | 1 |");
  });

  it("refuses a sheet whose few cells span a huge table", async () => {
    const diagonal = Array.from({ length: 400 }, (_, i) => {
      const ref = `${columnLetters(i * 40)}${i * 2600 + 1}`;
      return `<row r="${i * 2600 + 1}">${cell(ref, "v")}</row>`;
    }).join("");
    const error = await refusal(
      extract(xlsxWith(`<worksheet><sheetData>${diagonal}</sheetData></worksheet>`), {}, LIMITS),
    );
    expect(error.code).toBe("document_too_complex");
    expect(error.message).toContain("400 rows by 400 columns");
  });

  it("refuses more filled cells than the budget", async () => {
    const rows = Array.from(
      { length: 1100 },
      (_, r) => `<row r="${r + 1}">${Array.from({ length: 100 }, (_, c) => `<c><v>${c}</v></c>`).join("")}</row>`,
    );
    const error = await refusal(
      extract(xlsxWith(`<worksheet><sheetData>${rows.join("")}</sheetData></worksheet>`), {}, LIMITS),
    );
    expect(error.code).toBe("document_too_complex");
    expect(error.message).toContain("100,000 filled cells");
  });

  it("refuses a zip bomb through the same archive budget as DOCX", async () => {
    const huge = `<worksheet><sheetData>${"<row/>".repeat(4_000_000)}</sheetData></worksheet>`;
    const error = await refusal(extract(xlsxWith(huge), {}, LIMITS));
    expect(error.code).toBe("zip_bomb");
    expect(error.status).toBe(413);
  });

  it("refuses deeply nested XML before reading it", async () => {
    const deep = `<worksheet>${"<x>".repeat(5000)}${"</x>".repeat(5000)}</worksheet>`;
    const error = await refusal(extract(xlsxWith(deep), {}, LIMITS));
    expect(error.code).toBe("document_too_complex");
  });

  it("answers a damaged deck or workbook with corrupted_document", async () => {
    const deck = fixture("markitdown-test.pptx");
    const damaged = zipSync({
      "[Content_Types].xml": strToU8(
        `<Types><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>`,
      ),
    });
    expect((await detect(damaged, {})).kind).toBe("pptx");
    const error = await refusal(extract(damaged, {}, LIMITS));
    expect(error.code).toBe("corrupted_document");
    const truncated = await refusal(extract(deck.subarray(0, deck.length / 2), { filename: "deck.pptx" }, LIMITS));
    expect(["corrupted_document", "unsupported_type"]).toContain(truncated.code);
  });
});

describe("web app", () => {
  it("accepts the new types and estimates their pages", () => {
    expect(documentKind("deck.PPTX")).toBe("pptx");
    expect(documentKind("book.xlsx")).toBe("workbook");
    expect(documentKind("book.ods")).toBe("workbook");
    expect(documentKind("t.tsv")).toBe("csv");
    expect(documentKind("talk.odp")).toBe("odp");
    expect(slidesFromPptx(fixture("markitdown-test.pptx"))).toBe(6);
    expect(slidesFromPptx(fixture("markitdown-test.xlsx"))).toBeNull();
    expect(pagesFromCsv(["h", ...Array.from({ length: 101 }, () => "x")].join("\n"))).toBe(3);
  });
});

function columnLetters(index: number): string {
  let name = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}
