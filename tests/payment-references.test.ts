import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";
import { ApiError } from "@/lib/errors";
import { createChainRpc } from "@/lib/payments/chain-rpc";
import { type PaidRequest, PaymentGate } from "@/lib/payments/gate";
import { MemoryStore, RedisStore } from "@/lib/store";
import type { Store } from "@/lib/store/types";
import { TIERS } from "@/lib/tiers";
import { type RedisServer, startRedisServer } from "./helpers/redis-server";

/**
 * Unpaid requests against the store: each 402 hands out a one-time
 * reference, and a loop of unpaid requests must not grow the store without
 * bound (on the memory store and on a real redis-server alike).
 */

const CAP = 20;
// The chain is never asked: unpaid requests are refused before any payment is read.
const config = loadConfig({
  SOLANA_NETWORK: "solana-devnet",
  SOLANA_RPC_URL: "http://127.0.0.1:9",
  PAY_TO_ADDRESS: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
  PAYMENT_MAX_OUTSTANDING_REFERENCES: String(CAP),
});

const unpaid = (client: string, document: number): PaidRequest => ({
  client,
  tier: TIERS.structure,
  document: `sha256:${document}`,
  request: `request-${document}`,
  resource: "http://chunkwise.test/api/chunk/structure",
  resourceKind: "form-data",
});

async function refusal(gate: PaymentGate, request: PaidRequest): Promise<ApiError> {
  const error = await gate.admit(request).then(
    () => undefined,
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

    it("10,000 unpaid requests for distinct documents from one client leave 2 keys per allowed reference and a counter", async () => {
      const before = await keys();
      const statuses = new Map<number, number>();
      for (let i = 0; i < 10_000; i++) {
        const { status } = await refusal(gate, unpaid("203.0.113.1", i));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
      expect(Object.fromEntries(statuses)).toEqual({ 402: CAP, 429: 10_000 - CAP });
      expect((await keys()) - before).toBe(2 * CAP + 1);
    });

    it("refuses past the allowance with 429 and Retry-After, and other clients are unaffected", async () => {
      const over = await refusal(gate, unpaid("203.0.113.1", 20_000));
      expect(over.code).toBe("too_many_unpaid_requests");
      expect(Number(over.headers?.["Retry-After"])).toBeGreaterThan(0);
      expect((await refusal(gate, unpaid("203.0.113.2", 20_000))).status).toBe(402);
    });

    it("the same unpaid request asked 10,000 times gets the same reference and writes nothing more", async () => {
      const first = referenceOf(await refusal(gate, unpaid("203.0.113.3", 1)));
      const before = await keys();
      for (let i = 0; i < 10_000; i++) expect(referenceOf(await refusal(gate, unpaid("203.0.113.3", 1)))).toBe(first);
      expect(await keys()).toBe(before);
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
