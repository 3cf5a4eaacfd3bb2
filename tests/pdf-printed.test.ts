/**
 * A PDF as users send them most: a page printed by Chromium (tests/fixtures/
 * layout.html), read end to end by the real extraction (pdf.js in the worker,
 * its drawn rules and bullets, layout recovery) and chunked by the structure
 * tier. Chromium draws list bullets as shapes and writes a table's cells as
 * separate runs of text: nothing here is made up.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunkExtracted, type MethodContext } from "@/lib/pipeline/chunk-result";
import { extract, type Extracted, type ExtractLimits } from "@/lib/extract";
import { launchChromium, printPdf } from "@/tests/helpers/chromium";
import { loadConfig } from "@/lib/ground/config";

const LIMITS: ExtractLimits = {
  maxUnpackedBytes: 20 * 1024 * 1024,
  markup: loadConfig({}).limits.markup,
  maxChars: 1_000_000,
  maxPages: 100,
  maxOcrPages: 10,
  timeoutMs: 60_000,
};
const context: MethodContext = {
  embedder: { id: "none", embed: () => Promise.reject(new Error("no embedding in this test")) },
};

let browser: Browser;
let doc: Extracted;
let noted: Extracted;
let sided: Extracted;

beforeAll(async () => {
  browser = await launchChromium();
  const html = readFileSync(path.join(process.cwd(), "tests/fixtures/layout.html"), "utf8");
  doc = await extract(await printPdf(browser, html), { filename: "review.pdf" }, LIMITS);
  const footnoted = readFileSync(path.join(process.cwd(), "tests/fixtures/footnote.html"), "utf8");
  noted = await extract(await printPdf(browser, footnoted), { filename: "ferry.pdf" }, LIMITS);
  const sidebar = readFileSync(path.join(process.cwd(), "tests/fixtures/sidebar.html"), "utf8");
  sided = await extract(await printPdf(browser, sidebar), { filename: "timetable.pdf" }, LIMITS);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe("a page printed by Chromium", () => {
  it("reads a ruled table as a pipe table, its number columns set right", () => {
    expect(doc.text).toContain(
      [
        "## Revenue by region",
        "",
        "| Region | 2024 (USD m) | 2025 (USD m) | Change |",
        "| --- | ---: | ---: | ---: |",
        "| North | 120.4 | 131.9 | +9.6% |",
        "| South | 98.1 | 104.2 | +6.2% |",
        "| East | 75.0 | 88.3 | +17.7% |",
        "| West | 60.2 | 59.8 | -0.7% |",
        "",
        "## Passengers and vehicles",
      ].join("\n"),
    );
  });

  it("writes a table whose header cells span columns and rows as HTML, every cell in its place", () => {
    expect(doc.text).toContain(
      [
        "<table>",
        "<thead>",
        '<tr><th rowspan="2">Route</th><th colspan="2">Passengers (thousands)</th><th rowspan="2">Vehicles</th></tr>',
        "<tr><th>Summer</th><th>Winter</th></tr>",
        "</thead>",
        "<tbody>",
        "<tr><td>Harbour to Isle</td><td>412</td><td>198</td><td>61,200</td></tr>",
        "<tr><td>Isle to Point</td><td>96</td><td>31</td><td>8,450</td></tr>",
        "<tr><td>Point to Harbour</td><td>150</td><td>72</td><td>19,010</td></tr>",
        "</tbody>",
        "</table>",
      ].join("\n"),
    );
  });

  it("turns bullets drawn as shapes into list items, nested by where they are drawn, numbers kept", () => {
    expect(doc.text).toContain(
      [
        "- new vessels for the eastern routes, with room for more vehicles;",
        "- digital ticketing",
        "  - on the company's own site",
        "  - at the harbour gates",
        "- lower fuel consumption.",
        "1. Order the first vessel in the spring.",
        "2. Open the new ticket gates before the summer timetable.",
      ].join("\n"),
    );
  });

  it("keeps prose set in two columns as paragraphs in reading order, not as a table", () => {
    const east = doc.text.indexOf("The eastern routes carry the most freight");
    const west = doc.text.indexOf("The western routes are older and shorter");
    expect(east).toBeGreaterThan(0);
    expect(west).toBeGreaterThan(east);
    const between = doc.text.slice(east, doc.text.indexOf("## Crossings by month"));
    expect(between).not.toContain("|");
    expect(between.trim().split("\n\n")).toHaveLength(2);
  });

  it("joins a table broken by the page into one, the repeated header dropped", () => {
    const start = doc.text.indexOf("| Month | Crossings | Cancelled | On time |");
    expect(start).toBeGreaterThan(0);
    expect(doc.text.indexOf("| Month |", start + 1)).toBe(-1);
    const rows = doc.text.slice(start).split("\n");
    const months = rows.slice(2).map((row) => row.split(" | ")[0]!.replace("| ", ""));
    expect(months).toEqual([
      "January",
      "February",
      "March",
      "April",
      "May",
      "June",
      "July",
      "August",
      "September",
      "October",
      "November",
      "December",
      "Total",
    ]);
    // The table runs over the page break: one line break between its pages' parts.
    expect(doc.pages).toHaveLength(2);
    const [first, second] = doc.pages!;
    expect(doc.text.slice(first!.end, second!.start)).toBe("\n");
    expect(doc.text.slice(second!.start)).toMatch(/^\| \w+ \| [\d,]+ \|/);
  });

  it("gives every table row a box on its page, covering its cells", () => {
    const row = doc.text.indexOf("| East | 75.0 | 88.3 | +17.7% |");
    const line = doc.lines!.find((l) => l.start <= row && l.end > row)!;
    expect(line.page).toBe(1);
    const [x0, y0, x1, y1] = line.box;
    expect(x1 - x0).toBeGreaterThan(0.3);
    expect(y1 - y0).toBeLessThan(0.03);
    expect(doc.text.slice(line.start, line.end)).toBe("| East | 75.0 | 88.3 | +17.7% |\n");
  });

  it("lets the structure tier split a long table between rows, its header at the top of every piece", async () => {
    const { chunks } = await chunkExtracted(doc, "structure", { maxTokens: 60, overlapTokens: 0 }, context);
    const monthRow = /^\| [A-Z][a-z]+ \| [\d,]+ \|/m;
    const pieces = chunks.filter((c) => monthRow.test(c.text));
    expect(pieces.length).toBeGreaterThan(1);
    for (const { text } of pieces) {
      const table = text.slice(text.indexOf("| Month |")).split("\n");
      expect(table.slice(0, 2)).toEqual([
        "| Month | Crossings | Cancelled | On time |",
        "| --- | ---: | ---: | ---: |",
      ]);
      // No row cut: every line of the piece is a whole row.
      for (const row of table.slice(2)) expect(row).toMatch(/^\| [\w ]+ \| [\d,]+ \| \d+ \| [\d.]+% \|$/);
    }
    const rows = pieces.flatMap((c) => c.text.split("\n").filter((l) => /^\| [A-Z][a-z]+ \| [\d,]/.test(l)));
    expect(new Set(rows).size).toBe(13);
  });
});

describe("a footnote at the foot of a page whose last paragraph runs on to the next", () => {
  it("reads the paragraph whole across the page break and the footnote after it, as its own paragraph", () => {
    const start = noted.text.indexOf("Grey customs customs as tides");
    const end = noted.text.indexOf("between tides turned old crews.", start);
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    // One paragraph: the page break inside it is a space, not a blank line nor a footnote.
    expect(noted.text.slice(start, end)).not.toMatch(/\n|Harbour here/);
    expect(noted.text.slice(start, end)).toContain("freight onto onto ferry. Old as the circled");
    expect(noted.pages).toHaveLength(2);
    const [first, second] = noted.pages!;
    expect(first!.end).toBeGreaterThan(start);
    expect(noted.text.slice(first!.end, second!.start)).toBe(" ");
    expect(noted.text.slice(end)).toMatch(
      /^between tides turned old crews\.\n\n1 Harbour here means the inner basin, not the outer roads\.\n\nWaited morning/,
    );
  });

  it("keeps the footnote's line on the page it is printed on, at that page's foot", () => {
    const at = noted.text.indexOf("1 Harbour here");
    const line = noted.lines!.find((l) => l.start <= at && l.end > at)!;
    expect(line.page).toBe(1);
    expect(line.box[1]).toBeGreaterThan(0.8);
  });

  it("keeps the superscript marker inside its word's line, the word not split", () => {
    expect(noted.text).toContain("market streets1 along passengers");
  });
});

describe("a boxed sidebar beside the body", () => {
  it("is read after the page's body, whole, not before the title nor among the paragraphs", () => {
    expect(sided.text).toMatch(/^# Ferry operations\n\nCrews and crossed between market/);
    const sidebar = sided.text.indexOf("Timetable note\n\nHouse passengers near waited");
    const lastBody = sided.text.indexOf("Islands loaded loaded while harbour");
    expect(lastBody).toBeGreaterThan(0);
    expect(sidebar).toBeGreaterThan(lastBody);
    // The body's paragraphs, beside the box or not, are whole: four of them, then the sidebar's two blocks.
    expect(sided.text.split("\n\n")).toHaveLength(1 + 4 + 2);
  });
});
