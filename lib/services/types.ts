import type { ModelClients } from "@/lib/ai/model-client";
import type { ClientSlots } from "@/lib/quota/client-slots";
import type { Config } from "@/lib/ground/config";
import type { CpuPool } from "@/lib/cpu/pool";
import type { Embedder } from "@/lib/embeddings/types";
import type { FetchedDocument } from "@/lib/fetch/safe-fetch";
import type { Engine } from "@/lib/jobs/engine";
import type { JobStore } from "@/lib/jobs/job-store";
import type { ChainRpc } from "@/lib/payments/chain-rpc";
import type { ComputedResults } from "@/lib/payments/computed-results";
import type { PaymentGate } from "@/lib/payments/gate";
import type { FreeQuota } from "@/lib/quota/free-quota";
import type { ResultStore } from "@/lib/results";
import type { Store } from "@/lib/store/types";
import type { Uploads } from "@/lib/uploads/uploads";
import type { Webhooks } from "@/lib/webhooks/webhooks";

/**
 * The side effects of the service, chosen once at start-up from the config.
 * Tests build their own with `createServices(config)` against real components.
 */
export interface Services {
  config: Config;
  store: Store;
  quota: FreeQuota;
  /** Each client's chunking requests in progress, and its jobs accepted and not finished (lib/quota/client-slots.ts). */
  clientRequests: ClientSlots;
  clientJobs: ClientSlots;
  results: ResultStore;
  embedder: Embedder;
  chain: ChainRpc;
  payments: PaymentGate;
  /** Results computed for a payment that failed to settle, answered to the next payment of the same request. */
  computedResults: ComputedResults;
  /** The AI tiers' models (absent: that tier is not configured). */
  models: ModelClients;
  jobs: JobStore;
  /** Two-step uploads (`POST /api/uploads`), their bytes in the store or in Vercel Blob. */
  uploads: Uploads;
  /** The worker threads for CPU work, and the bounded line of requests in front of them. */
  cpu: CpuPool;
  fetchUrl: (url: string) => Promise<FetchedDocument>;
  /**
   * Runs work beyond the response (an async job). By default it starts at
   * once, detached; on Vercel `waitUntil` keeps the function alive for it
   * (within its time limit), elsewhere that call does nothing and the
   * process simply keeps running it. Jobs hold leases, so work cut short is
   * taken over by a later poll.
   */
  schedule: (work: () => Promise<void>) => void;
  /** What drives a job's slices: QStash when configured, else this process (through `schedule`). */
  engine: Engine;
  /** Jobs' signed webhooks: their URL checked at acceptance, their tries scheduled when the job ends. */
  webhooks: Webhooks;
}
