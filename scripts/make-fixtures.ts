/**
 * Writes the extraction fixtures into tests/fixtures/. Run with
 * `npx tsx scripts/make-fixtures.ts`; the output is committed, so tests never
 * depend on this script having run. tests/fixtures/README.md says where each
 * file comes from.
 *
 * One script over 300 lines on purpose: every generated fixture, read top to
 * bottom.
 */
import { mulberry32 } from "../tests/helpers/random";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  AlignmentType,
  Document,
  HeadingLevel,
  LevelFormat,
  Packer,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
} from "docx";
import { strFromU8, strToU8, unzipSync, zipSync, zlibSync } from "fflate";
import { degrees, PDFDocument, PDFHexString, PDFName, PDFNumber, rgb, StandardFonts } from "pdf-lib";

const OUT = path.join(process.cwd(), "tests/fixtures");
const FIXED_DATE = new Date("2025-01-01T00:00:00Z");

/** Page texts of multipage.pdf; tests/extract.test.ts looks for each title at its page's offsets. */
const PDF_PAGES: { title: string; paragraphs: string[] }[] = [
  {
    title: "Rivers and their deltas",
    paragraphs: [
      "A river slows down where it meets the sea, and the sand and silt it carried settle out of the water. Over centuries these deposits build a delta, a fan of land cut by shifting channels.",
      "Deltas are fertile and flat, which is why so many cities grew on them, and why those cities now worry about rising water.",
    ],
  },
  {
    title: "A short history of lighthouses",
    paragraphs: [
      "The first lighthouses were open fires on hills near harbours. Later towers carried oil lamps, and in the nineteenth century Fresnel lenses bent the light into a beam visible for many miles.",
      "Today most lights are automatic, and the keepers who once trimmed the wicks every night have become a memory of the coast.",
    ],
  },
  {
    title: "Notes on sourdough baking",
    paragraphs: [
      "A sourdough starter is flour and water colonised by wild yeast and lactic acid bacteria. Fed every day, it leavens bread without any commercial yeast.",
      "A long cold proof in the refrigerator gives the loaf a more sour taste and a crust that blisters in a hot oven.",
    ],
  },
  {
    title: "Migratory birds of the northern coast",
    paragraphs: [
      "Every autumn, knots and godwits leave the Arctic tundra and follow the coastline south. They stop on mudflats to feed on worms and small shellfish before the next long flight.",
      "Counting them at high tide, when the flocks crowd onto the last dry sand, is how volunteers track their numbers year after year.",
    ],
  },
];

async function makeMultipagePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setCreationDate(FIXED_DATE);
  doc.setModificationDate(FIXED_DATE);
  doc.setProducer("chunkwise scripts/make-fixtures.ts");
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  for (const page of PDF_PAGES) {
    const p = doc.addPage([595, 842]);
    let y = 780;
    p.drawText(page.title, { x: 60, y, size: 18, font: bold });
    y -= 40;
    for (const paragraph of page.paragraphs) {
      const lines = wrap(paragraph, (s) => font.widthOfTextAtSize(s, 11), 470);
      for (const line of lines) {
        p.drawText(line, { x: 60, y, size: 11, font });
        y -= 15;
      }
      y -= 12;
    }
  }
  return doc.save({ useObjectStreams: false });
}

/**
 * Four pages carrying the same two lines and nothing else, as a notice or a
 * form printed once per page; `rotated` draws them turned 90 degrees, as a
 * landscape form set on portrait pages. Neither may lose its text to the
 * running-header removal.
 */
async function makeRepeatedPagesPdf(rotated: boolean): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setCreationDate(FIXED_DATE);
  doc.setModificationDate(FIXED_DATE);
  doc.setProducer("chunkwise scripts/make-fixtures.ts");
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const notice = ["Notice of the annual general meeting of the estuary society", "All members are invited to attend."];
  for (let i = 0; i < 4; i++) {
    const p = doc.addPage([595, 842]);
    notice.forEach((text, k) =>
      rotated
        ? p.drawText(text, { x: 60 + k * 16, y: 80, size: 12, font, rotate: degrees(90) })
        : p.drawText(text, { x: 60, y: 790 - k * 16, size: 12, font }),
    );
  }
  return doc.save({ useObjectStreams: false });
}

/** A page with a drawn shape and no text: what a scanned document looks like to a text extractor. */
async function makeNoTextPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setCreationDate(FIXED_DATE);
  doc.setModificationDate(FIXED_DATE);
  for (let i = 0; i < 2; i++) {
    const p = doc.addPage([595, 842]);
    p.drawRectangle({ x: 60, y: 500, width: 300, height: 200, color: rgb(0.6, 0.6, 0.6) });
  }
  return doc.save({ useObjectStreams: false });
}

/**
 * A PDF whose trailer points at a Standard security handler that the empty
 * user password does not open, so readers ask for a password. The content is
 * not really encrypted: no reader gets that far.
 */
async function makeEncryptedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setCreationDate(FIXED_DATE);
  doc.setModificationDate(FIXED_DATE);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([595, 842]).drawText("Secret plans.", { x: 60, y: 780, size: 12, font });
  const ctx = doc.context;
  const rand = mulberry32(7);
  const hex = (n: number) =>
    PDFHexString.of(
      Array.from({ length: n }, () =>
        Math.floor(rand() * 256)
          .toString(16)
          .padStart(2, "0"),
      ).join(""),
    );
  const encrypt = ctx.obj({ Filter: "Standard", V: 1, R: 2, Length: 40 });
  encrypt.set(PDFName.of("O"), hex(32));
  encrypt.set(PDFName.of("U"), hex(32));
  encrypt.set(PDFName.of("P"), PDFNumber.of(-3904));
  ctx.trailerInfo.Encrypt = ctx.register(encrypt);
  ctx.trailerInfo.ID = ctx.obj([hex(16), hex(16)]);
  return doc.save({ useObjectStreams: false });
}

/**
 * What structured.pdf's pages hold, top to bottom. Lines are given as set, so
 * the hyphenated breaks ("equip-", "well-") are where the tests expect them;
 * makeStructuredPdf checks that every line but a paragraph's last fills the
 * measure, as a typesetter's would.
 */
type StructuredBlock =
  | { heading: string; size: number }
  | { paragraph: string[]; indent?: number; spaced?: boolean }
  | { bold: string }
  | { items: { marker: string; lines: string[]; level?: number }[] }
  | { code: string[] }
  | { fixedAt: number; text: string; size: number };

const STRUCTURED_PAGES: StructuredBlock[][] = [
  [
    { heading: "Coastal Survey Handbook", size: 22 },
    {
      paragraph: [
        "This handbook explains how volunteer teams survey the shore, from the first equip-",
        "ment check to the final report. Every team follows the same steps, so that the well-",
        "known problems of earlier surveys, such as counts that cannot be compared from one",
        "year to the next, do not come back.",
      ],
    },
    { heading: "1 Equipment", size: 16 },
    { paragraph: ["Pack the following before every survey:"] },
    {
      items: [
        { marker: "\u2022", lines: ["Binoculars and a spotting scope with its tripod"] },
        {
          marker: "\u2022",
          lines: [
            "A waterproof notebook and two pencils, because ink runs in the rain while",
            "a notebook written in pencil stays readable even when it gets soaked",
          ],
        },
        { marker: "\u2022", lines: ["Tide tables for the season"] },
        { marker: "\u2013", lines: ["printed on paper, not kept on a phone"], level: 1 },
      ],
    },
    { heading: "1.1 Checks before leaving", size: 13 },
    {
      items: [
        { marker: "1.", lines: ["Check the weather forecast and the times of high and low water"] },
        { marker: "2.", lines: ["Tell the coordinator where the team is going and when it will be back"] },
        {
          marker: "3.",
          lines: [
            "Charge the radio and test it with the base station, so that help can always",
            "be called from anywhere on the shore",
          ],
        },
      ],
    },
    { paragraph: ["Teams that skip these checks are not covered by the survey's insurance."] },
  ],
  [
    // Looks like a running header but is on this page only: it stays.
    { fixedAt: 790, text: "Draft for review", size: 9 },
    { heading: "2 Counting birds", size: 16 },
    // Paragraphs told apart by a first-line indent alone, no space between them.
    {
      paragraph: [
        "Count at high tide, when the birds crowd together onto the last dry ground and",
        "can be seen from the sea wall. Walk slowly, stop often, and count each flock",
        "twice, once from each end.",
      ],
      indent: 18,
    },
    {
      paragraph: [
        "Write the count down at once. Memory is a poor instrument on a cold, wet",
        "morning, and a number written later is a guess.",
      ],
      indent: 18,
      spaced: false,
    },
    { bold: "Tide tables" },
    { paragraph: ["Spring tides push the birds closest to the wall; neap tides spread them out."] },
    {
      items: [
        { marker: "a)", lines: ["Note the height of the tide at the start of the count"] },
        { marker: "b)", lines: ["Note it again at the end"] },
      ],
    },
  ],
  [
    { heading: "3 Reporting", size: 16 },
    {
      paragraph: [
        "Reports follow the well-known format of the national scheme. Send them from",
        "the command line with the survey tool:",
      ],
    },
    { code: ["survey submit --site north-spit --date 2025-05-01", '    --observer "A. N. Other" --count 214'] },
    { paragraph: ["The tool checks each record before it is sent and prints what it rejected."] },
    // A bare number near the foot of one page only: not a page number.
    { fixedAt: 95, text: "Nests found on the north spit:", size: 11 },
    { fixedAt: 80, text: "7", size: 11 },
  ],
];

/**
 * Headings at three sizes and a bold one at body size, wrapped paragraphs
 * (spaced, or told apart by a first-line indent), bulleted, nested, numbered
 * and lettered lists, a code example in Courier, and on every page a running
 * header with the page number and a "Page N of 3" footer.
 */
async function makeStructuredPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setCreationDate(FIXED_DATE);
  doc.setModificationDate(FIXED_DATE);
  doc.setProducer("chunkwise scripts/make-fixtures.ts");
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const mono = await doc.embedFont(StandardFonts.Courier);
  const [left, right, body, leading] = [60, 480, 11, 15];
  const fills = (line: string, x: number) => {
    const width = regular.widthOfTextAtSize(line, body);
    if (width > right - x || width < 0.85 * (right - x))
      throw new Error(`structured.pdf: "${line}" is ${width.toFixed(0)} pt wide, not a full line of ${right - x}`);
  };

  STRUCTURED_PAGES.forEach((blocks, index) => {
    const page = doc.addPage([595, 842]);
    const number = String(index + 1);
    page.drawText("Coastal Survey Handbook", { x: left, y: 806, size: 9, font: regular });
    page.drawText(number, { x: right - regular.widthOfTextAtSize(number, 9), y: 806, size: 9, font: regular });
    const footer = `Page ${number} of ${STRUCTURED_PAGES.length}`;
    page.drawText(footer, { x: (595 - regular.widthOfTextAtSize(footer, 9)) / 2, y: 30, size: 9, font: regular });

    let y = 770;
    for (const block of blocks) {
      if ("fixedAt" in block) {
        page.drawText(block.text, { x: left, y: block.fixedAt, size: block.size, font: regular });
      } else if ("heading" in block) {
        y -= 8;
        page.drawText(block.heading, { x: left, y, size: block.size, font: bold });
        y -= block.size + 12;
      } else if ("bold" in block) {
        page.drawText(block.bold, { x: left, y, size: body, font: bold });
        y -= leading;
      } else if ("paragraph" in block) {
        if (block.spaced === false) y += 12;
        block.paragraph.forEach((line, i) => {
          const x = i === 0 ? left + (block.indent ?? 0) : left;
          if (i < block.paragraph.length - 1) fills(line, x);
          page.drawText(line, { x, y, size: body, font: regular });
          y -= leading;
        });
        y -= 12;
      } else if ("items" in block) {
        for (const item of block.items) {
          const x = left + 12 + (item.level ?? 0) * 22;
          page.drawText(item.marker, { x, y, size: body, font: regular });
          item.lines.forEach((line, i) => {
            if (i < item.lines.length - 1) fills(line, x + 16);
            page.drawText(line, { x: x + 16, y, size: body, font: regular });
            y -= leading;
          });
        }
        y -= 12;
      } else {
        for (const line of block.code) {
          page.drawText(line, { x: left + 20, y, size: 10, font: mono });
          y -= 13;
        }
        y -= 12;
      }
    }
  });
  return doc.save({ useObjectStreams: false });
}

function wrap(text: string, width: (s: string) => number, max: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    const next = line ? `${line} ${word}` : word;
    if (line && width(next) > max) {
      lines.push(line);
      line = word;
    } else {
      line = next;
    }
  }
  if (line) lines.push(line);
  return lines;
}

async function makeDocx(): Promise<Uint8Array> {
  const cell = (text: string, bold = false) =>
    new TableCell({ children: [new Paragraph({ children: [new TextRun({ text, bold })] })] });
  const doc = new Document({
    creator: "chunkwise",
    title: "Quarterly field report",
    numbering: {
      config: [
        {
          reference: "steps",
          levels: [{ level: 0, format: LevelFormat.DECIMAL, text: "%1.", alignment: AlignmentType.START }],
        },
      ],
    },
    sections: [
      {
        children: [
          new Paragraph({ text: "Quarterly field report", heading: HeadingLevel.HEADING_1 }),
          new Paragraph({
            text: "This report summarises the survey work done on the estuary between April and June, and lists what the team needs before the autumn season.",
          }),
          new Paragraph({ text: "Sites visited", heading: HeadingLevel.HEADING_2 }),
          new Table({
            rows: [
              new TableRow({ children: [cell("Site", true), cell("Visits", true), cell("Species counted", true)] }),
              new TableRow({ children: [cell("North mudflat"), cell("6"), cell("14")] }),
              new TableRow({ children: [cell("Salt marsh"), cell("4"), cell("9")] }),
            ],
          }),
          new Paragraph({ text: "Equipment", heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: "Spotting scope with tripod", bullet: { level: 0 } }),
          new Paragraph({ text: "Waterproof notebooks", bullet: { level: 0 } }),
          new Paragraph({ text: "Tide tables for the season", bullet: { level: 0 } }),
          new Paragraph({ text: "Next steps", heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: "Order the replacement scope", numbering: { reference: "steps", level: 0 } }),
          new Paragraph({ text: "Train two new volunteers", numbering: { reference: "steps", level: 0 } }),
          new Paragraph({ text: "Publish the spring counts", numbering: { reference: "steps", level: 0 } }),
        ],
      },
    ],
  });
  return pinDates(new Uint8Array(await Packer.toBuffer(doc)));
}

/**
 * One table per case extraction must keep as a table: plain; a cell merged
 * across columns (gridSpan); a cell merged down rows (vMerge); a header row
 * repeated on each page (tblHeader); cells holding two paragraphs and a list.
 */
async function makeTablesDocx(): Promise<Uint8Array> {
  const cell = (text: string, options: { bold?: boolean; columnSpan?: number; rowSpan?: number } = {}) =>
    new TableCell({
      children: [new Paragraph({ children: [new TextRun({ text, bold: options.bold })] })],
      columnSpan: options.columnSpan,
      rowSpan: options.rowSpan,
    });
  const row = (...cells: TableCell[]) => new TableRow({ children: cells });
  const title = (text: string) => new Paragraph({ text, heading: HeadingLevel.HEADING_2 });
  const doc = new Document({
    creator: "chunkwise",
    title: "Tables of the estuary survey",
    sections: [
      {
        children: [
          new Paragraph({ text: "Tables of the estuary survey", heading: HeadingLevel.HEADING_1 }),
          title("Plain"),
          new Table({
            rows: [
              row(cell("Site"), cell("Visits"), cell("Species counted")),
              row(cell("North mudflat"), cell("6"), cell("14")),
              row(cell("Salt marsh"), cell("4"), cell("9")),
            ],
          }),
          title("Merged across columns"),
          new Table({
            rows: [
              row(cell("Region"), cell("Revenue (USD m)", { columnSpan: 2 })),
              row(cell(""), cell("2024"), cell("2025")),
              row(cell("North"), cell("120.4"), cell("131.9")),
              row(cell("South & coast"), cell("98.1"), cell("104.2")),
            ],
          }),
          title("Merged down rows"),
          new Table({
            rows: [
              row(cell("Season"), cell("Month"), cell("Count")),
              row(cell("Spring", { rowSpan: 2 }), cell("April"), cell("31")),
              row(cell("May"), cell("44")),
              row(cell("Summer"), cell("June"), cell("12")),
            ],
          }),
          title("Header row"),
          new Table({
            rows: [
              new TableRow({
                tableHeader: true,
                children: [cell("Species", { bold: true }), cell("Tally", { bold: true })],
              }),
              row(cell("Knot"), cell("212")),
              row(cell("Godwit"), cell("87")),
            ],
          }),
          title("Cells of several paragraphs"),
          new Table({
            rows: [
              row(cell("Task"), cell("Notes")),
              row(
                cell("Ring the birds"),
                new TableCell({
                  children: [
                    new Paragraph({ text: "Only at low tide." }),
                    new Paragraph({ text: "Two people per net." }),
                  ],
                }),
              ),
              row(
                cell("Pack"),
                new TableCell({
                  children: [
                    new Paragraph({ text: "Rings", bullet: { level: 0 } }),
                    new Paragraph({ text: "Pliers", bullet: { level: 0 } }),
                  ],
                }),
              ),
            ],
          }),
        ],
      },
    ],
  });
  return pinDates(new Uint8Array(await Packer.toBuffer(doc)));
}

/** docx stamps the current time into docProps/core.xml and every zip entry; pinned, regenerating changes nothing. */
function pinDates(docx: Uint8Array): Uint8Array {
  const parts = unzipSync(docx);
  const core = parts["docProps/core.xml"];
  if (core)
    parts["docProps/core.xml"] = strToU8(
      strFromU8(core).replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, FIXED_DATE.toISOString()),
    );
  return zipSync(parts, { level: 6, mtime: FIXED_DATE });
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;

/**
 * A docx whose word/document.xml unpacks to about `bytes`: paragraphs of one
 * long run of a single letter, because deflate only reaches its best ratio
 * (about 1000:1) on repeats at distance 1; repeated XML paragraphs give 300:1.
 */
function makeBombDocx(bytes: number): Uint8Array {
  const head = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`;
  const tail = `</w:body></w:document>`;
  const para = strToU8(`<w:p><w:r><w:t>${"A".repeat(1024 * 1024)}</w:t></w:r></w:p>`);
  const count = Math.max(1, Math.floor(bytes / para.length));
  const xml = new Uint8Array(head.length + count * para.length + tail.length);
  xml.set(strToU8(head), 0);
  for (let i = 0; i < count; i++) xml.set(para, head.length + i * para.length);
  xml.set(strToU8(tail), head.length + count * para.length);
  return zipSync(
    {
      "[Content_Types].xml": strToU8(CONTENT_TYPES),
      "_rels/.rels": strToU8(ROOT_RELS),
      "word/document.xml": xml,
    },
    { level: 9, mtime: FIXED_DATE },
  );
}

/** Rewrites the declared uncompressed size of `name` in both the local header and the central directory. */
function lieAboutSize(zip: Uint8Array, name: string, declared: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  let eocd = out.length - 22;
  while (eocd >= 0 && view.getUint32(eocd, true) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error("no end of central directory");
  const entries = view.getUint16(eocd + 10, true);
  let p = view.getUint32(eocd + 16, true);
  const wanted = new TextEncoder().encode(name);
  for (let i = 0; i < entries; i++) {
    const nameLen = view.getUint16(p + 28, true);
    const extraLen = view.getUint16(p + 30, true);
    const commentLen = view.getUint16(p + 32, true);
    const entryName = out.subarray(p + 46, p + 46 + nameLen);
    if (entryName.length === wanted.length && entryName.every((b, j) => b === wanted[j])) {
      view.setUint32(p + 24, declared, true);
      const local = view.getUint32(p + 42, true);
      view.setUint32(local + 22, declared, true);
      return out;
    }
    p += 46 + nameLen + extraLen + commentLen;
  }
  throw new Error(`${name} not in zip`);
}

/** Looks like a docx to a type sniffer ([Content_Types].xml names a Word main part) but has no word/document.xml. */
function makeBrokenDocx(): Uint8Array {
  return zipSync(
    {
      "[Content_Types].xml": strToU8(CONTENT_TYPES),
      "_rels/.rels": strToU8(ROOT_RELS),
      "word/styles.xml": strToU8(
        `<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>`,
      ),
    },
    { level: 6, mtime: FIXED_DATE },
  );
}

const HTML = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Tide gauge handbook</title>
  <style>body { font-family: sans-serif; } .stylemarker { color: red; }</style>
  <script>window.trackingPixel = "SCRIPTMARKER";</script>
</head>
<body>
  <nav><a href="/">Home</a> | <a href="/docs">NAVMARKER</a></nav>
  <noscript>NOSCRIPTMARKER</noscript>
  <main>
    <h1>Tide gauge handbook</h1>
    <p>A tide gauge records the height of the sea every few minutes. This page explains how to read ours.</p>
    <h2>Stations</h2>
    <table>
      <thead><tr><th>Station</th><th>Datum (m)</th><th>Since</th></tr></thead>
      <tbody>
        <tr><td>Harbour pier</td><td>2.41</td><td>1998</td></tr>
        <tr><td>River mouth</td><td>1.87</td><td>2007</td></tr>
      </tbody>
    </table>
    <h2>Before a reading</h2>
    <ul>
      <li>Check the battery level</li>
      <li>Clean the sensor well</li>
    </ul>
    <ol>
      <li>Open the logger</li>
      <li>Download the last week</li>
    </ol>
    <h2>Converting readings</h2>
    <pre><code class="language-python">def to_chart_datum(reading, datum):
    return reading - datum
</code></pre>
    <script>document.write("BODYSCRIPTMARKER");</script>
  </main>
</body>
</html>
`;

const MARKDOWN = `# Release checklist

Everything that has to happen before a tag is pushed.

## Commands

\`\`\`bash
npm run typecheck
npm test
\`\`\`

\`\`\`ts
export function bump(version: string): string {
  const [major, minor, patch] = version.split(".").map(Number);
  return \`\${major}.\${minor}.\${(patch ?? 0) + 1}\`;
}
\`\`\`

## Owners

| Step | Owner | Done |
|------|-------|------|
| Changelog | Ana | yes |
| Tag | Bo | no |

- Announce the release
- Close the milestone
`;

// Written for this project: ordinary prose, no spaces between words, as Chinese and Japanese are written.
const CJK = `# 海边的早晨

清晨五点，渔港还没有完全醒来。码头上的灯一盏一盏地熄灭，海面从深蓝慢慢变成灰白。几只海鸥在船桅之间盘旋，等待第一批归来的渔船。老陈已经在岸边站了半个小时，他说年轻时每天都是这样开始的，只是那时候港口里的船比现在多得多。

渔船靠岸以后，码头立刻热闹起来。有人搬鱼筐，有人喊价钱，冰块在水泥地上碎成一片。小孩子们跟在大人后面跑来跑去，偶尔捡起一只掉在地上的小螃蟹，又偷偷放回海里。空气里全是咸味和柴油的味道，可是住在这里的人早就习惯了。

到了七点，太阳终于从云层后面露出来。鱼市的生意做得差不多了，大家坐在小摊前喝一碗热豆浆，谈论今年的天气和鱼价。有人说台风季快到了，要早点把船修好；也有人说今年的带鱼特别肥，是个好年头。

中午以前，港口又安静下来。潮水开始退去，露出一大片泥滩，白鹭在浅水里慢慢地走，低头寻找小鱼。老陈收起折叠椅，沿着海堤走回家。他说明天还会再来，因为看海这件事，他一辈子也看不够。

# 山あいの小さな駅

その駅には一日に六本しか列車が止まらない。木造の駅舎は古く、待合室の壁には色あせた時刻表と、地元の小学生が描いた桜の絵が貼ってある。冬になると石油ストーブがたかれ、列車を待つ人たちはその周りに集まって静かに手を温める。

駅の前には小さな商店が一軒だけある。店主のおばあさんは毎朝六時に店を開け、通学する高校生にパンと牛乳を売る。学生たちは列車が来るまでの数分間、おばあさんと天気の話をしたり、試験の愚痴をこぼしたりする。おばあさんはいつも笑って聞いていて、最後に必ず「気をつけていってらっしゃい」と言う。

春になると、線路沿いの桜が一斉に咲き、写真を撮りに来る人が急に増える。普段は静かなホームに三脚がずらりと並び、列車が桜のトンネルを抜ける瞬間を待っている。地元の人たちは少し困ったような顔をしながらも、町を覚えてもらえるのはうれしいと話す。

夕方の最終列車が出ていくと、駅はふたたび静けさに包まれる。山の向こうに日が沈み、虫の声だけが聞こえてくる。明日の朝もまた、同じ時刻に同じ列車がやって来る。その当たり前のくり返しが、この町の暮らしを支えているのだと思う。
`;

const EMOJI = `Family chat log 👨‍👩‍👧‍👦

Mum 👩🏽‍💻: the build is green again ✅
Dad 👨🏿‍🍳: dinner at 7, bring 🥖🧀🍷
Kid 🧒🏻: can we go to 🇯🇵 or 🇫🇷 or 🇧🇷 next summer? ✈️🌍
Grandma 👵🏼: 👍🏾👍🏾👍🏾 love you all ❤️‍🔥
Rainbow flag 🏳️‍🌈, pirate flag 🏴‍☠️, Scotland 🏴󠁧󠁢󠁳󠁣󠁴󠁿
Couple with heart 👩🏻‍❤️‍👨🏾, handshake 🫱🏼‍🫲🏿, keycap 1️⃣ 2️⃣ #️⃣
The end 🎉🎉🎉
`;

const UTF16_TEXT = "Café menu — crème brûlée, Grüße aus München, 日本語のテキスト.\r\nSecond line with CRLF.\r\n";

function utf16le(s: string): Uint8Array {
  const out = new Uint8Array(2 + s.length * 2);
  out[0] = 0xff;
  out[1] = 0xfe;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out[2 + i * 2] = c & 0xff;
    out[3 + i * 2] = c >> 8;
  }
  return out;
}

function utf16be(s: string): Uint8Array {
  const le = utf16le(s);
  const out = new Uint8Array(le.length);
  for (let i = 0; i < le.length; i += 2) {
    out[i] = le[i + 1] ?? 0;
    out[i + 1] = le[i] ?? 0;
  }
  return out;
}

function invalidUtf8(): Uint8Array {
  const before = strToU8("This line is fine. Then comes a Latin-1 byte: caf");
  const after = strToU8(" and, further on, a stray continuation byte: ");
  // 0xE9 is "é" in Latin-1, a lone lead byte in UTF-8; 0x80 alone is a stray continuation byte.
  return concat(before, Uint8Array.of(0xe9), after, Uint8Array.of(0x80, 0x0a));
}

/**
 * The multipage PDF with bytes flipped in its middle: it opens, then fails
 * while pages are read, and pdf.js leaves a stray unhandled rejection behind
 * (the case the worker thread exists for).
 */
function garble(pdf: Uint8Array): Uint8Array {
  const out = pdf.slice();
  for (let i = 800; i < 2500 && i < out.length; i += 7) out[i] = (out[i] ?? 0) ^ 0x55;
  return out;
}

function corruptedPdf(): Uint8Array {
  const rand = mulberry32(42);
  const noise = Uint8Array.from({ length: 4096 }, () => Math.floor(rand() * 256));
  return concat(strToU8("%PDF-1.7\n"), noise);
}

function png(): Uint8Array {
  const chunk = (type: string, data: Uint8Array) => {
    const body = concat(strToU8(type), data);
    const out = new Uint8Array(8 + data.length + 4);
    const v = new DataView(out.buffer);
    v.setUint32(0, data.length);
    out.set(body, 4);
    v.setUint32(8 + data.length, crc32(body));
    return out;
  };
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, 1);
  v.setUint32(4, 1);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const pixel = Uint8Array.of(0, 0x2a, 0x7f, 0xff, 0xff); // filter byte + one RGBA pixel
  return concat(
    Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a),
    chunk("IHDR", ihdr),
    chunk("IDAT", zlibSync(pixel)),
    chunk("IEND", new Uint8Array(0)),
  );
}

/** A 1×1 transparent GIF, the smallest well-formed one: an image format OCR does not read. */
const GIF = Uint8Array.from(
  Buffer.from("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b", "hex"),
);

function crc32(data: Uint8Array): number {
  let c = ~0;
  for (const b of data) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const multipage = await makeMultipagePdf();
  const bomb = makeBombDocx(200 * 1024 * 1024);
  const files: Record<string, Uint8Array> = {
    "multipage.pdf": multipage,
    "truncated.pdf": multipage.slice(0, Math.floor(multipage.length / 2)),
    "corrupted.pdf": corruptedPdf(),
    "garbled.pdf": garble(multipage),
    "no-text.pdf": await makeNoTextPdf(),
    "repeated-pages.pdf": await makeRepeatedPagesPdf(false),
    "repeated-rotated-pages.pdf": await makeRepeatedPagesPdf(true),
    "encrypted.pdf": await makeEncryptedPdf(),
    "structured.pdf": await makeStructuredPdf(),
    "report.docx": await makeDocx(),
    "tables.docx": await makeTablesDocx(),
    "zip-bomb.docx": bomb,
    "zip-bomb-lying.docx": lieAboutSize(bomb, "word/document.xml", 4096),
    "broken.docx": makeBrokenDocx(),
    "page.html": strToU8(HTML),
    "notes.md": strToU8(MARKDOWN),
    "cjk.txt": strToU8(CJK),
    "emoji.txt": strToU8(EMOJI),
    "utf16le-bom.txt": utf16le(UTF16_TEXT),
    "utf16be-bom.txt": utf16be(UTF16_TEXT),
    "invalid-utf8.txt": invalidUtf8(),
    "image.png": png(),
    "image.gif": GIF,
  };
  for (const [name, bytes] of Object.entries(files)) {
    if (bytes.length > 300 * 1024) throw new Error(`${name} is ${bytes.length} bytes; fixtures stay under 300 KB`);
    writeFileSync(path.join(OUT, name), bytes);
    console.log(`${name.padEnd(22)} ${String(bytes.length).padStart(8)} bytes`);
  }
}

await main();
