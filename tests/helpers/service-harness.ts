/**
 * The set-up the in-process service suites share: a real redis-server (or the memory store), the project's local
 * chain and the model stand-in, each started only when asked for; services built on them and installed with
 * `setServices`; the work they schedule after a response tracked, and waited for after each test; all of it
 * stopped after the file.
 */
import { createSolanaRpc } from "@solana/kit";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { type Config, loadConfig } from "@/lib/ground/config";
import { type ServiceOverrides, type Services, createServices, setServices } from "@/lib/services";
import { MemoryStore, RedisStore } from "@/lib/store";
import { type LocalChain, startLocalChain } from "@/localchain";
import { type ModelStandin, startModelStandin } from "@/standin/model-server";
import type { Rpc } from "./chain";
import { type RedisServer, startRedisServer } from "./redis-server";

export interface HarnessOptions {
  /** `redis` (the default): a redis-server of the file's own; `memory`: the in-process store, nothing started. */
  store?: "redis" | "memory";
  /** The local chain: its RPC and payee in the settings, a confirmation timeout of 1 s. */
  chain?: boolean;
  /** With the chain: the chain's fee payer as the service's, so x402 payments are settled by the service. */
  feePayer?: boolean;
  /** The local model stand-in as the AI tiers' endpoint (standin-small, standin-large). */
  model?: boolean;
  /** Settings of the file, over the harness's and under those given to `use`. */
  env?: (harness: Harness) => Record<string, string>;
  /** Parts of the services the file replaces for every `use` (a `fetchUrl`, a CPU pool), given the settings. */
  overrides?: (harness: Harness, config: Config) => ServiceOverrides;
  /**
   * When services are built and installed: `beforeAll` (the default) once before the tests, `beforeEach` fresh for
   * each test, `never` only when the file calls `use` (for files that build their own parts for each test).
   */
  install?: "beforeAll" | "beforeEach" | "never";
}

export interface Harness {
  readonly redis: RedisServer;
  readonly store: RedisStore | MemoryStore;
  readonly chain: LocalChain;
  readonly rpc: Rpc;
  readonly model: ModelStandin;
  /** The services installed now. */
  readonly services: Services;
  /** Builds services with these settings and parts over the file's, installs them and returns them. */
  use: (env?: Record<string, string>, overrides?: ServiceOverrides) => Services;
  /** How many pieces of scheduled work have not settled yet. */
  readonly pending: number;
  /** Waits for all work scheduled so far (and what it schedules) to settle. */
  drain: () => Promise<void>;
  /** While false, scheduled work is dropped, as if the instance that took it died before it started. */
  runScheduledWork: boolean;
}

/** Registers the file's hooks; the handles are there from the first `beforeAll` on. */
export function serviceHarness(options: HarnessOptions = {}): Harness {
  const started: {
    redis?: RedisServer;
    store?: RedisStore | MemoryStore;
    chain?: LocalChain;
    rpc?: Rpc;
    model?: ModelStandin;
    services?: Services;
  } = {};
  const background = new Set<Promise<void>>();
  const needed = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not started: ask serviceHarness for it`);
    return value;
  };
  const schedule: Services["schedule"] = (work) => {
    if (!harness.runScheduledWork) return;
    const running = work().finally(() => background.delete(running));
    background.add(running);
  };

  const harness = {
    get pending() {
      return background.size;
    },
    runScheduledWork: true,
    use(env: Record<string, string> = {}, overrides: ServiceOverrides = {}) {
      const config = loadConfig({ ...wiring(), ...options.env?.(harness), ...env });
      const services = createServices(config, {
        store: harness.store,
        schedule,
        ...options.overrides?.(harness, config),
        ...overrides,
      });
      setServices(services);
      started.services = services;
      return services;
    },
    async drain() {
      while (background.size > 0) await Promise.allSettled([...background]);
    },
  } as Harness;
  // Each handle read before it is started, or in a file that did not ask for it, says so instead of being undefined.
  const handles = {
    redis: "redis-server",
    store: "the store",
    chain: "the local chain",
    rpc: "the local chain",
    model: "the model stand-in",
    services: "services",
  } as const;
  for (const [key, what] of Object.entries(handles))
    Object.defineProperty(harness, key, { get: () => needed(started[key as keyof typeof handles], what) });

  /** The settings that point the services at what this harness started. */
  function wiring(): Record<string, string> {
    const env: Record<string, string> = {};
    if (started.redis) env.REDIS_URL = started.redis.url;
    if (started.chain) {
      env.SOLANA_RPC_URL = started.chain.rpcUrl;
      env.PAY_TO_ADDRESS = started.chain.payTo;
      env.PAYMENT_CONFIRM_TIMEOUT_MS = "1000";
      if (options.feePayer) env.FEE_PAYER_SECRET_KEY = started.chain.feePayer.secretKey;
    }
    if (started.model) {
      env.AI_BASE_URL = started.model.url;
      env.AI_MODEL = "standin-small";
      env.AI_PRO_MODEL = "standin-large";
    }
    return env;
  }

  // A generous minute to start: a busy machine starts the chain slowly.
  beforeAll(async () => {
    if (options.store === "memory") started.store = new MemoryStore();
    else {
      started.redis = await startRedisServer();
      started.store = new RedisStore({ url: started.redis.url });
    }
    if (options.chain) {
      started.chain = await startLocalChain({ port: 0 });
      started.rpc = createSolanaRpc(started.chain.rpcUrl);
    }
    if (options.model) started.model = await startModelStandin({ port: 0 });
    if (options.install !== "never") harness.use();
  }, 60_000);

  if (options.install === "beforeEach") beforeEach(() => void harness.use());

  afterEach(async () => {
    await harness.drain();
    harness.runScheduledWork = true;
    started.model?.reset();
  });

  afterAll(async () => {
    await harness.drain();
    setServices(undefined);
    await started.model?.close();
    await started.chain?.close();
    if (started.store instanceof RedisStore) await started.store.close();
    await started.redis?.stop();
  });

  return harness;
}
