import { waitUntil } from "@vercel/functions";
import { createModelClients } from "@/lib/ai/model-client";
import pLimit from "p-limit";
import { ClientSlots, REQUEST_SLOT_LEASE_MS } from "@/lib/quota/client-slots";
import { type Config, ConfigError, loadConfig } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";
import { CpuPool } from "@/lib/cpu/pool";
import { fetchDocument } from "@/lib/fetch/safe-fetch";
import { createEmbedder } from "@/lib/embeddings";
import { createChainRpc } from "@/lib/payments/chain-rpc";
import { PaymentGate } from "@/lib/payments/gate";
import { ComputedResults } from "@/lib/payments/computed-results";
import { createEngine, type Engine } from "@/lib/jobs/engine";
import { JobStore } from "@/lib/jobs/job-store";
import { logEvent } from "@/lib/observability/events";
import { FreeQuota } from "@/lib/quota/free-quota";
import { ResultStore } from "@/lib/results";
import { createStore } from "@/lib/store";
import type { Services } from "@/lib/services/types";
import { type WebhookEndpoint, createWebhookEndpoint } from "@/lib/webhooks/endpoint";
import { InProcessWebhookScheduler, type WebhookDelivery, type WebhookScheduler } from "@/lib/webhooks/scheduler";
import { Webhooks } from "@/lib/webhooks/webhooks";
import { EngineWebhookScheduler } from "@/lib/webhooks/engine-scheduler";
import { vercelBlobStorage } from "@/lib/uploads/blob-storage";
import { Uploads } from "@/lib/uploads/uploads";

export type { Services } from "@/lib/services/types";

/** What tests may replace: the receiver's address rules (through `webhookEndpoint`) and when tries run. */
export interface ServiceOverrides extends Partial<
  Pick<Services, "store" | "fetchUrl" | "embedder" | "chain" | "schedule" | "cpu" | "uploads">
> {
  webhookEndpoint?: WebhookEndpoint;
  /** Given the function that makes one try; by default timers in this process. */
  webhookScheduler?: (deliver: (delivery: WebhookDelivery) => Promise<unknown>) => WebhookScheduler;
}

export function createServices(config: Config, overrides: ServiceOverrides = {}): Services {
  const store = overrides.store ?? createStore(config.store);
  const schedule = overrides.schedule ?? ((work: () => Promise<void>) => waitUntil(work()));
  const jobs = new JobStore(store);
  const chain = overrides.chain ?? createChainRpc(config.payments.rpcUrl);
  // One line for all model calls of these services, chat and embeddings, beside each request's own concurrency.
  const modelCalls = pLimit(config.ai.maxInflight);
  const engine = createEngine(config.jobs, schedule, async () => {
    const { runStep } = await import("@/lib/jobs/steps");
    return (step) => runStep(services, step);
  });
  const services: Services = {
    config,
    store,
    quota: new FreeQuota(store, config.freePagesPerDay),
    clientRequests: new ClientSlots(store, "requests", config.perClient.maxConcurrentRequests, REQUEST_SLOT_LEASE_MS),
    // Renewed with the job's lease, and outliving one lapse of it: a job taken over keeps its place.
    clientJobs: new ClientSlots(store, "jobs", config.perClient.maxActiveJobs, 2 * config.jobs.leaseMs),
    results: new ResultStore(store, config.resultTtlSeconds),
    embedder: overrides.embedder ?? createEmbedder(config.embeddings, modelCalls),
    chain,
    payments: new PaymentGate(config, store, chain),
    computedResults: new ComputedResults(store, config.payments.maxAgeSeconds * 1000),
    models: createModelClients(config.ai, modelCalls),
    jobs,
    uploads:
      overrides.uploads ??
      new Uploads(
        config,
        store,
        config.uploads.target.kind === "blob" ? vercelBlobStorage(config.uploads.target) : undefined,
      ),
    cpu: overrides.cpu ?? sharedPool(config.cpu),
    schedule,
    engine,
    fetchUrl: overrides.fetchUrl ?? ((url) => fetchDocument(url, config.urlFetch)),
    webhooks: createWebhooks(config, jobs, schedule, engine, overrides),
  };
  return services;
}

function createWebhooks(
  config: Config,
  jobs: JobStore,
  schedule: Services["schedule"],
  engine: Engine,
  overrides: ServiceOverrides,
): Webhooks {
  // The scheduler runs the tries of the Webhooks it serves, so `deliver` reaches it once both exist.
  const holder: { webhooks?: Webhooks } = {};
  const deliver = (delivery: WebhookDelivery) => holder.webhooks!.deliver(delivery);
  // On QStash the retries ride the engine, durable across functions; in process, bounded timers.
  const scheduler =
    overrides.webhookScheduler?.(deliver) ??
    (engine.kind === "qstash"
      ? new EngineWebhookScheduler(engine)
      : new InProcessWebhookScheduler({ deliver, schedule, maxPending: config.webhooks.maxPending }));
  const webhooks = new Webhooks({
    config,
    jobs,
    scheduler,
    // The document URLs' address rules (URL_FETCH_ALLOW_PRIVATE included), with the webhook's own deadline.
    endpoint:
      overrides.webhookEndpoint ??
      createWebhookEndpoint({ policy: config.urlFetch, timeoutMs: config.webhooks.timeoutMs }),
  });
  holder.webhooks = webhooks;
  return webhooks;
}

// On globalThis because Next.js may instantiate this module once per route bundle;
// the memory store must be one store for the whole process, and so must the worker pool.
const holder = globalThis as typeof globalThis & {
  __chunkwiseServices?: Services;
  __chunkwisePools?: Map<string, CpuPool>;
};

/** The process's pool for these settings: services made again (tests make one per case) share its threads and its line. */
function sharedPool(settings: Config["cpu"]): CpuPool {
  const pools = (holder.__chunkwisePools ??= new Map<string, CpuPool>());
  const key = JSON.stringify(settings);
  let pool = pools.get(key);
  if (!pool) pools.set(key, (pool = new CpuPool(settings)));
  return pool;
}

/**
 * The process-wide services, built on first use from `process.env`. A
 * configuration refused at load (hosts without server.mjs, such as Vercel,
 * meet it here first) answers 503 `server_misconfigured` and is logged, and
 * is read again on the next request.
 */
export function getServices(): Services {
  if (!holder.__chunkwiseServices) {
    let config: Config;
    try {
      config = loadConfig();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      logEvent("config.refused", { reason: error.message }, "error");
      throw new ApiError(
        "server_misconfigured",
        "This server's configuration is refused; its operator's log says why. Nothing was served or charged.",
        { cause: error },
      );
    }
    holder.__chunkwiseServices = createServices(config);
  }
  return holder.__chunkwiseServices;
}

/** For tests that drive the route handlers in process. */
export function setServices(services: Services | undefined): void {
  holder.__chunkwiseServices = services;
}
