import fs from "node:fs";
import path from "node:path";
import { chunkExtracted, type MethodContext } from "@/lib/pipeline/chunk-result";
import type { Chunk } from "@/lib/chunking/types";
import type { Extracted } from "@/lib/extract/types";
import { countTokens } from "@/lib/tokens";
import type { Engine, EngineOutput, LayoutFile } from "./layout-engines";
import {
  type ParsedTable,
  listItems,
  listItemsFound,
  markdownTables,
  mhs,
  nid,
  normalizeWords,
  normalizedLevenshtein,
  teds,
} from "./layout-metrics";
import { pageCount, printAll, scanOf } from "./layout-render";
import type { LayoutDocument, TableStyle } from "./layout-set";

/**
 * The evaluation's "Layout" section: the layout set (eval/layout-set.ts)
 * printed by Chromium, some of it scanned, converted by each engine, and
 * scored against the ground truth with opendataloader-bench's metrics (NID,
 * TEDS, MHS; eval/layout-metrics.ts), list items recovered, and tables kept
 * whole by our structure tier at 400 tokens.
 */

/** Which documents are also scanned: every genre, table style and both layouts (see the set's rotation). */
export const SCANNED = (n: number) => n % 9 === 0 || n % 9 === 4;

interface Subject {
  id: string;
  doc: LayoutDocument;
  scan: boolean;
  file: LayoutFile;
}

export interface DocScores {
  nid: number | null;
  nidS: number | null;
  teds: number | null;
  tedsS: number | null;
  mhs: number | null;
  mhsS: number | null;
  listTotal: number;
  listFound: number;
  tablesTotal: number;
  tablesWhole: number;
  seconds: number;
  pages: number;
  failed: boolean;
}

const RULED: readonly TableStyle[] = ["grid", "booktabs"];
const UNRULED: readonly TableStyle[] = ["none", "zebra"];

export const SUBSETS: { id: string; label: string; has: (s: Subject) => boolean }[] = [
  { id: "text", label: "text PDFs", has: (s) => !s.scan },
  { id: "1col", label: "one column", has: (s) => !s.scan && s.doc.columns === 1 },
  { id: "2col", label: "two columns", has: (s) => !s.scan && s.doc.columns === 2 },
  { id: "ruled", label: "ruled (grid, booktabs)", has: (s) => !s.scan && RULED.includes(s.doc.tableStyle) },
  { id: "rule", label: "rule under header", has: (s) => !s.scan && s.doc.tableStyle === "header-rule" },
  { id: "unruled", label: "unruled (none, zebra)", has: (s) => !s.scan && UNRULED.includes(s.doc.tableStyle) },
  { id: "scans", label: "scans (200 dpi)", has: (s) => s.scan },
];

// ---------------------------------------------------------------------------
// Tables whole at the chunk budget
// ---------------------------------------------------------------------------

const rowKey = (cells: { text: string }[]) => normalizeWords(cells.map((c) => c.text).join(" "));

/** The output table holding the most of a true table's body rows (a row matches at most 20% edit distance), and that share. */
function matchTable(truth: ParsedTable, output: ParsedTable[]): { table: ParsedTable; share: number } | null {
  const body = truth.rows.filter((r) => !r.every((c) => c.header)).map(rowKey);
  if (body.length === 0) return null;
  let best: { table: ParsedTable; share: number } | null = null;
  for (const table of output) {
    const keys = table.rows.map(rowKey);
    const found = body.filter((row) => keys.some((k) => normalizedLevenshtein(row, k) <= 0.2)).length;
    if (!best || found / body.length > best.share) best = { table, share: found / body.length };
  }
  return best;
}

/**
 * Whether a true table survives chunking whole: the engine output it as one
 * table (holding at least 90% of its body rows), and either one chunk holds
 * all of that table, or the table is longer than the budget, no row is cut,
 * and every chunk after the first that carries rows starts its piece with the
 * header row.
 */
export function tableWhole(
  truth: ParsedTable,
  outputTables: ParsedTable[],
  text: string,
  chunks: Chunk[],
  maxTokens: number,
): boolean {
  const match = matchTable(truth, outputTables);
  if (!match || match.share < 0.9) return false;
  const { table } = match;
  const within = (r: { start: number; end: number }) =>
    chunks.findIndex((c) => c.metadata.start <= r.start && r.end <= c.metadata.end);
  if (within(table) !== -1) return true;
  if (countTokens(text.slice(table.start, table.end)) <= maxTokens) return false;
  const homes = table.rowRanges.map(within);
  if (homes.some((h) => h === -1)) return false;
  const header = text.slice(table.rowRanges[0]!.start, table.rowRanges[0]!.end).trim();
  const later = [...new Set(homes)].filter((h) => h !== homes[0]);
  return later.every((h) => chunks[h]!.text.includes(header));
}

// ---------------------------------------------------------------------------
// Scoring one engine's output for one document
// ---------------------------------------------------------------------------

async function score(
  subject: Subject,
  output: EngineOutput,
  maxTokens: number,
  context: MethodContext,
): Promise<DocScores> {
  const truth = subject.doc.markdown;
  const md = output.markdown;
  const reading = nid(truth, md);
  const truthTables = markdownTables(truth);
  const outTables = markdownTables(md);
  const headings = mhs(truth, md);
  const truthItems = listItems(truth);
  let tablesWhole = 0;
  if (truthTables.length && md.trim()) {
    // Chunkwise's own result as the API chunks it; a peer's Markdown as a Markdown upload.
    const extracted: Extracted = output.extracted ?? {
      kind: "markdown",
      mediaType: "text/markdown",
      text: md,
      pageCount: subject.file.pages,
    };
    const { chunks } = await chunkExtracted(extracted, "structure", { maxTokens, overlapTokens: 0 }, context);
    const tables = output.extracted ? markdownTables(extracted.text) : outTables;
    tablesWhole = truthTables.filter((t) => tableWhole(t, tables, extracted.text, chunks, maxTokens)).length;
  }
  return {
    nid: reading?.nid ?? null,
    nidS: reading?.nidS ?? null,
    teds: teds(truthTables, outTables),
    tedsS: teds(truthTables, outTables, true),
    mhs: headings?.mhs ?? null,
    mhsS: headings?.mhsS ?? null,
    listTotal: truthItems.length,
    listFound: listItemsFound(truthItems, listItems(md)),
    tablesTotal: truthTables.length,
    tablesWhole,
    seconds: output.seconds,
    pages: subject.file.pages,
    failed: output.error !== undefined,
  };
}

// ---------------------------------------------------------------------------
// The section
// ---------------------------------------------------------------------------

const BARS = {
  teds: 0.9,
  mhs: 0.8,
  nid: 0.93,
  lists: 0.95,
  tables: 0.95,
};

type Metric = {
  id: string;
  label: string;
  value: (scores: DocScores[]) => number | null;
  format: (x: number) => string;
  bar?: number;
};

const mean = (xs: (number | null)[]) => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
};
const share = (found: number, total: number) => (total ? found / total : null);
const f3 = (x: number) => x.toFixed(3);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

type Count = "listFound" | "listTotal" | "tablesWhole" | "tablesTotal" | "seconds" | "pages";

/** One count summed over documents, over another. */
const ratio = (scores: DocScores[], part: Count, whole: Count) =>
  share(
    scores.reduce((n, x) => n + x[part], 0),
    scores.reduce((n, x) => n + x[whole], 0),
  );

const METRICS: Metric[] = [
  { id: "nid", label: "NID", value: (s) => mean(s.map((x) => x.nid)), format: f3, bar: BARS.nid },
  { id: "nid-s", label: "NID-S (tables left out)", value: (s) => mean(s.map((x) => x.nidS)), format: f3 },
  { id: "teds", label: "TEDS", value: (s) => mean(s.map((x) => x.teds)), format: f3, bar: BARS.teds },
  { id: "teds-s", label: "TEDS-S (structure only)", value: (s) => mean(s.map((x) => x.tedsS)), format: f3 },
  { id: "mhs", label: "MHS", value: (s) => mean(s.map((x) => x.mhs)), format: f3, bar: BARS.mhs },
  { id: "mhs-s", label: "MHS-S (structure only)", value: (s) => mean(s.map((x) => x.mhsS)), format: f3 },
  {
    id: "lists",
    label: "list items recovered",
    value: (s) => ratio(s, "listFound", "listTotal"),
    format: pct,
    bar: BARS.lists,
  },
  {
    id: "tables",
    label: "tables whole at 400 tokens",
    value: (s) => ratio(s, "tablesWhole", "tablesTotal"),
    format: pct,
    bar: BARS.tables,
  },
  {
    id: "speed",
    label: "seconds per page",
    value: (s) => ratio(s, "seconds", "pages"),
    format: (x) => x.toFixed(3),
  },
];

export interface LayoutRun {
  section: string;
  /** Engines that failed on every file, or threw. */
  failed: string[];
}

export async function layoutSection(
  documents: LayoutDocument[],
  engines: Engine[],
  maxTokens: number,
  context: MethodContext,
  /** Where to write each file's PDF, ground truth and every engine's Markdown, to look at. */
  outDir?: string,
): Promise<LayoutRun> {
  const started = performance.now();
  const printed = await printAll(documents);
  const subjects: Subject[] = [];
  for (const [n, doc] of documents.entries()) {
    const pdf = printed.get(doc.id)!;
    const pages = await pageCount(pdf);
    const group = `${doc.columns}col-${doc.tableStyle}`;
    subjects.push({ id: doc.id, doc, scan: false, file: { id: doc.id, pdf, pages, group } });
    if (SCANNED(n)) {
      const scan = await scanOf(pdf);
      subjects.push({
        id: `${doc.id} (scan)`,
        doc,
        scan: true,
        file: { id: `${doc.id}-scan`, pdf: scan, pages, group: "scans" },
      });
    }
  }
  const buildSeconds = (performance.now() - started) / 1000;
  const save = (name: string, data: string | Uint8Array) => {
    if (!outDir) return;
    fs.mkdirSync(outDir, { recursive: true });
    fs.writeFileSync(path.join(outDir, name), data);
  };
  for (const s of subjects) {
    save(`${s.file.id}.pdf`, s.file.pdf);
    if (!s.scan) save(`${s.file.id}.truth.md`, s.doc.markdown);
  }
  console.error(
    `  layout: ${documents.length} documents printed, ${subjects.filter((s) => s.scan).length} scanned in ${buildSeconds.toFixed(1)} s`,
  );

  const scores = new Map<string, DocScores[]>();
  const failed: string[] = [];
  const failures: string[] = [];
  for (const engine of engines) {
    const t = performance.now();
    let outputs: Map<string, EngineOutput>;
    try {
      outputs = await engine.convert(subjects.map((s) => s.file));
    } catch (error) {
      failed.push(engine.id);
      console.error(`ERROR layout ${engine.id}:`, error);
      continue;
    }
    const list: DocScores[] = [];
    for (const subject of subjects) {
      const output = outputs.get(subject.file.id) ?? { markdown: "", seconds: 0, error: "no output" };
      if (output.error) failures.push(`${engine.label} on ${subject.id}: ${output.error}`);
      save(`${subject.file.id}.${engine.id}.md`, output.markdown);
      list.push(await score(subject, output, maxTokens, context));
    }
    scores.set(engine.id, list);
    console.error(`  layout ${engine.id}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }

  const measured = engines.filter((e) => scores.has(e.id));
  const pages = (has: Subject["scan"]) => subjects.filter((s) => s.scan === has).reduce((n, s) => n + s.file.pages, 0);
  const tables = (pick: (s: Subject) => boolean) => subjects.filter(pick).reduce((n, s) => n + s.doc.tables, 0);
  const lines: string[] = [
    "### Layout (PDF structure, issue 25)",
    "",
    `${documents.length} documents printed by Chromium (${pages(false)} pages, ${tables((s) => !s.scan)} tables, ` +
      `${subjects.filter((s) => !s.scan).reduce((n, s) => n + s.doc.listItems.length, 0)} list items), ` +
      `${subjects.filter((s) => s.scan).length} of them also as 200-dpi scans (${pages(true)} pages). ` +
      `Means over documents (NID, TEDS, MHS; a document without a table or a heading has no TEDS or MHS), ` +
      `shares over items and tables, seconds per page over all pages of the subset. ` +
      `Built in ${buildSeconds.toFixed(0)} s; the section took ${((performance.now() - started) / 1000).toFixed(0)} s.`,
    "",
    ...measured.map((e) => `- **${e.label}**: ${e.note}`),
    "",
  ];
  const header = `| engine | ${SUBSETS.map((s) => s.label).join(" | ")} |`;
  const rule = `| --- | ${SUBSETS.map(() => "---:").join(" | ")} |`;
  const counts = `| documents | ${SUBSETS.map((s) => subjects.filter(s.has).length).join(" | ")} |`;
  for (const metric of METRICS) {
    lines.push(`${metric.label}${metric.bar !== undefined ? ` (target >= ${metric.format(metric.bar)})` : ""}:`, "");
    lines.push(header, rule);
    if (metric.id === "nid") lines.push(counts);
    for (const engine of measured) {
      const list = scores.get(engine.id)!;
      const cells = SUBSETS.map((subset) => {
        const value = metric.value(list.filter((_, i) => subset.has(subjects[i]!)));
        return value === null ? "n/a" : metric.format(value);
      });
      lines.push(`| ${engine.label} | ${cells.join(" | ")} |`);
    }
    lines.push("");
  }
  const chunkwise = scores.get("chunkwise");
  if (chunkwise) {
    lines.push("Bars (issue 25), Chunkwise on the text PDFs:", "");
    const text = chunkwise.filter((_, i) => !subjects[i]!.scan);
    for (const metric of METRICS.filter((m) => m.bar !== undefined)) {
      const value = metric.value(text);
      lines.push(
        `- ${value !== null && value >= metric.bar! ? "PASS" : "FAIL"}  ${metric.label} >= ${metric.format(metric.bar!)} (${value === null ? "n/a" : metric.format(value)})`,
      );
    }
    lines.push("");
  }
  if (failures.length) {
    lines.push(`Files an engine failed on (scored as empty output): ${failures.length}.`, "");
    lines.push(...failures.slice(0, 12).map((f) => `- ${f}`));
    if (failures.length > 12) lines.push(`- ... and ${failures.length - 12} more`);
    lines.push("");
  }
  return { section: lines.join("\n"), failed };
}
