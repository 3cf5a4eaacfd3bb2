import { type Counter, type Histogram, metrics } from "@opentelemetry/api";
import { ensureMeterProvider } from "@/lib/observability/meter-provider";

/**
 * The service's metrics, recorded through the OpenTelemetry API (lib/observability/meter-provider.ts says where
 * they go). Names are Prometheus's: counters get `_total` when scraped. Labels take few values each (routes, tiers,
 * statuses, error codes from the one table, job states), never a client, payer or document.
 */

/** Seconds: a health check's milliseconds up to a long request's five minutes. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** What the CPU pool shows (lib/cpu/pool.ts `stats`), read when metrics are collected. */
export interface CpuPoolGauge {
  stats: () => { queued: number; admitted: number };
}

interface Instruments {
  requests: Counter;
  duration: Histogram;
  refusals: Counter;
  cpuBusy: Counter;
  pages: Counter;
  jobs: Counter;
  usdcSettled: Counter;
  payments: Counter;
  freePages: Counter;
  pools: Set<CpuPoolGauge>;
}

function createInstruments(): Instruments {
  ensureMeterProvider();
  const meter = metrics.getMeter("chunkwise");
  const pools = new Set<CpuPoolGauge>();
  const queued = meter.createObservableGauge("chunkwise_cpu_queue_depth", {
    description: "CPU tasks waiting for a worker thread",
  });
  const admitted = meter.createObservableGauge("chunkwise_cpu_admitted_requests", {
    description: "Requests holding one of the instance's places (running or waiting); past its capacity, 503 busy",
  });
  meter.addBatchObservableCallback(
    (observer) => {
      let q = 0;
      let a = 0;
      for (const pool of pools) {
        const stats = pool.stats();
        q += stats.queued;
        a += stats.admitted;
      }
      observer.observe(queued, q);
      observer.observe(admitted, a);
    },
    [queued, admitted],
  );
  return {
    requests: meter.createCounter("chunkwise_http_requests", {
      description: "API requests answered, by route, method, tier and status",
    }),
    duration: meter.createHistogram("chunkwise_http_request_duration_seconds", {
      description: "Time from a request's start to its answer, by route, tier and status class",
      unit: "s",
      advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
    }),
    refusals: meter.createCounter("chunkwise_http_errors", {
      description: "Error answers, by status and error code",
    }),
    cpuBusy: meter.createCounter("chunkwise_cpu_busy", {
      description: "Requests refused with 503 busy: the instance's places were all taken",
    }),
    pages: meter.createCounter("chunkwise_pages", {
      description: "Pages extracted, by how: text layer or markup (read), OCR (ocr)",
    }),
    jobs: meter.createCounter("chunkwise_jobs", {
      description: "Async jobs entering a state: accepted, completed, failed, taken_over",
    }),
    usdcSettled: meter.createCounter("chunkwise_usdc_settled_base_units", {
      description: "USDC received for paid requests, in base units (1 USDC = 1,000,000), by tier",
    }),
    payments: meter.createCounter("chunkwise_payments", {
      description: "Payments by outcome (verified, settled, refused, released, replayed) and tier",
    }),
    freePages: meter.createCounter("chunkwise_free_pages", {
      description: "Free-tier pages by outcome: taken, refused (over the day's allowance), returned",
    }),
    pools,
  };
}

// On globalThis because Next.js may instantiate this module once per route bundle: one set of instruments.
const holder = globalThis as typeof globalThis & { __chunkwiseInstruments?: Instruments };
const instruments = () => (holder.__chunkwiseInstruments ??= createInstruments());

const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

export function recordRequest(answer: {
  route: string;
  method: string;
  tier?: string;
  status: number;
  seconds: number;
  code?: string;
}): void {
  const { requests, duration, refusals } = instruments();
  const tier = answer.tier ?? "none";
  requests.add(1, { route: answer.route, method: answer.method, tier, status: String(answer.status) });
  duration.record(answer.seconds, { route: answer.route, tier, status_class: statusClass(answer.status) });
  if (answer.code) refusals.add(1, { status: String(answer.status), code: answer.code });
}

export const countBusy = () => instruments().cpuBusy.add(1);

export function countPages(read: number, ocr: number): void {
  const { pages } = instruments();
  if (read > 0) pages.add(read, { method: "read" });
  if (ocr > 0) pages.add(ocr, { method: "ocr" });
}

export type JobState = "accepted" | "completed" | "failed" | "taken_over";
export const countJob = (state: JobState, tier: string) => instruments().jobs.add(1, { state, tier });

export type PaymentOutcome = "verified" | "settled" | "refused" | "released" | "replayed";
export const countPayment = (outcome: PaymentOutcome, tier: string) => instruments().payments.add(1, { outcome, tier });

export const countUsdcSettled = (baseUnits: bigint, tier: string) =>
  instruments().usdcSettled.add(Number(baseUnits), { tier });

export type FreePagesOutcome = "taken" | "refused" | "returned";
export const countFreePages = (outcome: FreePagesOutcome, pages: number) =>
  instruments().freePages.add(pages, { outcome });

/** The pool's depth and places are read at each collection while it is open. */
export function watchCpuPool(pool: CpuPoolGauge): () => void {
  const { pools } = instruments();
  pools.add(pool);
  return () => pools.delete(pool);
}
