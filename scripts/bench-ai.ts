/**
 * `npm run bench` (third part): the AI tiers against a slow model.
 *
 *   tsx scripts/bench-ai.ts [--delay-ms 2000] [--runs 200]
 *
 * 1. A 200-page ai-pro job (a PDF made with pdf-lib: chapters and numbered
 *    sections of varied prose) with the model stand-in answering every call
 *    after `--delay-ms`, at the default AI_PRO_CONCURRENCY: wall time from
 *    the job's creation to `completed`, and where it goes (phases seen in the
 *    job's status, rounds of concurrent calls).
 * 2. The ai tier (sync) on the same document, same delay.
 * 3. Job creation (`startJob`, what POST /chunk/ai-pro does after the
 *    payment gate) `--runs` times, with the 200-page PDF and a small text, on
 *    the memory store and a real redis-server; the work is not scheduled.
 *
 * In process: services from `createServices` on the memory store, `schedule`
 * running the job detached. No payment is made: the job is created with
 * `startJob` directly, with a placeholder payment (the payment gate's own
 * cost is what scripts/bench-payment.ts measures). Multipart parsing of the
 * upload is not counted either.
 *
 * The stand-in runs in a child process (scripts/model-standin.ts), so its
 * rule-based answers take no CPU from the service's event loop, as a hosted
 * model's would not.
 *
 * One script over 300 lines on purpose: one benchmark, read top to bottom.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { wrap } from "@/eval/pdf-fixture";
import { z } from "zod";
import { mulberry32 } from "../tests/helpers/random";
import { startRedisServer } from "../tests/helpers/redis-server";
import { type Config, loadConfig } from "@/lib/ground/config";
import { startJob } from "@/lib/jobs/runner";
import { jobStatus } from "@/lib/jobs/status";
import { buildResult, extractDocument, loaded, resolveOptions } from "@/lib/pipeline/chunk-result";
import { type Services, createServices } from "@/lib/services";

const ROOT = join(import.meta.dirname, "..");
const PAGES = 200;
/** What the spec says the service this replaces takes for a large ai-pro document. */
const REPLACED_SECONDS = [60, 120] as const;
const BAR_SECONDS = 20;
const CREATION_BAR_MS = 100;
const WARMUP_RUNS = 10;

const Args = z.object({
  delayMs: z.coerce.number().int().min(0).max(600_000),
  runs: z.coerce.number().int().min(10).max(10_000),
});

// ---------------------------------------------------------------------------
// The document: chapters of varied prose with numbered sections, rendered to exactly PAGES pages
// ---------------------------------------------------------------------------

const TOPICS: Array<{ title: string; words: string[] }> = [
  {
    title: "Water and Irrigation",
    words: [
      "irrigation",
      "aquifer",
      "canal",
      "drainage",
      "salinity",
      "rainfall",
      "reservoir",
      "runoff",
      "groundwater",
      "sluice",
      "pump",
      "wetland",
    ],
  },
  {
    title: "Railway Signalling",
    words: [
      "signal",
      "interlocking",
      "track circuit",
      "points",
      "block section",
      "timetable",
      "locomotive",
      "junction",
      "gradient",
      "platform",
      "siding",
      "axle counter",
    ],
  },
  {
    title: "Bread and Fermentation",
    words: [
      "dough",
      "yeast",
      "starter",
      "gluten",
      "proofing",
      "crumb",
      "crust",
      "hydration",
      "flour",
      "oven",
      "rye",
      "levain",
    ],
  },
  {
    title: "Coastal Erosion",
    words: [
      "shoreline",
      "dune",
      "groyne",
      "tide",
      "sediment",
      "cliff",
      "storm surge",
      "breakwater",
      "estuary",
      "longshore drift",
      "seawall",
      "salt marsh",
    ],
  },
  {
    title: "Medieval Manuscripts",
    words: [
      "scribe",
      "parchment",
      "vellum",
      "illumination",
      "scriptorium",
      "binding",
      "marginalia",
      "codex",
      "quire",
      "rubric",
      "palimpsest",
      "ink",
    ],
  },
  {
    title: "Beekeeping",
    words: [
      "hive",
      "colony",
      "queen",
      "brood",
      "nectar",
      "pollen",
      "swarm",
      "comb",
      "drone",
      "varroa mite",
      "honey flow",
      "apiary",
    ],
  },
  {
    title: "Power Grid Operations",
    words: [
      "substation",
      "transformer",
      "frequency",
      "load",
      "feeder",
      "transmission line",
      "inverter",
      "reserve",
      "outage",
      "dispatch",
      "voltage",
      "breaker",
    ],
  },
  {
    title: "Orchard Management",
    words: [
      "rootstock",
      "grafting",
      "pruning",
      "blossom",
      "frost",
      "canopy",
      "thinning",
      "harvest",
      "orchard",
      "scab",
      "pollinator",
      "cultivar",
    ],
  },
  {
    title: "Bridge Inspection",
    words: [
      "girder",
      "bearing",
      "abutment",
      "corrosion",
      "deck",
      "pier",
      "fatigue crack",
      "expansion joint",
      "load rating",
      "scour",
      "rivet",
      "truss",
    ],
  },
  {
    title: "Choral Singing",
    words: [
      "soprano",
      "alto",
      "tenor",
      "bass",
      "rehearsal",
      "harmony",
      "conductor",
      "breath",
      "phrasing",
      "anthem",
      "score",
      "tuning",
    ],
  },
  {
    title: "Glacier Monitoring",
    words: [
      "glacier",
      "moraine",
      "crevasse",
      "ablation",
      "firn",
      "meltwater",
      "ice core",
      "terminus",
      "snowline",
      "mass balance",
      "calving",
      "cirque",
    ],
  },
  {
    title: "Public Libraries",
    words: [
      "catalogue",
      "lending",
      "reading room",
      "archive",
      "librarian",
      "periodical",
      "shelf",
      "borrower",
      "reference desk",
      "collection",
      "branch",
      "loan",
    ],
  },
];
const VERBS = [
  "shapes",
  "limits",
  "depends on",
  "changes",
  "records",
  "reveals",
  "supports",
  "follows",
  "reduces",
  "extends",
  "protects",
  "explains",
];
const QUALIFIERS = [
  "in most seasons",
  "over the long term",
  "when conditions change",
  "across the region",
  "during the first phase",
  "according to the survey",
  "in older sites",
  "with few exceptions",
  "at the smaller sites",
  "after careful review",
];
const PEOPLE = [
  "Dr Amara Lindqvist",
  "Prof Tomas Reyes",
  "Dr Helen Achterberg",
  "Prof Kofi Mensah",
  "Dr Ines Carvalho",
  "Dr Ravi Natarajan",
];
const PLACES = [
  "London",
  "Nairobi",
  "Oslo",
  "Lisbon",
  "Toronto",
  "Melbourne",
  "Warsaw",
  "Edinburgh",
  "Zurich",
  "Seoul",
];
const ORGS = [
  "the Northern Survey Institute",
  "the Coastal Research Council",
  "Meridian Analytics Ltd",
  "the Harbour Foundation",
];

function capitalise(text: string): string {
  return text[0]!.toUpperCase() + text.slice(1);
}

/** Markdown blocks (headings and paragraphs) of a long report, far more than PAGES pages' worth. */
function reportBlocks(): string[] {
  const random = mulberry32(200);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const sentence = (words: string[]) => {
    const r = random();
    if (r < 0.08)
      return `${pick(PEOPLE)} said the ${pick(words)} ${pick(VERBS)} the ${pick(words)} ${pick(QUALIFIERS)}.`;
    if (r < 0.14)
      return `In ${1990 + Math.floor(random() * 34)}, ${pick(ORGS)} studied the ${pick(words)} near ${pick(PLACES)}.`;
    return `${capitalise(`the ${pick(words)}`)} ${pick(VERBS)} the ${pick(words)} and the ${pick(words)} ${pick(QUALIFIERS)}.`;
  };
  const blocks: string[] = [];
  for (let chapter = 1; chapter <= 150; chapter++) {
    const topic = TOPICS[(chapter - 1) % TOPICS.length]!;
    blocks.push(`# Chapter ${chapter}: ${topic.title}`);
    const sections = 3 + Math.floor(random() * 3);
    for (let section = 1; section <= sections; section++) {
      blocks.push(`## ${chapter}.${section} ${capitalise(pick(topic.words))} and ${capitalise(pick(topic.words))}`);
      const paragraphs = 3 + Math.floor(random() * 4);
      for (let p = 0; p < paragraphs; p++)
        blocks.push(Array.from({ length: 4 + Math.floor(random() * 4) }, () => sentence(topic.words)).join(" "));
    }
  }
  return blocks;
}

const PAGE = { width: 595, height: 842, margin: 64 };
const RUNNING_HEADER = "Field Studies in Infrastructure, Food and Nature";

/**
 * The report laid out as a word processor would (headings in bold, wrapped paragraphs, a running
 * header and page numbers), block after block until PAGES pages are full: the page count is
 * exact by construction, in one pass.
 */
async function twoHundredPagePdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setCreationDate(new Date("2025-01-01T00:00:00Z"));
  pdf.setModificationDate(new Date("2025-01-01T00:00:00Z"));
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const width = PAGE.width - 2 * PAGE.margin;
  let page = pdf.addPage([PAGE.width, PAGE.height]);
  let y = PAGE.height - PAGE.margin;
  for (const block of reportBlocks()) {
    const heading = /^(#{1,2}) (.*)$/.exec(block);
    const font = heading ? bold : regular;
    const size = heading ? (heading[1]!.length === 1 ? 16 : 12.5) : 10.5;
    const leading = size * 1.45;
    const lines = wrap(heading ? heading[2]! : block, font, size, width);
    // A heading keeps three lines of what follows on its page; the last page ends with a whole paragraph.
    const lastPage = pdf.getPageCount() === PAGES;
    const needed = (heading ? lines.length + 3 : lastPage ? lines.length : 1) * leading + (heading ? size : 0);
    if (y - needed < PAGE.margin) {
      if (lastPage) break;
      page = pdf.addPage([PAGE.width, PAGE.height]);
      y = PAGE.height - PAGE.margin;
    } else if (heading) y -= size;
    for (const text of lines) {
      if (y - leading < PAGE.margin) {
        if (pdf.getPageCount() === PAGES) break;
        page = pdf.addPage([PAGE.width, PAGE.height]);
        y = PAGE.height - PAGE.margin;
      }
      y -= leading;
      page.drawText(text, { x: PAGE.margin, y, size, font });
    }
    y -= size * 0.7;
  }
  if (pdf.getPageCount() !== PAGES)
    throw new Error(`the report filled ${pdf.getPageCount()} pages, fewer than ${PAGES}`);
  pdf.getPages().forEach((p, i, pages) => {
    p.drawText(RUNNING_HEADER, { x: PAGE.margin, y: PAGE.height - PAGE.margin / 2, size: 8, font: regular });
    const footer = `Page ${i + 1} of ${pages.length}`;
    p.drawText(footer, {
      x: PAGE.width - PAGE.margin - regular.widthOfTextAtSize(footer, 8),
      y: PAGE.margin / 2,
      size: 8,
      font: regular,
    });
  });
  return pdf.save({ useObjectStreams: false });
}

// ---------------------------------------------------------------------------
// The model stand-in, in its own process
// ---------------------------------------------------------------------------

interface Standin {
  url: string;
  counters: () => Promise<{ completions: number; bySchema: Record<string, number>; byModel: Record<string, number> }>;
  reset: () => Promise<void>;
  stop: () => void;
}

async function startStandin(delayMs: number): Promise<Standin> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", join(ROOT, "scripts", "model-standin.ts"), "--port", "0", "--delay-ms", String(delayMs)],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  process.once("exit", () => child.kill("SIGKILL"));
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`the model stand-in did not start:\n${output}`)), 30_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const found = /Listening on (http:\/\/\S+\/v1)/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`the model stand-in exited (${code}):\n${output}`)));
  });
  const control = url.replace(/\/v1$/, "/control");
  const State = z.object({
    counters: z.object({
      completions: z.number(),
      bySchema: z.record(z.string(), z.number()),
      byModel: z.record(z.string(), z.number()),
    }),
  });
  return {
    url,
    counters: async () => State.parse(await (await fetch(control)).json()).counters,
    reset: async () => void (await fetch(`${control}/reset`, { method: "POST" })).body?.cancel(),
    stop: () => void child.kill("SIGTERM"),
  };
}

// ---------------------------------------------------------------------------
// Measurements
// ---------------------------------------------------------------------------

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(p * values.length) - 1)]!;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const PLACEHOLDER_PAYMENT = {
  amount: 25_000,
  asset: "USDC" as const,
  network: "solana-localnet",
  transaction: "bench-startJob-without-payment",
};

function aiConfig(standinUrl: string, env: Record<string, string> = {}): Config {
  return loadConfig({ AI_BASE_URL: standinUrl, AI_MODEL: "standin-small", AI_PRO_MODEL: "standin-large", ...env });
}

const pdfInput = (bytes: Uint8Array) => ({
  kind: "upload" as const,
  bytes,
  filename: "bench-200-pages.pdf",
  contentType: "application/pdf",
});

/** The job's phases as its status showed them (polled every 25 ms): when each was first seen. */
type Phase = "Extracting text" | "Finding boundaries" | "Summarising chunks" | "Summarising the document";
function phaseOf(message: string): Phase | undefined {
  if (message.startsWith("Extracting")) return "Extracting text";
  if (message.startsWith("Finding boundaries")) return "Finding boundaries";
  if (message === "Summarising the document") return "Summarising the document";
  if (message.startsWith("Summarising")) return "Summarising chunks";
  return undefined;
}

async function aiProJob(standinUrl: string, pdf: Uint8Array) {
  let work: Promise<void> | undefined;
  const config = aiConfig(standinUrl);
  const services = createServices(config, { schedule: (task) => void (work = task()) });
  const started = performance.now();
  const body = await startJob(services, {
    tier: "ai-pro",
    input: pdfInput(pdf),
    options: resolveOptions({}, config.chunking),
    apiBase: "http://bench/api",
    payment: PLACEHOLDER_PAYMENT,
    paymentRequest: "bench",
  });
  const jobId = z.object({ job_id: z.string() }).parse(body).job_id;
  const phases = new Map<Phase, number>();
  let done = false;
  const finished = work!.then(() => {
    done = true;
    return performance.now();
  });
  while (!done) {
    const record = (await services.jobs.get(jobId))!.record;
    const phase = phaseOf(record.message);
    if (phase && !phases.has(phase)) phases.set(phase, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const wallMs = (await finished) - started;
  const status = await jobStatus(services, jobId);
  if (status.status !== "completed") throw new Error(`the job ended ${JSON.stringify(status)}`);
  const result = JSON.parse(await services.results.load(z.string().parse(status.result_id))) as Record<string, unknown>;
  const ai = z
    .object({ windows: z.number(), units: z.number(), sections_found: z.number() })
    .parse((result.metadata as { ai: unknown }).ai);
  // Again, apart, for its size and its own time.
  const extractedAt = performance.now();
  const extracted = await extractDocument(loaded(pdfInput(pdf)), config);
  const extractMs = performance.now() - extractedAt;
  return {
    wallMs,
    phases,
    ai,
    totalChunks: z.number().parse(result.total_chunks),
    extracted,
    extractMs,
    concurrency: config.ai.proConcurrency,
  };
}

async function aiSync(standinUrl: string, pdf: Uint8Array) {
  const config = aiConfig(standinUrl);
  const services = createServices(config);
  const started = performance.now();
  // What a paid ai request does after its payment gate (lib/pipeline/index.ts respond()).
  const doc = loaded(pdfInput(pdf));
  const extracted = await extractDocument(doc, config);
  const context = { embedder: services.embedder, models: services.models, modelConcurrency: config.ai.concurrency };
  const result = await buildResult(doc, extracted, "ai", resolveOptions({}, config.chunking), context);
  const wallMs = performance.now() - started;
  const ai = z.object({ windows: z.number() }).parse(result.metadata.ai);
  return { wallMs, windows: ai.windows, totalChunks: result.total_chunks, concurrency: config.ai.concurrency };
}

/** `runs` job creations (after WARMUP_RUNS untimed), the work never scheduled; each job's keys deleted, untimed, so the store does not fill up. */
async function creationLatencies(
  services: Services,
  input: Parameters<typeof startJob>[1]["input"],
  runs: number,
): Promise<number[]> {
  const config = services.config;
  const times: number[] = [];
  for (let i = 0; i < WARMUP_RUNS + runs; i++) {
    const started = performance.now();
    const body = await startJob(services, {
      tier: "ai-pro",
      input,
      options: resolveOptions({}, config.chunking),
      apiBase: "http://bench/api",
      payment: PLACEHOLDER_PAYMENT,
      paymentRequest: `bench-${i}`,
    });
    const elapsed = performance.now() - started;
    if (i >= WARMUP_RUNS) times.push(elapsed);
    const jobId = z.object({ job_id: z.string() }).parse(body).job_id;
    // The job store's key layout (lib/jobs/job-store.ts).
    await services.store.del(`job:${jobId}`);
    await services.store.del(`jobinput:${jobId}`);
  }
  return times;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { "delay-ms": { type: "string", default: "2000" }, runs: { type: "string", default: "200" } },
  });
  const args = Args.parse({ delayMs: values["delay-ms"], runs: values.runs });

  const madeAt = performance.now();
  const pdf = await twoHundredPagePdf();
  const makeMs = performance.now() - madeAt;
  const smallText = {
    kind: "upload" as const,
    bytes: new TextEncoder().encode(`# A short note\n\n${"Plain prose about retrieval and chunking. ".repeat(40)}\n`),
    filename: "note.md",
    contentType: "text/markdown",
  };

  const standin = await startStandin(args.delayMs);
  // A fresh machine after `npm install` has no redis-server: the Redis rows are then left out, not the benchmark.
  const redis = await startRedisServer().catch((error: unknown) => {
    console.log(`\n(Job creation on Redis left out: ${error instanceof Error ? error.message : String(error)})`);
    return null;
  });
  try {
    // 1. The 200-page ai-pro job.
    await standin.reset();
    const job = await aiProJob(standin.url, pdf);
    const jobCounters = await standin.counters();
    const enrichmentCalls = (jobCounters.bySchema.chunk_enrichment ?? 0) + (jobCounters.bySchema.document_summary ?? 0);
    const batches = jobCounters.bySchema.chunk_enrichment ?? 0;
    const rounds = (calls: number) => Math.ceil(calls / job.concurrency);
    const modelRounds = rounds(job.ai.windows) + rounds(batches) + 1;

    // 2. The ai tier, sync, same document and delay.
    await standin.reset();
    const sync = await aiSync(standin.url, pdf);
    const syncCounters = await standin.counters();

    // 3. Job creation latency.
    const memory = createServices(aiConfig(standin.url), { schedule: () => undefined });
    const onRedis = redis
      ? createServices(aiConfig(standin.url, { REDIS_URL: redis.url }), { schedule: () => undefined })
      : null;
    const creation: Array<[string, number[]]> = [];
    try {
      const stores = onRedis
        ? ([
            ["memory", memory],
            ["redis-server", onRedis],
          ] as const)
        : ([["memory", memory]] as const);
      for (const [storeName, services] of stores) {
        creation.push([
          `${storeName}, 200-page PDF (${(pdf.length / 1e6).toFixed(2)} MB)`,
          await creationLatencies(services, pdfInput(pdf), args.runs),
        ]);
        creation.push([
          `${storeName}, small text (${smallText.bytes.length} B)`,
          await creationLatencies(services, smallText, args.runs),
        ]);
      }
    } finally {
      await onRedis?.store.close();
    }

    const { extracted } = job;
    // Each phase writes its first status message as it starts (lib/ai reports 0 done first).
    const at = (phase: Phase) => (phase === "Extracting text" ? 0 : job.phases.get(phase));
    const span = (from: Phase, to?: Phase) => {
      const start = at(from);
      const end = to ? at(to) : job.wallMs;
      return start === undefined || end === undefined ? "not seen" : seconds(end - start);
    };
    const [low, high] = REPLACED_SECONDS;
    const wall = job.wallMs / 1000;

    console.log(
      `\n## AI tiers with a slow model (stand-in answering every call after ${args.delayMs} ms; in process, memory store)\n`,
    );
    console.log(
      `Payment: none. The job is created with startJob() (lib/jobs/runner.ts), what POST /api/chunk/ai-pro runs after its payment gate; scripts/bench-payment.ts times the gate. Document made in ${seconds(makeMs)} with pdf-lib.\n`,
    );
    console.log("| ai-pro job, 200-page PDF | value |");
    console.log("|---|---|");
    console.log(
      `| pages / characters extracted | ${extracted.pageCount} / ${extracted.text.length.toLocaleString("en")} |`,
    );
    console.log(`| boundary units / windows | ${job.ai.units} / ${job.ai.windows} |`);
    console.log(`| chunks (sections found by the model) | ${job.totalChunks} (${job.ai.sections_found}) |`);
    console.log(
      `| enrichment calls (chunk batches + document summary) | ${enrichmentCalls} (${batches} + ${jobCounters.bySchema.document_summary ?? 0}) |`,
    );
    console.log(`| total model calls | ${jobCounters.completions} |`);
    console.log(
      `| AI_PRO_CONCURRENCY / rounds of calls (windows + batches + summary) | ${job.concurrency} / ${modelRounds} (${rounds(job.ai.windows)} + ${rounds(batches)} + 1), at least ${seconds(modelRounds * args.delayMs)} of waiting |`,
    );
    console.log(
      `| phases, from the status messages (polled every 25 ms): creation until boundaries start (extraction, unit planning) / boundaries + structure splitting / chunk enrichment / document summary | ${span("Extracting text", "Finding boundaries")} / ${span("Finding boundaries", "Summarising chunks")} / ${span("Summarising chunks", "Summarising the document")} / ${span("Summarising the document")} |`,
    );
    console.log(`| extraction alone (timed apart) | ${seconds(job.extractMs)} |`);
    console.log(
      `| time not spent waiting for the model (wall − rounds × delay) | ${seconds(job.wallMs - modelRounds * args.delayMs)} |`,
    );
    console.log(
      `| **wall time, created to completed** | **${wall.toFixed(1)} s** (bar: under ${BAR_SECONDS} s: ${wall < BAR_SECONDS ? "met" : "NOT met"}) |`,
    );
    console.log(
      `| vs the service this replaces (${low}–${high} s) | ${(low / wall).toFixed(1)}–${(high / wall).toFixed(1)}× faster |`,
    );
    console.log(
      `| stand-in counters | ${JSON.stringify({ completions: jobCounters.completions, bySchema: jobCounters.bySchema, byModel: jobCounters.byModel })} |`,
    );

    console.log(`\n| ai tier (sync), same document and delay | value |`);
    console.log("|---|---|");
    console.log(
      `| AI_CONCURRENCY / windows / rounds | ${sync.concurrency} / ${sync.windows} / ${Math.ceil(sync.windows / sync.concurrency)} |`,
    );
    console.log(`| chunks | ${sync.totalChunks} |`);
    console.log(`| model calls | ${syncCounters.completions} |`);
    console.log(`| **wall time, extraction to result** | **${seconds(sync.wallMs)}** |`);

    console.log(
      `\nJob creation, startJob() with the work not scheduled (${args.runs} runs each after ${WARMUP_RUNS} warm-up; bar: p99 under ${CREATION_BAR_MS} ms; ms):\n`,
    );
    console.log("| store, upload | p50 | p95 | p99 |");
    console.log("|---|---|---|---|");
    for (const [label, times] of creation) {
      const p99 = percentile(times, 0.99);
      console.log(
        `| ${label} | ${percentile(times, 0.5).toFixed(2)} | ${percentile(times, 0.95).toFixed(2)} | ${p99.toFixed(2)}${p99 < CREATION_BAR_MS ? "" : " (over the bar)"} |`,
      );
    }
  } finally {
    standin.stop();
    await redis?.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
