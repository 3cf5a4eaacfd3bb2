/**
 * `npm run bench`: throughput of the free tier's recursive splitter against
 * LangChain's RecursiveCharacterTextSplitter and Chonkie's RecursiveChunker,
 * on ~1 MB and ~10 MB of real text, in one run; then the structure and
 * semantic tiers (through chunkExtracted, whatever method they have
 * registered; semantic with the built-in model, which reads at most ~40 KB
 * of a document and leaves larger ones to word overlap) beside LangChain's
 * MarkdownTextSplitter and Chonkie's SemanticChunker on the same texts
 * (given the same model, which it runs on every sentence: timed on a 50 KB
 * sample).
 *
 * Like with like: every token-sized splitter gets the same budget (512 tokens,
 * 64 overlap) and an exact o200k counter. LangChain sized by characters is a
 * reference line only. Each splitter first runs over warm-up text for a couple
 * of seconds (so V8 has finished optimising it); then, before every timed run, its
 * caches (ours, gpt-tokenizer's) are cleared and it runs once more over the
 * warm-up text, which the timed texts do not contain: every run starts like a
 * server that has seen some other documents, not this one. A second line for
 * ours times it with its cache emptied instead (a fresh process). Reported
 * times are medians of up to nine runs: single runs of ~50 ms vary by ±30% on
 * a shared VM.
 *
 * The corpus is built deterministically from files already on disk (no
 * network) and cached under bench/data/ (gitignored): Markdown, text and
 * licence files from node_modules, TypeScript's translated diagnostic
 * messages (13 languages, CJK included), the tests' WikiText and chat excerpts, and, to make
 * up 10 MB, TypeScript declaration files (code with doc comments). Paragraphs
 * seen before are dropped, so boilerplate repeated across packages (MIT
 * licences) appears once.
 *
 * `npx tsx scripts/bench.ts --only "chunkwise recursive"` runs the lines whose
 * names hold the string (here: the recursive splitter in each tokenizer).
 *
 * One script over 300 lines on purpose: one benchmark, read top to bottom.
 */
import { chunkExtracted } from "@/lib/pipeline/chunk-result";
import { mulberry32 } from "../tests/helpers/random";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { RecursiveChunker, SemanticChunker } from "@chonkiejs/core";
import {
  clearMergeCache,
  countTokens as gptCountTokens,
  decode as gptDecode,
  encode as gptEncode,
} from "gpt-tokenizer/encoding/o200k_base";
import { getEncoding } from "js-tiktoken";
import { splitRecursive } from "@/lib/chunking/recursive";
import { createEmbedder } from "@/lib/embeddings";
import type { Embedder } from "@/lib/embeddings/types";
import type { Extracted } from "@/lib/extract/types";
import { TIERS, type TierId } from "@/lib/tiers";
import { type TokenizerName, clearTokenCache, countTokens, loadTokenizer } from "@/lib/tokens";

const MAX_TOKENS = 512;
const OVERLAP_TOKENS = 64;
/** LangChain by characters: the same budget at ~4 characters per token. */
const CHARS_PER_TOKEN = 4;
const SIZES = [
  { label: "1MB", bytes: 1_000_000 },
  { label: "10MB", bytes: 10_000_000 },
] as const;
const WARMUP_BYTES = 300_000;
/**
 * LangChain with tiktoken runs at ~0.1-0.3 MB/s; past this, 10 MB is
 * extrapolated from 1 MB instead of timed, which keeps the whole run under
 * three minutes on a busy two-core machine.
 */
const SLOW_RUN_LIMIT_S = 25;
/** Timed runs per splitter and size: up to MAX_RUNS while they fit in RUN_BUDGET_S; the median is reported. */
const MAX_RUNS = 9;
const RUN_BUDGET_S = 8;
/**
 * Before a splitter's first timed run, passes over the warm-up text until
 * JIT_WARMUP_S have gone by (at least JIT_WARMUP_MIN_PASSES): V8 needs several
 * megabytes of work to finish optimising a fast splitter.
 */
const JIT_WARMUP_S = 2;
const JIT_WARMUP_MIN_PASSES = 3;
const JIT_WARMUP_MAX_PASSES = 50;

const ROOT = path.resolve(import.meta.dirname, "..");
const DATA_DIR = path.join(ROOT, "bench", "data");
/** The WikiText and chat-log excerpts the tests use (origin and licence in tests/fixtures/README.md). */
const VENDORED_TEXT = ["wikitext-excerpt.md", "chatlogs-excerpt.md"].map((name) =>
  path.join(ROOT, "tests", "fixtures", name),
);

// ---------------------------------------------------------------------------
// Corpus
// ---------------------------------------------------------------------------

function walk(dir: string, out: string[]): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== ".bin" && entry.name !== ".cache") walk(full, out);
    } else if (entry.isFile()) out.push(full);
  }
}

const isProse = (file: string) =>
  /\.(md|markdown|txt|rst)$/i.test(file) ||
  /^(readme|license|licence|changelog|history|notice|authors)$/i.test(path.basename(file));

/** Documents in a fixed order: prose first, then declaration files to make up the volume. */
function sourceDocuments(): string[] {
  const files: string[] = [];
  walk(path.join(ROOT, "node_modules"), files);
  const docs: string[] = [];
  for (const file of VENDORED_TEXT) docs.push(fs.readFileSync(file, "utf8"));
  for (const file of files) if (isProse(file)) docs.push(fs.readFileSync(file, "utf8"));
  for (const file of files) {
    if (!/typescript\/lib\/[^/]+\/diagnosticMessages\.generated\.json$/.test(file)) continue;
    const messages = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, string>;
    docs.push(Object.values(messages).join("\n\n"));
  }
  for (const file of files) if (file.endsWith(".d.ts")) docs.push(fs.readFileSync(file, "utf8"));
  return docs;
}

/**
 * Sections of at most ~32 KB, shuffled, so that the 1 MB prefix mixes the
 * same kinds of text as the 10 MB; no paragraph of more than 60 characters
 * twice.
 */
function buildCorpus(): string[] {
  const seenParagraphs = new Set<string>();
  const seenDocs = new Set<string>();
  const sections: string[] = [];
  let total = 0;
  const needed = SIZES[SIZES.length - 1]!.bytes + WARMUP_BYTES;
  for (const doc of sourceDocuments()) {
    if (total > needed * 1.05) break;
    if (doc.includes("\u0000")) continue;
    const hash = createHash("sha1").update(doc).digest("hex");
    if (seenDocs.has(hash)) continue;
    seenDocs.add(hash);
    let section: string[] = [];
    let sectionLength = 0;
    const flush = () => {
      if (sectionLength > 200) {
        const text = section.join("\n\n");
        sections.push(text);
        total += Buffer.byteLength(text);
      }
      section = [];
      sectionLength = 0;
    };
    for (const paragraph of doc.replace(/\r\n?/g, "\n").split(/\n[^\S\n]*\n/)) {
      const key = paragraph.trim();
      if (!key) continue;
      if (key.length > 60) {
        if (seenParagraphs.has(key)) continue;
        seenParagraphs.add(key);
      }
      section.push(paragraph);
      sectionLength += paragraph.length;
      if (sectionLength > 32_000) flush();
    }
    flush();
  }
  const next = mulberry32(20240611);
  for (let i = sections.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [sections[i], sections[j]] = [sections[j]!, sections[i]!];
  }
  return sections;
}

/** Whole sections up to `bytes` (the last one cut at a line break), plus where it stopped. */
function take(sections: string[], from: number, bytes: number): { text: string; next: number } {
  const parts: string[] = [];
  let size = 0;
  let i = from;
  for (; i < sections.length && size < bytes; i++) {
    let section = sections[i]!;
    const room = bytes - size;
    if (Buffer.byteLength(section) > room) {
      const cut = section.lastIndexOf("\n", Math.floor(room * 0.9));
      section = section.slice(0, Math.max(cut, 0));
    }
    parts.push(section);
    size += Buffer.byteLength(section) + 2;
  }
  return { text: parts.join("\n\n"), next: i };
}

function loadTexts(): { warmup: string; sized: Array<{ label: string; text: string }> } {
  const files = [...SIZES.map((s) => `corpus-${s.label.toLowerCase()}.txt`), "warmup.txt"].map((f) =>
    path.join(DATA_DIR, f),
  );
  if (!files.every((f) => fs.existsSync(f))) {
    console.log("Building the corpus under bench/data/ ...");
    const sections = buildCorpus();
    const largest = take(sections, 0, SIZES[SIZES.length - 1]!.bytes);
    // Smaller sizes are prefixes of the largest: the same mix of text.
    fs.mkdirSync(DATA_DIR, { recursive: true });
    SIZES.forEach((size, i) => {
      const text = i === SIZES.length - 1 ? largest.text : take(sections, 0, size.bytes).text;
      fs.writeFileSync(files[i]!, text);
    });
    // Warm-up text comes from sections the timed texts do not contain.
    fs.writeFileSync(files[SIZES.length]!, take(sections, largest.next, WARMUP_BYTES).text);
  }
  const read = (f: string) => fs.readFileSync(f, "utf8");
  return {
    warmup: read(files[SIZES.length]!),
    sized: SIZES.map((s, i) => ({ label: s.label, text: read(files[i]!) })),
  };
}

// ---------------------------------------------------------------------------
// Splitters
// ---------------------------------------------------------------------------

interface Runner {
  name: string;
  /** What the budget counts, for the table's footnotes. */
  note: string;
  /** Forgets whatever the splitter's tokenizer cached. */
  reset: () => void;
  /** Starts the timed run with empty caches instead of warm-up-seeded ones: a fresh process. */
  coldCache?: boolean;
  /** Not a splitter: a reference line, without chunk statistics. */
  reference?: boolean;
  /** What its budget is measured in, for the over-budget count (o200k_base when absent). */
  tokenizer?: TokenizerName;
  /**
   * Embeds every sentence with the built-in model (minutes a megabyte): timed
   * once on the first this many bytes of the 1 MB text, after one small
   * warm-up, and its time scaled to both sizes.
   */
  sampleBytes?: number;
  run: (text: string) => Promise<string[]>;
}

const tiktoken = getEncoding("o200k_base");
/** Special-token strings in the corpus are counted as text, as `countTokens` does. */
const tiktokenLength = (text: string) => tiktoken.encode(text, [], []).length;
const gptCount = (text: string) => gptCountTokens(text, { disallowedSpecial: new Set() });

/** The bench texts as an upload of Markdown would extract (they are Markdown, text and code). */
const asExtracted = (text: string): Extracted => ({
  kind: "markdown",
  mediaType: "text/markdown",
  text,
  pageCount: Math.max(1, Math.ceil(text.length / 3000)),
});

async function makeRunners(embedder: Embedder): Promise<Runner[]> {
  await Promise.all([loadTokenizer("cl100k_base"), loadTokenizer("llama3")]);
  const { MarkdownTextSplitter, RecursiveCharacterTextSplitter } = await import("@langchain/textsplitters");
  const langchainTokens = new RecursiveCharacterTextSplitter({
    chunkSize: MAX_TOKENS,
    chunkOverlap: OVERLAP_TOKENS,
    lengthFunction: tiktokenLength,
  });
  const langchainChars = new RecursiveCharacterTextSplitter({
    chunkSize: MAX_TOKENS * CHARS_PER_TOKEN,
    chunkOverlap: OVERLAP_TOKENS * CHARS_PER_TOKEN,
  });
  // Chonkie takes any object with the Tokenizer's methods; gpt-tokenizer's
  // countTokens is the fastest exact o200k counter available to it.
  const chonkie = await RecursiveChunker.create({
    chunkSize: MAX_TOKENS,
    tokenizer: {
      countTokens: gptCount,
      encode: (text: string) => gptEncode(text, { disallowedSpecial: new Set() }),
      decode: (tokens: number[]) => gptDecode(tokens),
      decodeBatch: (batch: number[][]) => batch.map((tokens) => gptDecode(tokens)),
    },
  });
  const langchainMarkdown = new MarkdownTextSplitter({
    chunkSize: MAX_TOKENS,
    chunkOverlap: OVERLAP_TOKENS,
    lengthFunction: tiktokenLength,
  });
  const chonkieSemantic = await SemanticChunker.create({
    chunkSize: MAX_TOKENS,
    embeddings: async (texts: string[]) => (await embedder.embed(texts)).map((v) => Array.from(v)),
    tokenizer: {
      countTokens: gptCount,
      encode: (text: string) => gptEncode(text, { disallowedSpecial: new Set() }),
      decode: (tokens: number[]) => gptDecode(tokens),
      decodeBatch: (batch: number[][]) => batch.map((tokens) => gptDecode(tokens)),
    },
  });
  // The API's core, as a request would run it.
  const tier = (id: TierId) => async (text: string) =>
    (
      await chunkExtracted(
        asExtracted(text),
        id,
        { maxTokens: MAX_TOKENS, overlapTokens: OVERLAP_TOKENS },
        { embedder },
      )
    ).chunks.map((c) => c.text);
  // Chunk texts are materialised like the others return them.
  const chunkwise = async (text: string) =>
    splitRecursive(text, { maxTokens: MAX_TOKENS, overlapTokens: OVERLAP_TOKENS }).map((s) =>
      text.slice(s.start, s.end),
    );
  return [
    {
      name: "chunkwise recursive",
      note: "exact o200k tokens (lib/tokens/), overlap 64",
      reset: clearTokenCache,
      run: chunkwise,
    },
    // The other tokenizers (request option `tokenizer`): the same splitter, its sizes in each.
    ...(["cl100k_base", "llama3"] as const).map((tokenizer): Runner => ({
      name: `chunkwise recursive, ${tokenizer}`,
      note: `the same in exact ${tokenizer} tokens (lib/tokens/tokenizers.ts), overlap 64`,
      reset: clearTokenCache,
      tokenizer,
      run: async (text) =>
        splitRecursive(text, { maxTokens: MAX_TOKENS, overlapTokens: OVERLAP_TOKENS, tokenizer }).map((s) =>
          text.slice(s.start, s.end),
        ),
    })),
    {
      name: "chunkwise, empty cache",
      note: "the same, its pre-token cache emptied right before the timed run (a fresh process; worst case)",
      reset: clearTokenCache,
      coldCache: true,
      run: chunkwise,
    },
    {
      name: "langchain tokens",
      note: "RecursiveCharacterTextSplitter, lengthFunction = js-tiktoken o200k_base encode().length, overlap 64",
      reset: () => {},
      run: (text) => langchainTokens.splitText(text),
    },
    {
      name: "langchain chars",
      note: `RecursiveCharacterTextSplitter sized in characters (${MAX_TOKENS * CHARS_PER_TOKEN}, overlap ${OVERLAP_TOKENS * CHARS_PER_TOKEN}); reference only`,
      reset: () => {},
      run: (text) => langchainChars.splitText(text),
    },
    {
      name: "chonkie recursive",
      note: "RecursiveChunker with gpt-tokenizer o200k countTokens; Chonkie has no overlap and sums piece counts",
      reset: clearMergeCache,
      run: async (text) => (await chonkie.chunk(text)).map((c) => c.text),
    },
    {
      name: "chunkwise structure",
      note: `the structure tier through chunkExtracted (method: ${TIERS.structure.runningMethod}), overlap 64`,
      reset: clearTokenCache,
      run: tier("structure"),
    },
    {
      name: "chunkwise semantic",
      note: `the semantic tier through chunkExtracted (method: ${TIERS.semantic.runningMethod}, embedder ${embedder.id}), overlap 64`,
      reset: clearTokenCache,
      run: tier("semantic"),
    },
    {
      name: "langchain markdown",
      note: "MarkdownTextSplitter, lengthFunction = js-tiktoken o200k_base encode().length, overlap 64",
      reset: () => {},
      run: (text) => langchainMarkdown.splitText(text),
    },
    {
      name: "chonkie semantic",
      note: `SemanticChunker with gpt-tokenizer o200k and our embedder (${embedder.id}); its defaults otherwise, no overlap; timed on the first 50 KB`,
      reset: clearMergeCache,
      sampleBytes: 50_000,
      run: async (text) => (await chonkieSemantic.chunk(text)).map((c) => c.text),
    },
    {
      name: "gpt-tokenizer countTokens",
      note: "reference: counting the whole text once with gpt-tokenizer (o200k), no splitting",
      reset: clearMergeCache,
      reference: true,
      run: async (text) => {
        gptCount(text);
        return [];
      },
    },
  ];
}

// ---------------------------------------------------------------------------
// Timing and report
// ---------------------------------------------------------------------------

interface Result {
  splitter: string;
  size: string;
  megabytes: number;
  /** Median of `runs` timed runs. */
  seconds: number;
  runs: number;
  chunks: number;
  overBudget: number;
  extrapolated: boolean;
}

async function timeOnce(runner: Runner, text: string, warmup: string): Promise<{ seconds: number; chunks: string[] }> {
  // Warm-up right before every timed run, also because a splitter's compiled
  // code can be flushed while the others run for seconds.
  runner.reset();
  await runner.run(warmup);
  if (runner.coldCache) runner.reset();
  const started = performance.now();
  const chunks = await runner.run(text);
  return { seconds: (performance.now() - started) / 1000, chunks };
}

/** The median of several runs while they stay within a time budget: single runs of ~50 ms are noisy on a shared VM. */
async function time(
  runner: Runner,
  text: string,
  warmup: string,
): Promise<{ seconds: number; runs: number; chunks: string[] }> {
  const first = await timeOnce(runner, text, warmup);
  const times = [first.seconds];
  const runs = Math.max(1, Math.min(MAX_RUNS, Math.floor(RUN_BUDGET_S / first.seconds)));
  while (times.length < runs) times.push((await timeOnce(runner, text, warmup)).seconds);
  times.sort((x, y) => x - y);
  return { seconds: times[(times.length - 1) >> 1]!, runs: times.length, chunks: first.chunks };
}

const pad = (value: string, width: number) =>
  value.length >= width ? value : value + " ".repeat(width - value.length);
const padLeft = (value: string, width: number) =>
  value.length >= width ? value : " ".repeat(width - value.length) + value;

async function main(): Promise<void> {
  const { warmup, sized } = loadTexts();
  // The built-in embedder whatever the environment says: the bench needs no network.
  const all = await makeRunners(createEmbedder({ kind: "local" }));
  // `--only chunkwise` (a substring of splitter names): a quick run of some lines, e.g. the tokenizers'.
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
  const runners = only ? all.filter((r) => r.name.includes(only)) : all;
  console.log(
    `node ${process.version}; budget ${MAX_TOKENS} tokens, overlap ${OVERLAP_TOKENS}; texts: ` +
      sized.map((s) => `${s.label} = ${(Buffer.byteLength(s.text) / 1e6).toFixed(2)} MB`).join(", "),
  );

  const results: Result[] = [];
  for (const runner of runners) {
    if (runner.sampleBytes) {
      await runner.run(warmup.slice(0, 5_000));
      const sample = sized[0]!.text.slice(0, runner.sampleBytes);
      const started = performance.now();
      await runner.run(sample);
      const secondsPerMb = (performance.now() - started) / 1000 / (Buffer.byteLength(sample) / 1e6);
      for (const { label, text } of sized) {
        const megabytes = Buffer.byteLength(text) / 1e6;
        const seconds = secondsPerMb * megabytes;
        results.push({
          splitter: runner.name,
          size: label,
          megabytes,
          seconds,
          runs: 1,
          chunks: Number.NaN,
          overBudget: Number.NaN,
          extrapolated: true,
        });
        console.log(`  ${runner.name} ${label}: ~${seconds.toFixed(1)} s (from ${runner.sampleBytes / 1000} KB)`);
      }
      continue;
    }
    const warmupStarted = performance.now();
    for (let pass = 0; pass < JIT_WARMUP_MAX_PASSES; pass++) {
      if (pass >= JIT_WARMUP_MIN_PASSES && performance.now() - warmupStarted > JIT_WARMUP_S * 1000) break;
      await runner.run(warmup);
    }
    for (const { label, text } of sized) {
      const megabytes = Buffer.byteLength(text) / 1e6;
      const previous = results.find((r) => r.splitter === runner.name);
      if (previous && (previous.seconds / previous.megabytes) * megabytes > SLOW_RUN_LIMIT_S) {
        results.push({
          splitter: runner.name,
          size: label,
          megabytes,
          seconds: (previous.seconds / previous.megabytes) * megabytes,
          runs: 0,
          chunks: Number.NaN,
          overBudget: Number.NaN,
          extrapolated: true,
        });
        continue;
      }
      const { seconds, runs, chunks } = await time(runner, text, warmup);
      // Not timed: how many chunks exceed the budget by an exact count.
      const overBudget = runner.reference
        ? Number.NaN
        : chunks.filter((c) => countTokens(c, runner.tokenizer) > MAX_TOKENS).length;
      const chunkCount = runner.reference ? Number.NaN : chunks.length;
      results.push({
        splitter: runner.name,
        size: label,
        megabytes,
        seconds,
        runs,
        chunks: chunkCount,
        overBudget,
        extrapolated: false,
      });
      console.log(`  ${runner.name} ${label}: ${seconds.toFixed(3)} s (median of ${runs})`);
    }
  }

  const rate = (r: Result | undefined) => (r ? r.megabytes / r.seconds : Number.NaN);
  const find = (name: string, size: string) => results.find((r) => r.splitter === name && r.size === size);
  const header = [
    "splitter",
    "size",
    "seconds",
    "runs",
    "MB/s",
    "chunks",
    ">512 tok",
    "x langchain-tok",
    "x langchain-md",
    "x chonkie",
  ];
  const widths = [26, 5, 8, 4, 7, 7, 8, 15, 14, 9];
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 2 ? pad(c, widths[i]!) : padLeft(c, widths[i]!))).join("  ");
  console.log("");
  console.log(line(header));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const r of results) {
    const mbps = rate(r);
    const vsLangchain = mbps / rate(find("langchain tokens", r.size));
    const vsLangchainMarkdown = mbps / rate(find("langchain markdown", r.size));
    const vsChonkie = mbps / rate(find("chonkie recursive", r.size));
    console.log(
      line([
        r.splitter,
        r.size,
        (r.extrapolated ? "~" : "") + r.seconds.toFixed(3),
        r.extrapolated ? "-" : String(r.runs),
        mbps.toFixed(2),
        Number.isNaN(r.chunks) ? "-" : String(r.chunks),
        Number.isNaN(r.overBudget) ? "-" : String(r.overBudget),
        vsLangchain.toFixed(1) + "x",
        vsLangchainMarkdown.toFixed(1) + "x",
        vsChonkie.toFixed(2) + "x",
      ]),
    );
  }
  const ours1 = rate(find("chunkwise recursive", "1MB"));
  const ours10 = rate(find("chunkwise recursive", "10MB"));
  console.log("");
  console.log(`linearity: chunkwise 10MB/1MB throughput = ${(ours10 / ours1).toFixed(2)} (1.00 = perfectly linear)`);
  for (const runner of runners) console.log(`  ${pad(runner.name, 26)} ${runner.note}`);
  if (results.some((r) => r.extrapolated))
    console.log(
      `  ~ = extrapolated from the 1MB run (or the sample named above), assuming linear throughput (a timed run would exceed ${SLOW_RUN_LIMIT_S} s)`,
    );
}

await main();
