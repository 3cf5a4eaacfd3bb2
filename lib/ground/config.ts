import { availableParallelism } from "node:os";
import { z } from "zod";
import { DEFAULT_OCR_LANGUAGES, languageCodes, languageProblem } from "@/lib/ground/ocr-language-data";
import { TIERS, isPaid } from "@/lib/tiers";
import {
  DEFAULT_FEE_PAYER_MAX_SOL_USD,
  LAMPORTS_PER_SIGNATURE,
  MAX_SIGNATURES,
  priceInLamports,
} from "@/lib/ground/fee-budget";

/**
 * The environment, parsed and validated once. The only module that reads
 * `process.env`; everything else receives a `Config`. Every setting's env
 * var, parsing, default and cross-checks are here.
 */
const bool = z.enum(["true", "false", "1", "0", ""]).transform((v) => v === "true" || v === "1");
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const optionalString = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined));

/** Headers a trusted proxy may write the client's address into: X-Real-IP only when configured. */
/** SHEET_MAX_CELLS's default; also what extraction uses when a caller's limits leave it out. */
export const DEFAULT_SHEET_MAX_CELLS = 500_000;

const CLIENT_IP_HEADERS = ["x-forwarded-for", "x-real-ip", "x-vercel-forwarded-for"] as const;

const NETWORKS = ["solana-localnet", "solana-devnet", "solana"] as const;
export type Network = (typeof NETWORKS)[number];

/** Devnet's USDC mint; the local chain's test mint is created at this address so x402 clients work unchanged. */
export const DEVNET_USDC_MINT = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";
export const MAINNET_USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const LogLevelSchema = z
  .enum(LOG_LEVELS)
  .or(z.literal("").transform((): LogLevel => "info"))
  .default("info");

/**
 * LOG_LEVEL alone: the logger needs it before the whole configuration can be loaded (a configuration refused at
 * load is itself logged). An invalid value gives the default here; `loadConfig` refuses it.
 */
export function logLevelFrom(env: Record<string, string | undefined> = process.env): LogLevel {
  const parsed = LogLevelSchema.safeParse(env.LOG_LEVEL);
  return parsed.success ? parsed.data : "info";
}

const EnvSchema = z.object({
  PUBLIC_BASE_URL: z
    .url()
    .optional()
    .or(z.literal("").transform(() => undefined)),
  /** Published as the OpenAPI document's `info.contact.email`: registries (x402scan) verify an origin's owner by it. */
  CONTACT_EMAIL: z
    .email()
    .optional()
    .or(z.literal("").transform(() => undefined)),

  REDIS_URL: optionalString,
  UPSTASH_REDIS_REST_URL: optionalString,
  UPSTASH_REDIS_REST_TOKEN: optionalString,

  SOLANA_NETWORK: z.enum(NETWORKS).default("solana-localnet"),
  USDC_MINT: optionalString,
  PAY_TO_ADDRESS: optionalString,
  SOLANA_RPC_URL: z
    .url()
    .optional()
    .or(z.literal("").transform(() => undefined)),
  SOLANA_WS_URL: z
    .url()
    .optional()
    .or(z.literal("").transform(() => undefined)),
  /** The RPC browsers (the web page's wallet flow) use; SOLANA_RPC_URL may carry a provider key and stays server-side. */
  PUBLIC_SOLANA_RPC_URL: z
    .url()
    .optional()
    .or(z.literal("").transform(() => undefined)),
  LOCAL_CHAIN_PORT: int(1, 65534).default(8899),
  /** base58 of the 64-byte secret key that co-signs x402 payments as fee payer. */
  FEE_PAYER_SECRET_KEY: optionalString,
  X402_FACILITATOR_URL: z
    .url()
    .optional()
    .or(z.literal("").transform(() => undefined)),
  /** The facilitator's fee payer, announced as `extra.feePayer` when a facilitator settles x402 payments. */
  X402_FACILITATOR_FEE_PAYER: optionalString,
  PAYMENT_MAX_AGE_SECONDS: int(10, 30 * 24 * 3600).default(3600),
  PAYMENT_REQUIRE_REFERENCE: bool.default(false),
  /** The burst of new unpaid references a client may take at once (its token bucket's size). */
  PAYMENT_MAX_OUTSTANDING_REFERENCES: int(1, 10_000).default(30),
  /** New unpaid references a client's bucket gains per minute. */
  PAYMENT_UNPAID_REFERENCES_PER_MINUTE: int(1, 10_000).default(2),
  PAYMENT_CONFIRM_TIMEOUT_MS: int(0, 120_000).default(8000),
  /** The SOL price in USD up to which an x402 payment costs the fee payer less than it pays (see lib/ground/fee-budget.ts). */
  FEE_PAYER_MAX_SOL_USD: z.coerce.number().positive().max(1_000_000).default(DEFAULT_FEE_PAYER_MAX_SOL_USD),

  FREE_PAGES_PER_DAY: int(0, 1_000_000).default(100),
  MAX_UPLOAD_BYTES: int(1024, 1024 * 1024 * 1024).default(25 * 1024 * 1024),
  /** Documents one `POST /api/batch/{tier}` may carry (docs/batches.md). */
  BATCH_MAX_DOCUMENTS: int(1, 1000).default(50),
  MAX_PAGES_PER_REQUEST: int(1, 100_000).default(1000),
  MAX_CHARS_PER_REQUEST: int(1000, 100_000_000).default(3_000_000),
  MAX_UNPACKED_BYTES: int(1024 * 1024, 4 * 1024 * 1024 * 1024).default(100 * 1024 * 1024),
  EXTRACT_TIMEOUT_MS: int(1000, 600_000).default(60_000),
  /** Levels of e-mails attached to e-mails that are opened; deeper ones are refused. Forwards nest 1-3 deep. */
  MAX_EMAIL_DEPTH: int(0, 20).default(3),
  /**
   * HTML and the XML inside DOCX, checked before conversion. Real pages measured 9-25 deep (browsers stop
   * nesting at 512); nested lists cost the converter ~0.5 s at 256 levels and 16 s at 2,000.
   */
  MARKUP_MAX_DEPTH: int(16, 10_000).default(256),
  /** Node's 8.4 MB API page has 182,000 elements and converts to 4.7 M characters, past MAX_CHARS_PER_REQUEST. */
  MARKUP_MAX_ELEMENTS: int(1000, 100_000_000).default(250_000),
  /**
   * Filled cells a spreadsheet or CSV may hold, and cells one sheet's table may span (rows × columns once empty
   * ones are dropped). Each filled cell costs ~100 bytes while read; a table cell at least 3 characters of Markdown,
   * so the default's tables stay near MAX_CHARS_PER_REQUEST.
   */
  SHEET_MAX_CELLS: int(1000, 50_000_000).default(DEFAULT_SHEET_MAX_CELLS),
  /** Tesseract language codes joined by "+", each installed as @tesseract.js-data/<code>. */
  OCR_LANGUAGES: z.string().trim().default(DEFAULT_OCR_LANGUAGES).transform(languageCodes),
  /** Dense scanned pages are read at ~23 a minute on two cores, 17-19 when drawn (npm run bench): 10 take 26-35 s of 60. */
  OCR_SYNC_MAX_PAGES: int(1, 100_000).default(10),
  /** Pages read by OCR in one job (`async=true`): 300 dense pages take 13-18 minutes on two cores. */
  OCR_JOB_MAX_PAGES: int(1, 100_000).default(300),
  /** A job's extraction, OCR included; at most half of RESULT_TTL_SECONDS, a job's lifetime. */
  JOB_EXTRACT_TIMEOUT_MS: int(1000, 24 * 3600 * 1000).default(30 * 60 * 1000),

  CPU_THREADS: int(1, 256).optional(),
  CPU_QUEUE: int(0, 10_000).default(16),
  CPU_TASK_TIMEOUT_MS: int(100, 600_000).default(60_000),
  CPU_WORKER_HEAP_MB: int(16, 16_384).default(1024),
  /** Threads (and extractions) async jobs may use at once; the rest stay free for synchronous requests. */
  CPU_JOB_THREADS: int(1, 256).optional(),
  CLIENT_MAX_CONCURRENT_REQUESTS: int(1, 10_000).default(4),
  CLIENT_MAX_ACTIVE_JOBS: int(1, 10_000).default(3),
  BODY_READ_TIMEOUT_MS: int(500, 3_600_000).default(30_000),
  BODY_MIN_BYTES_PER_SECOND: int(0, 1024 * 1024 * 1024).default(16 * 1024),
  BODY_MIN_RATE_GRACE_MS: int(0, 3_600_000).default(5_000),
  /**
   * Test mode of a host's function body limit (Vercel: 4.5 MB): request bodies over it are refused with 413
   * before any handler reads them. Off (0) by default; the harness sets 4718592.
   */
  FUNCTION_BODY_LIMIT_BYTES: int(0, 1024 * 1024 * 1024).default(0),
  /** Vercel Blob's read-write token: with it, large uploads go to Blob by client upload instead of to the service. */
  BLOB_READ_WRITE_TOKEN: optionalString,
  /** The Blob store's access mode; documents belong in a private store. */
  BLOB_ACCESS: z.enum(["private", "public"]).default("private"),
  /** Uploads (`POST /api/uploads`) a client may start at once, and how many more a minute. */
  UPLOADS_BURST: int(1, 10_000).default(5),
  UPLOADS_PER_MINUTE: int(1, 10_000).default(1),

  URL_FETCH_TIMEOUT_MS: int(100, 600_000).default(20_000),
  URL_FETCH_ALLOW_PRIVATE: bool.default(false),

  /** Tries of a job's webhook, the first included; each within the job's lifetime (RESULT_TTL_SECONDS). */
  WEBHOOK_MAX_ATTEMPTS: int(1, 20).default(5),
  /** One try, from resolving the host to the answer's status line; a receiver cannot hold the service longer. */
  WEBHOOK_TIMEOUT_MS: int(100, 60_000).default(10_000),
  /** The wait before the second try; each later wait is five times the one before (5 s, 25 s, ~2 min, ~10 min). */
  WEBHOOK_RETRY_BASE_MS: int(10, 3_600_000).default(5_000),
  /** Tries waiting or running in one process (the in-process scheduler's timers): past that, a try is not scheduled. */
  WEBHOOK_MAX_PENDING: int(1, 1_000_000).default(1_000),

  TRUST_PROXY_HEADERS: bool.optional(),
  /** Trusted proxies in front of the service: the client is the address the outermost of them saw, this many values from the right. */
  TRUSTED_PROXY_HOPS: int(1, 16).default(1),
  /** The header a trusted proxy writes the client's address into; by default Vercel's own on Vercel, X-Forwarded-For elsewhere. */
  CLIENT_IP_HEADER: z.enum(CLIENT_IP_HEADERS).optional(),
  VERCEL: optionalString,

  EMBEDDINGS_BASE_URL: z
    .url()
    .optional()
    .or(z.literal("").transform(() => undefined)),
  EMBEDDINGS_API_KEY: optionalString,
  EMBEDDINGS_MODEL: optionalString,
  EMBEDDINGS_BATCH_SIZE: int(1, 2048).default(96),
  EMBEDDINGS_CONCURRENCY: int(1, 64).default(4),
  EMBEDDINGS_TIMEOUT_MS: int(100, 600_000).default(30_000),

  AI_BASE_URL: z
    .url()
    .optional()
    .or(z.literal("").transform(() => undefined)),
  AI_API_KEY: optionalString,
  AI_MODEL: optionalString,
  AI_PRO_MODEL: optionalString,
  AI_CONCURRENCY: int(1, 256).default(8),
  AI_PRO_CONCURRENCY: int(1, 256).default(16),
  AI_TIMEOUT_MS: int(1000, 600_000).default(60_000),
  AI_MAX_RETRIES: int(0, 10).default(3),
  AI_BAD_REPLY_RETRIES: int(0, 5).default(1),
  AI_MAX_INFLIGHT: int(1, 4096).default(32),
  AI_CONTEXT_MAX_CALLS: int(1, 1000).default(24),
  AI_CONTEXT_DOCUMENT_TOKENS: int(1000, 1_000_000).default(12_000),
  AI_CONTEXT_CACHE_TTL_SECONDS: int(60, 30 * 86_400).default(86_400),
  JOB_LEASE_MS: int(1000, 600_000).default(30_000),
  JOB_MAX_ATTEMPTS: int(1, 10).default(3),
  /** One slice of a job's work: well inside the host's function limit (Vercel: 300 s), so a slice always ends in time. */
  JOB_SLICE_MS: int(1000, 3_600_000).default(120_000),
  /** TEST MODE ONLY (refused with NODE_ENV=production): a slice still running this long is killed, as a host would. */
  FUNCTION_LIMIT_MS: int(1000, 3_600_000).optional(),
  NODE_ENV: optionalString,
  /** Upstash QStash drives the slices when set (with both signing keys and PUBLIC_BASE_URL); in-process otherwise. */
  QSTASH_TOKEN: optionalString,
  QSTASH_URL: z
    .url()
    .optional()
    .or(z.literal("").transform(() => undefined)),
  QSTASH_CURRENT_SIGNING_KEY: optionalString,
  QSTASH_NEXT_SIGNING_KEY: optionalString,
  /** QStash's further deliveries of a slice its function failed or never answered (backoff between them is QStash's). */
  QSTASH_RETRIES: int(0, 10).default(3),

  LOG_LEVEL: LogLevelSchema,
  /** Bearer token for GET /api/metrics; unset, the endpoint answers 404. */
  METRICS_TOKEN: optionalString.refine((v) => v === undefined || v.length >= 16, {
    message: "METRICS_TOKEN must be at least 16 characters (it guards the metrics endpoint)",
  }),
  /** OpenTelemetry's own variables: set, metrics are also pushed by OTLP/HTTP. */
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: z
    .url()
    .optional()
    .or(z.literal("").transform(() => undefined)),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url()
    .optional()
    .or(z.literal("").transform(() => undefined)),
  OTEL_METRIC_EXPORT_INTERVAL: int(1000, 3_600_000).default(60_000),

  RESULT_TTL_SECONDS: int(1, 7 * 24 * 3600).default(3600),
  DEFAULT_MAX_TOKENS: int(32, 8192).default(512),
  DEFAULT_OVERLAP_TOKENS: int(0, 4096).default(64),
});

export interface Config {
  publicBaseUrl?: string;
  contactEmail?: string;
  store: { kind: "memory" } | { kind: "redis"; url: string } | { kind: "upstash"; url: string; token: string };
  network: Network;
  usdcMint: string;
  payTo: string;
  payments: {
    rpcUrl: string;
    /** Websocket endpoint for clients (wallets); the service itself polls. */
    wsUrl: string;
    /** The RPC announced to browsers (`GET /api` `payment.rpc_url`); never SOLANA_RPC_URL outside local mode, which may hold a key. */
    publicRpcUrl: string;
    /** Port of the embedded local chain (local mode only). */
    localChainPort: number;
    feePayerSecretKey?: string;
    /** When set, x402 payments are verified and settled by this facilitator, whose fee payer is `facilitatorFeePayer`. */
    facilitator?: { url: string; feePayer: string };
    /** A paid transaction older than this is refused. */
    maxAgeSeconds: number;
    /** Refuse transfers that do not carry the 402's `extra.reference` in a Memo. */
    requireReference: boolean;
    /** New one-time references per client: a token bucket (burst, refill per minute) bounding what unpaid requests write. */
    unpaidReferences: { burst: number; perMinute: number };
    /** How long the signature path polls for a transaction not yet visible at `confirmed`. */
    confirmTimeoutMs: number;
    /** The SOL price (USD) below which every tier's x402 fee budget keeps the fee payer's cost under the price. */
    feePayerMaxSolUsd: number;
  };
  freePagesPerDay: number;
  limits: {
    maxUploadBytes: number;
    /** Documents in one batch; their bytes together stay within `maxUploadBytes`. */
    maxBatchDocuments: number;
    maxPagesPerRequest: number;
    maxCharsPerRequest: number;
    maxUnpackedBytes: number;
    /** HTML pages' and zip-based documents' XML parts' nesting depth and element count (lib/extract/markup-budget.ts). */
    markup: { maxDepth: number; maxElements: number };
    /** Levels of attached e-mails opened (lib/extract/email.ts). */
    maxEmailDepth: number;
    /** Filled cells of a spreadsheet or CSV, and cells of one sheet's table. */
    maxSheetCells: number;
    extractTimeoutMs: number;
    /** The same for a job's extraction. */
    jobExtractTimeoutMs: number;
  };
  ocr: {
    /** Tesseract's codes, in order of preference ("eng", "fra", "chi_sim"). */
    languages: string[];
    /** Pages read by OCR in one synchronous request. */
    syncMaxPages: number;
    /** Pages read by OCR in one job. */
    jobMaxPages: number;
  };
  /** The worker threads that do the CPU work of requests (lib/cpu/pool.ts). */
  cpu: {
    threads: number;
    /** Requests admitted beyond one per thread; past that, 503 `busy`. */
    queue: number;
    /** Per task, from its start on a worker. */
    taskTimeoutMs: number;
    /** Heap of each worker. */
    heapMb: number;
    /** Async jobs' share: at most this many jobs extract at once, and their tasks hold at most this many threads. */
    jobThreads: number;
  };
  /** What one client (lib/http/client-address.ts) may hold at once; past that, 429 with `Retry-After`. */
  perClient: {
    /** Chunking requests in progress (any tier), counted from before the body is read. */
    maxConcurrentRequests: number;
    /** Async jobs accepted and not yet finished (any tier). */
    maxActiveJobs: number;
  };
  /** How fast a request body must arrive: a client cannot hold a connection (and its per-client place) by trickling bytes. */
  bodyRead: {
    /** The whole body, from the first read. */
    timeoutMs: number;
    /** Average rate, after `graceMs`. */
    minBytesPerSecond: number;
    graceMs: number;
  };
  urlFetch: { timeoutMs: number; maxBytes: number; allowPrivate: boolean; maxRedirects: number };
  /** A job's webhook (lib/webhooks/): its URL passes `urlFetch`'s address rules, at acceptance and at each try. */
  webhooks: {
    maxAttempts: number;
    timeoutMs: number;
    /** The wait before the second try; each later one is `RETRY_GROWTH` times longer. */
    retryBaseMs: number;
    /** Tries one process holds at once (waiting or running), in the in-process scheduler. */
    maxPending: number;
  };
  /** Two-step uploads (`POST /api/uploads`): where the bytes go, and how many a client may start (a token bucket). */
  uploads: {
    target: { kind: "service" } | { kind: "blob"; token: string; access: "private" | "public" };
    perClient: { burst: number; perMinute: number };
  };
  /** Refuse request bodies over this many bytes with 413 before any handler reads them (a host's function limit, in tests); absent: off. */
  functionBodyLimitBytes?: number;
  trustProxyHeaders: boolean;
  /** Where a trusted proxy puts the client's address, and how many trusted proxies stand in front (believed only with `trustProxyHeaders`). */
  clientIp: { header: (typeof CLIENT_IP_HEADERS)[number]; hops: number };
  resultTtlSeconds: number;
  chunking: { defaultMaxTokens: number; defaultOverlapTokens: number; minMaxTokens: number; maxMaxTokens: number };
  /** The semantic tier's embedder: the built-in local one unless an OpenAI-compatible endpoint is set. */
  embeddings:
    | { kind: "local" }
    | {
        kind: "openai";
        baseUrl: string;
        apiKey?: string;
        model: string;
        batchSize: number;
        concurrency: number;
        timeoutMs: number;
      };
  /** The AI tiers' OpenAI-compatible endpoint; a tier without its model is not available. */
  ai: {
    baseUrl: string;
    apiKey?: string;
    /** For `ai`. */
    model?: string;
    /** For `ai-pro`. */
    proModel?: string;
    /** Model calls at once, per `ai` request and per `ai-pro` job. */
    concurrency: number;
    proConcurrency: number;
    /** Per call. */
    timeoutMs: number;
    /** Further tries of a call the provider failed (429, 5xx, network), with backoff. */
    maxRetries: number;
    /** Further tries of a call answered with invalid JSON or JSON breaking the schema. */
    badReplyRetries: number;
    /** Model calls (chat and embeddings) at once in the whole process, whatever the requests' own concurrency. */
    maxInflight: number;
    /** `context=true`: the situating contexts' model calls. */
    context: {
      /** Most calls per document; chunks past them keep the deterministic prefix only. */
      maxCalls: number;
      /** A document up to this many tokens goes whole into each call; a longer one as its summary and the batch's neighbourhood. */
      documentTokens: number;
      /** How long a document's contexts are kept for the same document asked again. */
      cacheTtlSeconds: number;
    };
  };
  /** Logs and metrics (lib/observability). */
  observability: {
    logLevel: LogLevel;
    /** Bearer token of GET /api/metrics; absent, that endpoint answers 404. */
    metricsToken?: string;
    /** OTLP/HTTP metrics endpoint (OpenTelemetry's variables); absent, metrics are only served for scraping. */
    otlpMetricsEndpoint?: string;
    otlpExportIntervalMs: number;
    /** On Vercel (VERCEL set): `@vercel/otel` registers the OpenTelemetry SDK (instrumentation.ts). */
    vercelOtel: boolean;
  };
  jobs: {
    /** A job's worker holds it this long without a sign of life; after that the next poll takes it over. */
    leaseMs: number;
    /** Workers a job may have; a job whose workers keep dying fails after this many. */
    maxAttempts: number;
    /** A slice's deadline: no page or model call is started that would not end before it. */
    sliceMs: number;
    /** Test mode: a slice running this long is killed (its writes refused, its answer a 504). */
    functionLimitMs?: number;
    /** What drives the slices: QStash deliveries to PUBLIC_BASE_URL/api/jobs/step, or this process. */
    engine:
      | { kind: "in-process" }
      | {
          kind: "qstash";
          token: string;
          baseUrl?: string;
          currentSigningKey: string;
          nextSigningKey: string;
          stepUrl: string;
          retries: number;
        };
  };
}

/**
 * Local mode's recipient when PAY_TO_ADDRESS is unset (the local chain,
 * scripts/local-chain.ts, prints one of its own to set). TEST ONLY:
 * sha256("chunkwise local test payTo"), a point nobody holds a key for.
 */
const LOCAL_TEST_PAY_TO = "2xRnSxDacHMDmCdLKJrjoh2b6kxKbTy3BNiFGegwAvE1";

const DEFAULT_RPC_URLS: Record<Network, (localPort: number) => string> = {
  "solana-localnet": (port) => `http://127.0.0.1:${port}`,
  "solana-devnet": () => "https://api.devnet.solana.com",
  solana: () => "https://api.mainnet-beta.solana.com",
};

/**
 * Solana's public endpoints and kit serve websockets on the RPC's own port;
 * the local chain serves both that port and the next (web3.js's habit).
 */
/** Jobs get half the threads by default (at least one, and one fewer than all when there are two or more). */
function cpuSettings(e: z.infer<typeof EnvSchema>): Config["cpu"] {
  const threads = e.CPU_THREADS ?? availableParallelism();
  const jobThreads = e.CPU_JOB_THREADS ?? Math.max(1, Math.floor(threads / 2));
  if (jobThreads > threads) throw new ConfigError(`CPU_JOB_THREADS (${jobThreads}) exceeds CPU_THREADS (${threads}).`);
  return {
    threads,
    queue: e.CPU_QUEUE,
    taskTimeoutMs: e.CPU_TASK_TIMEOUT_MS,
    heapMb: e.CPU_WORKER_HEAP_MB,
    jobThreads,
  };
}

function defaultWsUrl(rpcUrl: string): string {
  const url = new URL(rpcUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString().replace(/\/$/, "");
}

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;

  let store: Config["store"] = { kind: "memory" };
  if (e.UPSTASH_REDIS_REST_URL || e.UPSTASH_REDIS_REST_TOKEN) {
    if (!e.UPSTASH_REDIS_REST_URL || !e.UPSTASH_REDIS_REST_TOKEN)
      throw new ConfigError("UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together.");
    store = { kind: "upstash", url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN };
  } else if (e.REDIS_URL) {
    store = { kind: "redis", url: e.REDIS_URL };
  }

  const mainnet = e.SOLANA_NETWORK === "solana";
  if (mainnet && store.kind === "memory")
    throw new ConfigError(
      "Refusing to run on mainnet with the memory store: set REDIS_URL or UPSTASH_REDIS_REST_URL/TOKEN so used payments survive restarts.",
    );
  if (mainnet && e.USDC_MINT && e.USDC_MINT !== MAINNET_USDC_MINT)
    throw new ConfigError(
      `USDC_MINT ${e.USDC_MINT} is not USDC on mainnet (${MAINNET_USDC_MINT}): refusing to take payments in another token.`,
    );
  for (const tier of Object.values(TIERS).filter(isPaid)) {
    const priceLamports = priceInLamports(BigInt(tier.priceBaseUnits), e.FEE_PAYER_MAX_SOL_USD);
    if (priceLamports <= BigInt(MAX_SIGNATURES) * LAMPORTS_PER_SIGNATURE)
      throw new ConfigError(
        `FEE_PAYER_MAX_SOL_USD=${e.FEE_PAYER_MAX_SOL_USD}: at that SOL price the ${tier.id} tier's price is ${priceLamports} lamports, not more than the ${MAX_SIGNATURES} signatures' base fee every x402 payment costs the fee payer.`,
      );
  }
  if (mainnet && e.URL_FETCH_ALLOW_PRIVATE)
    throw new ConfigError("URL_FETCH_ALLOW_PRIVATE=true is for tests and is refused on mainnet.");
  if (e.SOLANA_NETWORK !== "solana-localnet" && !e.PAY_TO_ADDRESS)
    throw new ConfigError(`PAY_TO_ADDRESS is required on ${e.SOLANA_NETWORK}.`);
  if (e.X402_FACILITATOR_URL && !e.X402_FACILITATOR_FEE_PAYER)
    throw new ConfigError(
      "X402_FACILITATOR_FEE_PAYER (the facilitator's fee payer address) is required with X402_FACILITATOR_URL.",
    );
  if (e.EMBEDDINGS_BASE_URL && !e.EMBEDDINGS_MODEL)
    throw new ConfigError("EMBEDDINGS_MODEL is required when EMBEDDINGS_BASE_URL is set.");
  if ((e.AI_MODEL || e.AI_PRO_MODEL) && !e.AI_BASE_URL && !e.AI_API_KEY)
    throw new ConfigError(
      "AI_MODEL / AI_PRO_MODEL need AI_BASE_URL (any OpenAI-compatible endpoint) or AI_API_KEY (OpenAI itself).",
    );
  for (const code of e.OCR_LANGUAGES) {
    const problem = languageProblem(code);
    if (problem) throw new ConfigError(problem);
  }
  if (e.DEFAULT_OVERLAP_TOKENS * 2 > e.DEFAULT_MAX_TOKENS)
    throw new ConfigError("DEFAULT_OVERLAP_TOKENS must be at most half of DEFAULT_MAX_TOKENS.");

  const rpcUrl = e.SOLANA_RPC_URL ?? DEFAULT_RPC_URLS[e.SOLANA_NETWORK](e.LOCAL_CHAIN_PORT);
  const jobs = jobSettings(e);

  return {
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ""),
    contactEmail: e.CONTACT_EMAIL,
    store,
    network: e.SOLANA_NETWORK,
    usdcMint: e.USDC_MINT ?? (mainnet ? MAINNET_USDC_MINT : DEVNET_USDC_MINT),
    payTo: e.PAY_TO_ADDRESS ?? LOCAL_TEST_PAY_TO,
    payments: {
      rpcUrl,
      wsUrl: e.SOLANA_WS_URL ?? defaultWsUrl(rpcUrl),
      publicRpcUrl:
        e.PUBLIC_SOLANA_RPC_URL ??
        (e.SOLANA_NETWORK === "solana-localnet" ? rpcUrl : DEFAULT_RPC_URLS[e.SOLANA_NETWORK](e.LOCAL_CHAIN_PORT)),
      localChainPort: e.LOCAL_CHAIN_PORT,
      feePayerSecretKey: e.FEE_PAYER_SECRET_KEY,
      facilitator: e.X402_FACILITATOR_URL
        ? { url: e.X402_FACILITATOR_URL.replace(/\/+$/, ""), feePayer: e.X402_FACILITATOR_FEE_PAYER! }
        : undefined,
      maxAgeSeconds: e.PAYMENT_MAX_AGE_SECONDS,
      requireReference: e.PAYMENT_REQUIRE_REFERENCE,
      unpaidReferences: {
        burst: e.PAYMENT_MAX_OUTSTANDING_REFERENCES,
        perMinute: e.PAYMENT_UNPAID_REFERENCES_PER_MINUTE,
      },
      confirmTimeoutMs: e.PAYMENT_CONFIRM_TIMEOUT_MS,
      feePayerMaxSolUsd: e.FEE_PAYER_MAX_SOL_USD,
    },
    freePagesPerDay: e.FREE_PAGES_PER_DAY,
    limits: {
      maxUploadBytes: e.MAX_UPLOAD_BYTES,
      maxBatchDocuments: e.BATCH_MAX_DOCUMENTS,
      maxPagesPerRequest: e.MAX_PAGES_PER_REQUEST,
      maxCharsPerRequest: e.MAX_CHARS_PER_REQUEST,
      maxUnpackedBytes: e.MAX_UNPACKED_BYTES,
      markup: { maxDepth: e.MARKUP_MAX_DEPTH, maxElements: e.MARKUP_MAX_ELEMENTS },
      maxEmailDepth: e.MAX_EMAIL_DEPTH,
      maxSheetCells: e.SHEET_MAX_CELLS,
      extractTimeoutMs: e.EXTRACT_TIMEOUT_MS,
      // A job expires RESULT_TTL_SECONDS after it is made: its extraction takes at most half of that, so the rest is left to fetch it.
      jobExtractTimeoutMs: Math.min(e.JOB_EXTRACT_TIMEOUT_MS, (e.RESULT_TTL_SECONDS * 1000) / 2),
    },
    ocr: {
      languages: [...new Set(e.OCR_LANGUAGES)],
      syncMaxPages: e.OCR_SYNC_MAX_PAGES,
      jobMaxPages: Math.max(e.OCR_JOB_MAX_PAGES, e.OCR_SYNC_MAX_PAGES),
    },
    cpu: cpuSettings(e),
    perClient: {
      maxConcurrentRequests: e.CLIENT_MAX_CONCURRENT_REQUESTS,
      maxActiveJobs: e.CLIENT_MAX_ACTIVE_JOBS,
    },
    bodyRead: {
      timeoutMs: e.BODY_READ_TIMEOUT_MS,
      minBytesPerSecond: e.BODY_MIN_BYTES_PER_SECOND,
      graceMs: e.BODY_MIN_RATE_GRACE_MS,
    },
    urlFetch: {
      timeoutMs: e.URL_FETCH_TIMEOUT_MS,
      maxBytes: e.MAX_UPLOAD_BYTES,
      allowPrivate: e.URL_FETCH_ALLOW_PRIVATE,
      maxRedirects: 5,
    },
    webhooks: {
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      maxPending: e.WEBHOOK_MAX_PENDING,
    },
    uploads: {
      target: e.BLOB_READ_WRITE_TOKEN
        ? { kind: "blob", token: e.BLOB_READ_WRITE_TOKEN, access: e.BLOB_ACCESS }
        : { kind: "service" },
      perClient: { burst: e.UPLOADS_BURST, perMinute: e.UPLOADS_PER_MINUTE },
    },
    functionBodyLimitBytes: e.FUNCTION_BODY_LIMIT_BYTES || undefined,
    trustProxyHeaders: e.TRUST_PROXY_HEADERS ?? Boolean(e.VERCEL),
    // Vercel overwrites X-Forwarded-For with the address its edge saw and sets x-vercel-forwarded-for alike; the latter survives a proxy put in front of Vercel.
    clientIp: {
      header: e.CLIENT_IP_HEADER ?? (e.VERCEL ? "x-vercel-forwarded-for" : "x-forwarded-for"),
      hops: e.TRUSTED_PROXY_HOPS,
    },
    resultTtlSeconds: e.RESULT_TTL_SECONDS,
    chunking: {
      defaultMaxTokens: e.DEFAULT_MAX_TOKENS,
      defaultOverlapTokens: e.DEFAULT_OVERLAP_TOKENS,
      minMaxTokens: 32,
      maxMaxTokens: 8192,
    },
    embeddings: e.EMBEDDINGS_BASE_URL
      ? {
          kind: "openai",
          baseUrl: e.EMBEDDINGS_BASE_URL.replace(/\/+$/, ""),
          apiKey: e.EMBEDDINGS_API_KEY,
          model: e.EMBEDDINGS_MODEL!,
          batchSize: e.EMBEDDINGS_BATCH_SIZE,
          concurrency: e.EMBEDDINGS_CONCURRENCY,
          timeoutMs: e.EMBEDDINGS_TIMEOUT_MS,
        }
      : { kind: "local" },
    ai: {
      baseUrl: (e.AI_BASE_URL ?? "https://api.openai.com/v1").replace(/\/+$/, ""),
      apiKey: e.AI_API_KEY,
      model: e.AI_MODEL,
      proModel: e.AI_PRO_MODEL,
      concurrency: e.AI_CONCURRENCY,
      proConcurrency: e.AI_PRO_CONCURRENCY,
      timeoutMs: e.AI_TIMEOUT_MS,
      maxRetries: e.AI_MAX_RETRIES,
      badReplyRetries: e.AI_BAD_REPLY_RETRIES,
      maxInflight: e.AI_MAX_INFLIGHT,
      context: {
        maxCalls: e.AI_CONTEXT_MAX_CALLS,
        documentTokens: e.AI_CONTEXT_DOCUMENT_TOKENS,
        cacheTtlSeconds: e.AI_CONTEXT_CACHE_TTL_SECONDS,
      },
    },
    observability: {
      logLevel: e.LOG_LEVEL,
      metricsToken: e.METRICS_TOKEN,
      // OpenTelemetry's rule: the metrics endpoint as given; the general one with the signal's path appended.
      otlpMetricsEndpoint:
        e.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT ??
        (e.OTEL_EXPORTER_OTLP_ENDPOINT && `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/metrics`),
      otlpExportIntervalMs: e.OTEL_METRIC_EXPORT_INTERVAL,
      vercelOtel: Boolean(e.VERCEL),
    },
    jobs,
  };
}

function jobSettings(e: z.infer<typeof EnvSchema>): Config["jobs"] {
  if (e.FUNCTION_LIMIT_MS !== undefined && (e.NODE_ENV ?? process.env.NODE_ENV) === "production")
    throw new ConfigError(
      "FUNCTION_LIMIT_MS is a test mode (it kills slices on purpose) and is refused in production.",
    );
  if (e.FUNCTION_LIMIT_MS !== undefined && e.JOB_SLICE_MS >= e.FUNCTION_LIMIT_MS)
    throw new ConfigError(
      `JOB_SLICE_MS (${e.JOB_SLICE_MS}) must be shorter than FUNCTION_LIMIT_MS (${e.FUNCTION_LIMIT_MS}).`,
    );
  const base = {
    leaseMs: e.JOB_LEASE_MS,
    maxAttempts: e.JOB_MAX_ATTEMPTS,
    sliceMs: e.JOB_SLICE_MS,
    ...(e.FUNCTION_LIMIT_MS === undefined ? {} : { functionLimitMs: e.FUNCTION_LIMIT_MS }),
  };
  if (!e.QSTASH_TOKEN) {
    // A function there lives for one request: a slice left to the process would die with it, and the job status
    // route, built without the pipeline (next.config.ts), cannot run one.
    if (e.VERCEL)
      throw new ConfigError(
        "On Vercel, jobs run as QStash deliveries: set QSTASH_TOKEN, QSTASH_CURRENT_SIGNING_KEY and QSTASH_NEXT_SIGNING_KEY (the Upstash integration), and PUBLIC_BASE_URL.",
      );
    return { ...base, engine: { kind: "in-process" } };
  }
  if (!e.QSTASH_CURRENT_SIGNING_KEY || !e.QSTASH_NEXT_SIGNING_KEY)
    throw new ConfigError(
      "QSTASH_TOKEN needs QSTASH_CURRENT_SIGNING_KEY and QSTASH_NEXT_SIGNING_KEY: deliveries are verified with them.",
    );
  if (!e.PUBLIC_BASE_URL)
    throw new ConfigError(
      "QSTASH_TOKEN needs PUBLIC_BASE_URL: QStash delivers each slice to PUBLIC_BASE_URL/api/jobs/step.",
    );
  return {
    ...base,
    engine: {
      kind: "qstash",
      token: e.QSTASH_TOKEN,
      ...(e.QSTASH_URL ? { baseUrl: e.QSTASH_URL.replace(/\/+$/, "") } : {}),
      currentSigningKey: e.QSTASH_CURRENT_SIGNING_KEY,
      nextSigningKey: e.QSTASH_NEXT_SIGNING_KEY,
      stepUrl: `${e.PUBLIC_BASE_URL.replace(/\/+$/, "")}/api/jobs/step`,
      retries: e.QSTASH_RETRIES,
    },
  };
}
