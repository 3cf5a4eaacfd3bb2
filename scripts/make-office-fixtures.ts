/**
 * Writes tests/fixtures/formats/readings-5000.xlsx: a workbook no public
 * corpus had at this size (see tests/fixtures/README.md). Deterministic:
 * running it again rewrites the same bytes. `npx tsx scripts/make-office-fixtures.ts`
 *
 * Sheets: "Readings" (a header row and 5,000 rows of seeded station readings,
 * one column a formula with its cached value, one a date), "Summary" (a
 * title merged across four columns over a small table, a label merged down
 * two rows), "Lookup" (hidden), and an empty "Notes" sheet.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { strToU8, zipSync } from "fflate";

const STATIONS = ["Aberdeen", "Bergen", "Cork", "Dunedin", "Esbjerg", "Faro", "Galway", "Hobart"];

/** Mulberry32: a small seeded generator, so every run writes the same readings. */
function seeded(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${escape(text)}</t></is></c>`;
const number = (ref: string, value: number, style = 0) =>
  `<c r="${ref}"${style ? ` s="${style}"` : ""}><v>${value}</v></c>`;

function sheet(rows: string[], merges: string[] = []): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows.join("")}</sheetData>${
    merges.length
      ? `<mergeCells count="${merges.length}">${merges.map((m) => `<mergeCell ref="${m}"/>`).join("")}</mergeCells>`
      : ""
  }</worksheet>`;
}

const random = seeded(28);
const readings: string[] = [
  `<row r="1">${["Station", "Date", "Temperature (°C)", "Rainfall (mm)", "Temperature (°F)"].map((h, i) => inline(`${"ABCDE"[i]}1`, h)).join("")}</row>`,
];
for (let i = 0; i < 5000; i++) {
  const r = i + 2;
  const celsius = Math.round((random() * 30 - 5) * 10) / 10;
  const rain = Math.round(random() * 400) / 10;
  // 45292 is 2024-01-01 in Excel's 1900 date system.
  readings.push(
    `<row r="${r}">${inline(`A${r}`, STATIONS[i % STATIONS.length]!)}${number(`B${r}`, 45292 + Math.floor(i / STATIONS.length), 1)}${number(`C${r}`, celsius)}${number(`D${r}`, rain)}<c r="E${r}"><f>C${r}*9/5+32</f><v>${Math.round(((celsius * 9) / 5) * 100 + 3200) / 100}</v></c></row>`,
  );
}

const summary = sheet(
  [
    `<row r="1">${inline("A1", "Station readings, January 2024 onwards")}</row>`,
    `<row r="2">${inline("A2", "Region")}${inline("B2", "Station")}${inline("C2", "Readings")}${inline("D2", "Note")}</row>`,
    `<row r="3">${inline("A3", "North Sea")}${inline("B3", "Aberdeen")}${number("C3", 625)}${inline("D3", "coastal")}</row>`,
    `<row r="4">${inline("B4", "Esbjerg")}${number("C4", 625)}${inline("D4", "coastal | harbour")}</row>`,
    `<row r="5">${inline("A5", "Atlantic")}${inline("B5", "Galway")}${number("C5", 625)}${inline("D5", "west")}</row>`,
  ],
  ["A1:D1", "A3:A4"],
);

const workbook = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Summary" sheetId="1" r:id="rId1"/><sheet name="Readings" sheetId="2" r:id="rId2"/><sheet name="Lookup" sheetId="3" state="hidden" r:id="rId3"/><sheet name="Notes" sheetId="4" r:id="rId4"/></sheets></workbook>`;
const rel = (id: string, type: string, target: string) =>
  `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"/>`;
const files = {
  "[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${[1, 2, 3, 4].map((n) => `<Override PartName="/xl/worksheets/sheet${n}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join("")}<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`,
  "_rels/.rels": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rel("rId1", "officeDocument", "xl/workbook.xml")}</Relationships>`,
  "xl/workbook.xml": workbook,
  "xl/_rels/workbook.xml.rels": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${[1, 2, 3, 4].map((n) => rel(`rId${n}`, "worksheet", `worksheets/sheet${n}.xml`)).join("")}${rel("rId5", "styles", "styles.xml")}</Relationships>`,
  "xl/styles.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/></cellXfs></styleSheet>`,
  "xl/worksheets/sheet1.xml": summary,
  "xl/worksheets/sheet2.xml": sheet(readings),
  "xl/worksheets/sheet3.xml": sheet([`<row r="1">${inline("A1", "HIDDEN-LOOKUP-MARKER")}${number("B1", 1)}</row>`]),
  "xl/worksheets/sheet4.xml": sheet([]),
};
const zipped = zipSync(
  Object.fromEntries(
    Object.entries(files).map(([name, text]) => [
      name,
      [strToU8(text), { level: 6, mtime: new Date(Date.UTC(2026, 0, 1)) }],
    ]),
  ),
);
const out = path.join(process.cwd(), "tests/fixtures/formats/readings-5000.xlsx");
writeFileSync(out, zipped);
console.log(`${out}: ${zipped.length} bytes`);
