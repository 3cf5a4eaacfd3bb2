import fs from "node:fs";
import path from "node:path";
import { OfficeParser } from "officeparser";
import { extract, type ExtractLimits } from "@/lib/extract";

/**
 * The formats section of `npm run eval`: for every fixture in
 * tests/fixtures/formats that has a reference text beside it
 * (`<fixture>.ref.txt`, written by eval/formats/make-references.py with
 * readers independent of ours), how much of it Chunkwise recovers and how much
 * a peer a JS user would pick (officeparser, Markdown output) recovers from
 * the same bytes.
 *
 * - words: the reference's words (letters and digits, lower-cased) found in
 *   the output, each counted as often as the reference has it.
 * - tables whole: reference tables all of whose rows are found whole, each
 *   row's cells in order on one line of the output.
 *
 * Fixtures are found by directory, so any format's fixtures added with a
 * reference are scored (the extension names the format).
 */
export const FORMATS_DIR = path.resolve(import.meta.dirname, "../tests/fixtures/formats");

export interface Reader {
  id: string;
  label: string;
  read: (bytes: Uint8Array, filename: string) => Promise<string>;
}

export const chunkwiseReader = (limits: ExtractLimits): Reader => ({
  id: "chunkwise",
  label: "Chunkwise",
  read: async (bytes, filename) => (await extract(bytes, { filename }, limits)).text,
});

/** officeparser reads formats without magic bytes (CSV, and TSV through its CSV reader) only when told the type. */
export const officeparserReader: Reader = {
  id: "officeparser",
  label: "officeparser 8 (Markdown)",
  read: async (bytes, filename) => {
    const ext = path.extname(filename).slice(1).toLowerCase();
    const ast = await OfficeParser.parseOffice(
      Buffer.from(bytes),
      ext === "csv" || ext === "tsv" ? { fileType: "csv" } : undefined,
    );
    return String((await ast.to("markdown")).value);
  },
};

export interface Fixture {
  name: string;
  format: string;
  bytes: Uint8Array;
  reference: string;
}

export function formatFixtures(dir = FORMATS_DIR): Fixture[] {
  return fs
    .readdirSync(dir)
    .filter((name) => !name.endsWith(".ref.txt") && fs.existsSync(path.join(dir, `${name}.ref.txt`)))
    .sort()
    .map((name) => ({
      name,
      format: path.extname(name).slice(1).toLowerCase(),
      bytes: new Uint8Array(fs.readFileSync(path.join(dir, name))),
      reference: fs.readFileSync(path.join(dir, `${name}.ref.txt`), "utf8"),
    }));
}

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** The share of the reference's words found in `output`, as a multiset. */
export function wordRecall(reference: string, output: string): number {
  const found = new Map<string, number>();
  for (const w of words(output)) found.set(w, (found.get(w) ?? 0) + 1);
  const wanted = words(reference);
  if (wanted.length === 0) return 1;
  let hit = 0;
  for (const w of wanted) {
    const left = found.get(w) ?? 0;
    if (left > 0) {
      hit++;
      found.set(w, left - 1);
    }
  }
  return hit / wanted.length;
}

/** The reference's tables: runs of lines "|<TAB>cell<TAB>cell". */
export function referenceTables(reference: string): string[][][] {
  const tables: string[][][] = [];
  let current: string[][] = [];
  for (const line of reference.split("\n")) {
    if (line.startsWith("|\t")) current.push(line.slice(2).split("\t"));
    else if (current.length) {
      tables.push(current);
      current = [];
    }
  }
  if (current.length) tables.push(current);
  return tables;
}

const squash = (text: string) => text.replace(/\\\|/g, "|").replace(/\s+/g, " ").trim();

/** Tables whose every row has its cells, in order, on one line of `output`. */
export function tablesWhole(reference: string, output: string): { whole: number; tables: number } {
  const lines = output.split("\n").map(squash);
  const tables = referenceTables(reference);
  const rowWhole = (row: string[]) => {
    const cells = row.map(squash).filter(Boolean);
    return lines.some((line) => {
      let at = 0;
      for (const cell of cells) {
        const found = line.indexOf(cell, at);
        if (found === -1) return false;
        at = found + cell.length;
      }
      return true;
    });
  };
  return { whole: tables.filter((table) => table.every(rowWhole)).length, tables: tables.length };
}

interface Score {
  words: number;
  whole: number;
  tables: number;
  error?: string;
}

async function score(reader: Reader, fixture: Fixture): Promise<Score> {
  try {
    const output = await reader.read(fixture.bytes, fixture.name);
    return { words: wordRecall(fixture.reference, output), ...tablesWhole(fixture.reference, output) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { words: 0, whole: 0, tables: referenceTables(fixture.reference).length, error: message };
  }
}

const percent = (x: number) => `${(x * 100).toFixed(1)}%`;

export async function formatsSection(readers: Reader[], fixtures = formatFixtures()): Promise<string> {
  const rows: string[] = [];
  const totals = new Map<string, Map<string, { words: number; n: number; whole: number; tables: number }>>();
  for (const fixture of fixtures) {
    const cells: string[] = [];
    for (const reader of readers) {
      const s = await score(reader, fixture);
      cells.push(s.error ? `failed (${s.error.slice(0, 60)})` : `${percent(s.words)}, ${s.whole}/${s.tables}`);
      const byFormat = totals.get(fixture.format) ?? new Map();
      totals.set(fixture.format, byFormat);
      const t = byFormat.get(reader.id) ?? { words: 0, n: 0, whole: 0, tables: 0 };
      byFormat.set(reader.id, {
        words: t.words + s.words,
        n: t.n + 1,
        whole: t.whole + s.whole,
        tables: t.tables + s.tables,
      });
    }
    rows.push(`| ${fixture.name} | ${cells.join(" | ")} |`);
  }
  const header = `| fixture | ${readers.map((r) => `${r.label}: words, tables whole`).join(" | ")} |`;
  const rule = `| --- | ${readers.map(() => "---").join(" | ")} |`;
  const summary = [...totals.entries()].map(
    ([format, byReader]) =>
      `| ${format} (${byReader.get(readers[0]!.id)!.n}) | ${readers
        .map((r) => {
          const t = byReader.get(r.id)!;
          return `${percent(t.words / t.n)}, ${t.whole}/${t.tables}`;
        })
        .join(" | ")} |`,
  );
  return [
    "### Formats: text and tables recovered",
    "",
    "Per fixture in tests/fixtures/formats with a reference text (eval/formats/make-references.py: openpyxl for XLSX, odfpy for ODS and ODP, Python's csv module for CSV/TSV, LibreOffice's PPTX import read by odfpy for PPTX; scripts/make-format-references.py: pandoc for EPUB/ODT/RTF, Python's email package for EML, msgconvert then email for MSG). Words: the reference's words found in the output (multiset recall). Tables whole: reference tables all of whose rows appear with their cells in order on one output line.",
    "",
    "By format (mean words; tables whole / tables):",
    "",
    `| format (fixtures) | ${readers.map((r) => r.label).join(" | ")} |`,
    `| --- | ${readers.map(() => "---").join(" | ")} |`,
    ...summary,
    "",
    "Per fixture:",
    "",
    header,
    rule,
    ...rows,
    "",
  ].join("\n");
}
