import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";
import { createChainRpc } from "@/lib/payments/chain-rpc";
import { type PaidRequest, PaymentGate } from "@/lib/payments/gate";
import { paymentRequired } from "@/lib/payments/payment-required";
import { MemoryStore, RedisStore } from "@/lib/store";
import type { Store } from "@/lib/store/types";
import { TIERS } from "@/lib/tiers";
import { TokenBucket } from "@/lib/store/token-bucket";
import { type RedisServer, startRedisServer } from "./helpers/redis-server";

/**
 * Unpaid requests against the store: each 402 hands out a one-time
 * reference, and a loop of unpaid requests must not grow the store without
 * bound (on the memory store and on a real redis-server alike).
 */

const CAP = 20;
const PER_MINUTE = 2;
// The chain is never asked: unpaid requests are refused before any payment is read.
const config = loadConfig({
  SOLANA_NETWORK: "solana-devnet",
  SOLANA_RPC_URL: "http://127.0.0.1:9",
  PAY_TO_ADDRESS: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
  PAYMENT_MAX_OUTSTANDING_REFERENCES: String(CAP),
  PAYMENT_UNPAID_REFERENCES_PER_MINUTE: String(PER_MINUTE),
});
/** The defaults: what a NAT of ordinary users gets. */
const defaults = loadConfig({
  SOLANA_NETWORK: "solana-devnet",
  SOLANA_RPC_URL: "http://127.0.0.1:9",
  PAY_TO_ADDRESS: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
});
/** Distinct 402s one person makes in a session of the web page: each paid tier (4) for each of three documents. */
const ORDINARY_SESSION = 4 * 3;

const unpaid = (client: string, document: number): PaidRequest => ({
  client,
  tier: TIERS.structure,
  document: `sha256:${document}`,
  request: `request-${document}`,
  resource: "http://chunkwise.test/api/chunk/structure",
  resourceKind: "form-data",
});

/** The answer the route gives: a refused admission's 402, or the 429 the gate throws. */
async function refusal(gate: PaymentGate, request: PaidRequest): Promise<ApiError> {
  const error = await gate.admit(request).then(
    (admission) => (admission.kind === "refused" ? paymentRequired(admission) : undefined),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const referenceOf = (error: ApiError) =>
  (error.body as { paymentRequirements: { extra: { reference?: string } } }).paymentRequirements.extra.reference;

function suite(name: string, open: () => Promise<{ store: Store; keys: () => Promise<number> }>) {
  describe(name, () => {
    let store: Store;
    let keys: () => Promise<number>;
    let gate: PaymentGate;
    beforeAll(async () => {
      ({ store, keys } = await open());
      gate = new PaymentGate(config, store, createChainRpc(config.payments.rpcUrl));
    });

    it("gives each of 20 takes at once a token while the bucket has 30: contention is not a full bucket", async () => {
      const bucket = new TokenBucket(store, `contended-${name}:`, { burst: 30, perMinute: 2 });
      const taken = await Promise.all(Array.from({ length: 20 }, () => bucket.take("one-client")));
      expect(taken.filter((t) => t.ok)).toHaveLength(20);
    });

    it("10,000 unpaid requests for distinct documents from one client leave 2 keys per allowed reference and a bucket", async () => {
      const before = await keys();
      const started = Date.now();
      const statuses = new Map<number, number>();
      for (let i = 0; i < 10_000; i++) {
        const { status } = await refusal(gate, unpaid("203.0.113.1", i));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
      // The burst, plus what the bucket refilled while the loop ran (none on a quick machine).
      const refilled = Math.ceil(((Date.now() - started) / 60_000) * PER_MINUTE);
      const allowed = statuses.get(402) ?? 0;
      expect(allowed).toBeGreaterThanOrEqual(CAP);
      expect(allowed).toBeLessThanOrEqual(CAP + refilled);
      expect(statuses.get(429)).toBe(10_000 - allowed);
      expect((await keys()) - before).toBe(2 * allowed + 1);
    });

    it("refuses past the allowance with 429 and a Retry-After of one refill (seconds, not the hour), and other clients are unaffected", async () => {
      const over = await refusal(gate, unpaid("203.0.113.1", 20_000));
      expect(over.code).toBe("too_many_unpaid_requests");
      expect(Number(over.headers?.["Retry-After"])).toBeGreaterThan(0);
      expect(Number(over.headers?.["Retry-After"])).toBeLessThanOrEqual(60 / PER_MINUTE);
      expect((await refusal(gate, unpaid("203.0.113.2", 20_000))).status).toBe(402);
    });

    it("the same unpaid request asked 10,000 times gets the same reference and writes nothing more", async () => {
      const first = referenceOf(await refusal(gate, unpaid("203.0.113.3", 1)));
      const before = await keys();
      for (let i = 0; i < 10_000; i++) expect(referenceOf(await refusal(gate, unpaid("203.0.113.3", 1)))).toBe(first);
      expect(await keys()).toBe(before);
    });

    it("with the defaults, two people's sessions behind one address are never refused; a flood is, for seconds", async () => {
      const nat = new PaymentGate(defaults, store, createChainRpc(defaults.payments.rpcUrl));
      for (let i = 0; i < 2 * ORDINARY_SESSION; i++)
        expect((await refusal(nat, unpaid("192.0.2.10", 30_000 + i))).status).toBe(402);
      let refused: ApiError | undefined;
      for (let i = 0; i < 1000 && !refused; i++) {
        const error = await refusal(nat, unpaid("192.0.2.10", 31_000 + i));
        if (error.status === 429) refused = error;
      }
      expect(refused?.code).toBe("too_many_unpaid_requests");
      expect(Number(refused?.headers["Retry-After"])).toBeLessThanOrEqual(60);
    });

    it("a refused payment past the allowance still answers 402 with its reason, without a new reference", async () => {
      for (let i = 0; i < CAP; i++) await refusal(gate, unpaid("203.0.113.4", i));
      const refused = await refusal(gate, {
        ...unpaid("203.0.113.4", 99),
        payment: { name: "X-PAYMENT", value: "nope" },
      });
      expect({ status: refused.status, code: refused.code }).toEqual({ status: 402, code: "payment_invalid" });
      expect(referenceOf(refused)).toBeUndefined();
    });
  });
}

describe("the token bucket behind the allowance (a clock of its own)", () => {
  it("refills by the minute up to its burst, gives back a token, and keeps one key only until full", async () => {
    const store = new MemoryStore();
    let now = 1_000_000;
    const bucket = new TokenBucket(store, "b:", { burst: 3, perMinute: 2 }, () => now);
    for (let i = 0; i < 3; i++) expect(await bucket.take("x")).toEqual({ ok: true });
    expect(await bucket.take("x")).toEqual({ ok: false, retryAfterMs: 30_000 });
    now += 30_000;
    expect(await bucket.take("x")).toEqual({ ok: true });
    expect((await bucket.take("x")).ok).toBe(false);
    await bucket.giveBack("x");
    expect(await bucket.take("x")).toEqual({ ok: true });
    // One key, living only until the bucket is full again (three intervals from now).
    expect(store.size).toBe(1);
    expect(await store.ttlMs("b:x")).toBeLessThanOrEqual(3 * 30_000);
  });
});

suite("on the memory store", async () => {
  const store = new MemoryStore();
  return { store, keys: async () => store.size };
});

let redis: RedisServer;
const stores: RedisStore[] = [];
const clients: ReturnType<typeof createClient>[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
}, 30_000);
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await Promise.all(clients.map((c) => c.quit()));
  await redis?.stop();
});

suite("on a real redis-server", async () => {
  const store = new RedisStore({ url: redis.url });
  const client = createClient({ url: redis.url });
  await client.connect();
  stores.push(store);
  clients.push(client);
  return { store, keys: () => client.dbSize() };
});
