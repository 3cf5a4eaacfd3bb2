/**
 * `npm run eval`: chunk quality of our tiers against LangChain and Chonkie at
 * the same token budget, on annotated question/excerpt corpora and a
 * topic-segmentation set. Method and corpora: docs/eval.md.
 *
 *   npm run eval [-- --budgets 400,200,800] [--methods structure,langchain-recursive]
 *                [--corpora chroma,markdown,pdf,segmentation,ocr,layout,retrieval,formats,language] [--chroma-dir DIR]
 *                [--tables-dir DIR] [--layout-out DIR] [--no-docs]
 *   npm run eval -- --only language    (language detection on short chunks alone, in seconds)
 *
 * A full default run rewrites the results section of docs/eval.md. The exit
 * code is 0 whether or not the bars hold (this is a report), 1 if a method or
 * corpus failed.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "@/lib/ground/config";
import { CpuPool, extractStepsOnCpu } from "@/lib/cpu/pool";
import { createEmbedder } from "@/lib/embeddings";
import { CachedEmbedder } from "@/eval/cached-embedder";
import { loadChromaDev, missingChromaFiles, type QaDocument } from "@/eval/corpora";
import { evaluateMethod, segmentationScores } from "@/eval/evaluate";
import { type Method, createMethods, createSemanticVariants, createTopicBaselines } from "@/eval/methods";
import { chunkwiseReader, formatsSection, officeparserReader } from "@/eval/formats";
import { layoutSection } from "@/eval/layout";
import { retrievalScores, retrievalSection } from "@/eval/retrieval";
import { chunkwiseEngine, opendataloaderEngine, pdf2mdEngine } from "@/eval/layout-engines";
import { buildLayoutSet } from "@/eval/layout-set";
import { languageSection } from "@/eval/language";
import { ocrSection } from "@/eval/ocr";
import { loadOwnCorpora, scanSources, segmentationSources } from "@/eval/own-corpora";
import { type Row, barLines, bars, corpusTable, mainTable } from "@/eval/report";
import {
  CHOI_SET,
  DEFAULT_SEGMENTATION,
  type SegmentationSample,
  buildChoiSet,
  buildSegmentationSet,
  concatenatedSample,
} from "@/eval/segmentation";

const ROOT = path.resolve(import.meta.dirname, "..");
const DEFAULT_CHROMA_DIR = path.resolve(ROOT, "../shared/eval-data/chroma-dev");
const DEFAULT_TABLES_DIR = path.resolve(ROOT, "../shared/eval-data/tables-dev");
const DOCS = path.join(ROOT, "docs", "eval.md");
const MAIN_BUDGET = 400;
const DEFAULT_BUDGETS = [MAIN_BUDGET, 200, 800];
const CORPORA = [
  "chroma",
  "markdown",
  "pdf",
  "segmentation",
  "ocr",
  "layout",
  "retrieval",
  "formats",
  "language",
] as const;
const RESULTS_START = "<!-- results:start -->";
const RESULTS_END = "<!-- results:end -->";

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      budgets: { type: "string" },
      methods: { type: "string" },
      corpora: { type: "string" },
      "chroma-dir": { type: "string", default: DEFAULT_CHROMA_DIR },
      "tables-dir": { type: "string", default: DEFAULT_TABLES_DIR },
      "layout-out": { type: "string" },
      "no-docs": { type: "boolean", default: false },
      only: { type: "string" },
    },
  });
  if (values.only !== undefined) {
    if (values.only !== "language") throw new Error("--only: language is the one quick path");
    console.log(await languageSection());
    return 0;
  }
  const budgets = values.budgets ? values.budgets.split(",").map((b) => Number.parseInt(b, 10)) : DEFAULT_BUDGETS;
  if (budgets.some((b) => !Number.isInteger(b) || b < 32 || b > 8192))
    throw new Error("--budgets: integers between 32 and 8192");
  const corpora = values.corpora ? values.corpora.split(",") : [...CORPORA];
  const unknownCorpus = corpora.find((c) => !(CORPORA as readonly string[]).includes(c));
  if (unknownCorpus) throw new Error(`--corpora: unknown ${unknownCorpus}; known: ${CORPORA.join(", ")}`);

  // The chroma-dev data lives beside the repository (../shared/eval-data), not in it: without it the
  // in-repository corpora are still measured, and the report says what was left out.
  const missing = missingChromaFiles(values["chroma-dir"]);
  const chromaDir = missing.length === 0 ? values["chroma-dir"] : null;
  if (!chromaDir) {
    const what = `the chroma-dev data is not at ${values["chroma-dir"]} (missing: ${missing.join(", ")})`;
    if (values.corpora?.split(",").some((c) => c === "chroma" || c === "layout")) {
      console.error(`npm run eval: ${what}; pass --chroma-dir DIR, or leave chroma and layout out of --corpora.`);
      return 2;
    }
    console.error(
      `npm run eval: ${what}. Left out: the chroma corpus, its articles and chats in the segmentation set, and the layout set; ` +
        "pass --chroma-dir DIR to include them. docs/eval.md is not rewritten.",
    );
  }

  // The layout set's tables live beside the repository too.
  const tablesDir = fs.existsSync(values["tables-dir"]) ? values["tables-dir"] : null;
  if (corpora.includes("layout") && !tablesDir) {
    if (values.corpora?.split(",").includes("layout")) {
      console.error(`npm run eval: the tables-dev data is not at ${values["tables-dir"]}; pass --tables-dir DIR.`);
      return 2;
    }
    console.error(
      `npm run eval: the tables-dev data is not at ${values["tables-dir"]}. Left out: the layout set; ` +
        "pass --tables-dir DIR to include it. docs/eval.md is not rewritten.",
    );
  }

  const started = performance.now();
  const config = loadConfig();
  // The built-in model whatever the environment says: the evaluation needs no network.
  const embedder = new CachedEmbedder(createEmbedder({ kind: "local" }));
  const allMethods = createMethods(embedder);
  const methods = values.methods
    ? values.methods.split(",").map((id) => {
        const m = allMethods.find((x) => x.id === id);
        if (!m) throw new Error(`--methods: unknown ${id}; known: ${allMethods.map((x) => x.id).join(", ")}`);
        return m;
      })
    : allMethods;

  // The retrieval measure asks the questions of the annotated corpora: it loads them without scoring chunk quality.
  const qualityCorpora = corpora.some((c) => ["chroma", "markdown", "pdf", "segmentation"].includes(c));
  const retrievalOnly = corpora.includes("retrieval") && !qualityCorpora;
  const documents: QaDocument[] = [];
  if ((corpora.includes("chroma") || retrievalOnly) && chromaDir)
    documents.push(...(await loadChromaDev(chromaDir, config.limits)));
  const own = await loadOwnCorpora(config.limits, {
    markdown: corpora.includes("markdown") || retrievalOnly,
    pdf: corpora.includes("pdf") || retrievalOnly,
  });
  documents.push(...own);
  let samples: SegmentationSample[] = [];
  let choi: SegmentationSample[] = [];
  if (corpora.includes("segmentation")) {
    const sources = segmentationSources(chromaDir);
    samples = await buildSegmentationSet(sources, DEFAULT_SEGMENTATION, config.limits);
    choi = await buildChoiSet(sources, CHOI_SET, config.limits);
  }
  const excerptCount = documents.reduce((n, d) => n + d.excerpts.length, 0);
  const corpusLine =
    `${documents.length} annotated documents (${[...new Set(documents.map((d) => d.corpus))].join(", ")}), ${excerptCount} excerpts; ` +
    `${samples.length} segmentation samples (${samples.reduce((n, s) => n + s.boundaries.length + 1, 0)} sections)`;
  console.log(corpusLine);

  const sections: string[] = [];
  let failed = false;
  // Budgets of chunk quality only when there is something to chunk (not for --corpora ocr,layout alone).
  for (const budget of qualityCorpora && (documents.length > 0 || samples.length > 0) ? budgets : []) {
    const rows: Row[] = [];
    for (const method of methods) {
      try {
        const scores = await evaluateMethod(method, budget, documents, samples);
        rows.push({ id: method.id, label: method.label(), outcome: { kind: "scores", scores } });
        console.error(`  ${budget} ${method.id}: ${scores.seconds.toFixed(1)} s`);
      } catch (error) {
        failed = true;
        console.error(`ERROR ${method.id} at ${budget} tokens:`, error);
        rows.push({
          id: method.id,
          label: method.label(),
          outcome: { kind: "error", message: error instanceof Error ? error.message : String(error) },
        });
      }
    }
    let section = `### max_tokens ${budget}, overlap 0\n\n${mainTable(rows)}\n`;
    if (budget === MAIN_BUDGET) {
      section += `\nPer corpus:\n\n${corpusTable(rows)}\n`;
      section += `\nBars (issue 4):\n\n${barLines(bars(rows))}\n`;
    }
    console.log(`\n${section}`);
    sections.push(section);
  }

  const variants = createSemanticVariants(embedder);
  const topicBaselines = createTopicBaselines();
  // On samples of ~10,000 characters the tier itself has the model read every sentence.
  const baselines = [...variants.filter((v) => v.id !== "semantic-all"), ...topicBaselines];
  if (samples.length > 0) {
    const segmentationBudgets = [config.chunking.defaultMaxTokens, 256, 1024];
    const segmenters = [...methods.filter((m) => SEGMENTATION_METHODS.has(m.id)), ...baselines];
    const section = await topicSegmentationSection(
      segmenters,
      [
        { name: "mixed-length set", samples },
        { name: "Choi-style set", samples: choi },
      ],
      segmentationBudgets,
    );
    console.log(`\n${section}`);
    sections.push(section);

    const long = [
      { name: "mixed-length set", samples: [await concatenatedSample("mixed-long", samples, "\n\n", config.limits)] },
      { name: "Choi-style set", samples: [await concatenatedSample("choi-long", choi, "\n", config.limits)] },
    ];
    const longSection = await topicSegmentationSection(
      [
        ...methods.filter((m) => LONG_SEGMENTATION_METHODS.has(m.id)),
        ...variants,
        ...topicBaselines.filter((m) => m.id === "texttiling"),
      ],
      long,
      segmentationBudgets,
      {
        title: "Topic segmentation of long documents",
        intro:
          `Each set's samples joined into one document (${long.map((s) => `${s.name}: ${s.samples[0]!.extracted.text.length.toLocaleString("en")} characters`).join("; ")}): ` +
          "the semantic tier reads documents this long by word overlap alone; the rows below force the model to read every sentence or every other. " +
          "C99 (quadratic in sentences) and Chonkie's SemanticChunker (minutes) are left out.",
      },
    );
    console.log(`\n${longSection}`);
    sections.push(longSection);
  }

  // The service's limits, but for OCR: the scanned corpora are read whole, however many pages.
  const scanLimits = {
    maxUnpackedBytes: config.limits.maxUnpackedBytes,
    markup: config.limits.markup,
    maxChars: config.limits.maxCharsPerRequest,
    maxPages: config.limits.maxPagesPerRequest,
    maxOcrPages: 1000,
    timeoutMs: 600_000,
    maxEmailDepth: config.limits.maxEmailDepth,
    maxSheetCells: config.limits.maxSheetCells,
  };

  if (corpora.includes("retrieval") && documents.length > 0) {
    const scores = await retrievalScores(documents, ["free", "structure", "semantic"], MAIN_BUDGET, embedder);
    const section = retrievalSection(scores, MAIN_BUDGET, embedder.id);
    console.log(`\n${section}`);
    sections.push(section);
  }

  if (corpora.includes("ocr")) {
    const pool = new CpuPool({ threads: 2, queue: 16, taskTimeoutMs: 600_000, heapMb: 1024 });
    try {
      const steps = extractStepsOnCpu(pool, ["eng"]);
      const section = await ocrSection(await scanSources(), scanLimits, steps, MAIN_BUDGET, { embedder });
      console.log(`\n${section}`);
      sections.push(section);
    } finally {
      await pool.close();
    }
  }

  if (corpora.includes("layout") && chromaDir && tablesDir) {
    const layoutSet = buildLayoutSet(path.join(chromaDir, "wikitexts.md"), tablesDir);
    const pool = new CpuPool({ threads: 2, queue: 16, taskTimeoutMs: 600_000, heapMb: 1024 });
    try {
      const engines = [
        chunkwiseEngine(scanLimits, extractStepsOnCpu(pool, ["eng"])),
        opendataloaderEngine,
        pdf2mdEngine,
      ];
      const layout = await layoutSection(layoutSet, engines, MAIN_BUDGET, { embedder }, values["layout-out"]);
      if (layout.failed.length) failed = true;
      console.log(`\n${layout.section}`);
      sections.push(layout.section);
    } finally {
      await pool.close();
    }
  }

  if (corpora.includes("formats")) {
    // Every format fixture against officeparser (`npm run eval -- --corpora formats`: seconds), read as a synchronous
    // request is: OCR up to its page limit (an e-mail's scanned attachment).
    const section = await formatsSection([
      chunkwiseReader({
        ...scanLimits,
        maxOcrPages: config.ocr.syncMaxPages,
        timeoutMs: config.limits.extractTimeoutMs,
      }),
      officeparserReader,
    ]);
    console.log(`\n${section}`);
    sections.push(section);
  }

  if (corpora.includes("language")) {
    const section = await languageSection();
    console.log(`\n${section}`);
    sections.push(section);
  }

  const seconds = (performance.now() - started) / 1000;
  const methodNotes = [...methods, ...(samples.length > 0 ? [...variants, ...topicBaselines] : [])]
    .map((m) => `- **${m.label()}**: ${m.note}`)
    .join("\n");
  const isFullRun =
    !values.budgets &&
    !values.methods &&
    !values.corpora &&
    values["chroma-dir"] === DEFAULT_CHROMA_DIR &&
    values["tables-dir"] === DEFAULT_TABLES_DIR &&
    tablesDir !== null &&
    chromaDir !== null;
  const results =
    `Measured ${new Date().toISOString().slice(0, 10)} with node ${process.version}; \`npm run eval\` took ${seconds.toFixed(0)} s.\n` +
    `Data: ${corpusLine}.\n\n${methodNotes}\n\n${sections.join("\n")}`;
  console.log(`npm run eval: ${seconds.toFixed(1)} s`);
  if (isFullRun && !values["no-docs"] && !failed) {
    const docs = fs.readFileSync(DOCS, "utf8");
    const from = docs.indexOf(RESULTS_START);
    const to = docs.indexOf(RESULTS_END);
    if (from === -1 || to < from) throw new Error(`${DOCS}: missing ${RESULTS_START} / ${RESULTS_END} markers`);
    fs.writeFileSync(DOCS, `${docs.slice(0, from + RESULTS_START.length)}\n${results}\n${docs.slice(to)}`);
    console.log(`results written to ${path.relative(ROOT, DOCS)}`);
  }
  return failed ? 1 : 0;
}

/** Methods scored in the topic-segmentation sections besides the baselines. */
const SEGMENTATION_METHODS = new Set(["semantic", "fixed", "chonkie-semantic"]);
const LONG_SEGMENTATION_METHODS = new Set(["semantic", "fixed"]);
/**
 * Pk / WindowDiff of each method on each set at each budget (the service's default first), and, unless a
 * title is given, the bar of issue 13: the semantic tier's Pk at the default at most half of TextTiling's.
 */
async function topicSegmentationSection(
  methods: Method[],
  sets: { name: string; samples: SegmentationSample[] }[],
  budgets: number[],
  heading?: { title: string; intro: string },
): Promise<string> {
  const columns = sets.flatMap((set) => budgets.map((budget) => ({ set, budget })));
  const pct = (x: number) => (x * 100).toFixed(1);
  const scores = new Map<string, { pk: number; windowDiff: number }[]>();
  for (const method of methods) {
    const row: { pk: number; windowDiff: number }[] = [];
    for (const { set, budget } of columns) {
      const started = performance.now();
      row.push(await segmentationScores(method, budget, set.samples));
      console.error(
        `  segmentation ${set.name} ${budget} ${method.id}: ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    }
    scores.set(method.id, row);
  }
  const header = `| method | ${columns.map((c) => `${c.set.name}, ${c.budget}`).join(" | ")} |`;
  const rule = `|---|${columns.map(() => "---").join("|")}|`;
  const rows = methods.map(
    (m) =>
      `| ${m.label()} | ${scores
        .get(m.id)!
        .map((s) => `${pct(s.pk)} / ${pct(s.windowDiff)}`)
        .join(" | ")} |`,
  );
  const bars = sets.map((set) => {
    const k = columns.findIndex((c) => c.set === set && c.budget === budgets[0]);
    const semantic = scores.get("semantic")?.[k]?.pk;
    const tiling = scores.get("texttiling")?.[k]?.pk;
    if (semantic === undefined || tiling === undefined) return `- n/a  ${set.name}: semantic or TextTiling not run`;
    return `- ${semantic <= tiling / 2 ? "PASS" : "FAIL"}  ${set.name}, max_tokens ${budgets[0]}: semantic Pk ${pct(semantic)} at most half of TextTiling's ${pct(tiling)}`;
  });
  const table = [header, rule, ...rows].join("\n");
  if (heading) return `### ${heading.title} (Pk / WindowDiff, %, lower is better)\n\n${heading.intro}\n\n${table}\n`;
  const counts = sets.map((s) => `${s.name}: ${s.samples.length} samples`).join("; ");
  return (
    `### Topic segmentation (Pk / WindowDiff, %, lower is better)\n\n${counts}. TextTiling and C99 ignore max_tokens.\n\n` +
    `${table}\n\nBars (issue 13):\n\n${bars.join("\n")}\n`
  );
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
