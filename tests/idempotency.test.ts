import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { appendPaymentIdentifierToExtensions } from "@x402/extensions/payment-identifier";
import { x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { createClient } from "redis";
import { describe, expect, it } from "vitest";
import { IdempotencyRecords } from "@/lib/idempotency/records";
import { associatedTokenAccount } from "@/lib/payments/usdc-transfer";
import { clientPerTest, connectMcp, funded, json, payFor402, prose, upload } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";

/**
 * Idempotency keys (the `Idempotency-Key` header, the MCP tool's `idempotency_key`, x402 v2's
 * `payment-identifier`) through the route handlers, on a real redis-server and the local chain.
 */

const h = serviceHarness({
  chain: true,
  feePayer: true,
  // The in-flight test's document is served from loopback.
  env: () => ({ URL_FETCH_ALLOW_PRIVATE: "true" }),
});

const PRICE = 2000n; // structure tier

// Each test asks as its own client: keys and free pages are counted per client.
const asClient = clientPerTest();
const { call } = asClient;

let documentCounter = 0;
const newDocument = () => `# Memo ${++documentCounter}\n\n${prose(1, documentCounter)}`;
let keyCounter = 0;
const newKey = () => `key_${Date.now().toString(36)}_${++keyCounter}_abcdefgh`;

const send = (document: string, headers: Record<string, string> = {}, endpoint = "standard") =>
  call("POST", `/api/chunk/${endpoint}`, { body: upload(document, "memo.md"), headers });

async function freePagesLeft(): Promise<number> {
  const response = await call("GET", "/api/quota");
  expect(response.status).toBe(200);
  return (await json(response)).remaining as number;
}

async function usdcBalance(owner: string): Promise<bigint> {
  const account = await associatedTokenAccount(owner, h.chain.usdcMint);
  const { value } = await h.rpc.getTokenAccountBalance(account).send();
  return BigInt(value.amount);
}

describe("Idempotency-Key on free requests", () => {
  it("the same request again with the key gets the identical answer, and its pages are counted once", async () => {
    const key = newKey();
    const document = newDocument();
    const before = await freePagesLeft();
    const first = await send(document, { "Idempotency-Key": key }, "free");
    const firstBody = await first.text();
    expect(first.status, firstBody).toBe(200);
    const afterFirst = await freePagesLeft();
    expect(afterFirst).toBeLessThan(before);

    const again = await send(document, { "Idempotency-Key": `"${key}"` }, "free");
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(firstBody);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await freePagesLeft()).toBe(afterFirst);

    // Keys are per client: another address with the same key is another request.
    const elsewhere = await call("POST", "/api/chunk/free", {
      client: "192.0.2.200",
      body: upload(newDocument(), "memo.md"),
      headers: { "Idempotency-Key": key },
    });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get("idempotent-replayed")).toBeNull();
  });

  it("the key with another document, or other options, is refused with 409 idempotency_key_reused", async () => {
    const key = newKey();
    const document = newDocument();
    expect((await send(document, { "Idempotency-Key": key }, "free")).status).toBe(200);
    const left = await freePagesLeft();

    const otherDocument = await send(newDocument(), { "Idempotency-Key": key }, "free");
    expect(otherDocument.status).toBe(409);
    expect(await json(otherDocument)).toMatchObject({ success: false, code: "idempotency_key_reused" });
    const otherOptions = await call("POST", "/api/chunk/free", {
      body: upload(document, "memo.md", { max_tokens: "300" }),
      headers: { "Idempotency-Key": key },
    });
    expect(otherOptions.status).toBe(409);
    expect((await json(otherOptions)).code).toBe("idempotency_key_reused");
    expect(await freePagesLeft()).toBe(left);
  });

  it("a malformed key is a 400 invalid_idempotency_key that takes no page", async () => {
    const before = await freePagesLeft();
    for (const bad of ["short", "has spaces in it, sixteen+", "x".repeat(129), "ünïcödé-ünïcödé-ünïcödé"]) {
      const response = await send(newDocument(), { "Idempotency-Key": bad }, "free");
      expect(response.status, bad).toBe(400);
      expect((await json(response)).code).toBe("invalid_idempotency_key");
    }
    expect(await freePagesLeft()).toBe(before);
  });

  it("a key whose answer expired (RESULT_TTL_SECONDS) is a new key", async () => {
    h.use({ RESULT_TTL_SECONDS: "1" });
    try {
      const key = newKey();
      expect((await send(newDocument(), { "Idempotency-Key": key }, "free")).status).toBe(200);
      const other = newDocument();
      expect((await send(other, { "Idempotency-Key": key }, "free")).status).toBe(409);
      await sleep(1500);
      const left = await freePagesLeft();
      const afterExpiry = await send(other, { "Idempotency-Key": key }, "free");
      expect(afterExpiry.status).toBe(200);
      expect(afterExpiry.headers.get("idempotent-replayed")).toBeNull();
      expect(await freePagesLeft()).toBeLessThan(left);
    } finally {
      h.use();
    }
  });

  it("while the first request with the key is served, the same one again is 409 idempotency_key_in_flight", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    const document = newDocument();
    const slow: Server = createServer((_request, response) => {
      asked++;
      void released.then(() => response.writeHead(200, { "content-type": "text/markdown" }).end(document));
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/memo.md`;
      const key = newKey();
      const ask = () =>
        call("POST", "/api/chunk", {
          body: JSON.stringify({ url, tier: "free" }),
          headers: { "content-type": "application/json", "Idempotency-Key": key },
        });
      const first = ask();
      for (let i = 0; i < 400 && asked === 0; i++) await sleep(25);
      expect(asked).toBe(1);

      const during = await ask();
      expect(during.status).toBe(409);
      expect((await json(during)).code).toBe("idempotency_key_in_flight");
      expect(Number(during.headers.get("retry-after"))).toBeGreaterThan(0);

      release();
      const answered = await first;
      const answer = await answered.text();
      expect(answered.status, answer).toBe(200);
      const after = await ask();
      expect(await after.text()).toBe(answer);
      expect(asked).toBe(1);
    } finally {
      release();
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});

describe("Idempotency-Key on paid requests", () => {
  it("a paid (signature) request repeated with the key gets the stored answer, without a second payment", async () => {
    const key = newKey();
    const document = newDocument();
    // The 402 is not kept under the key: the paid retry that follows runs under it.
    const signature = await payFor402(h.rpc, h.chain, () => send(document, { "Idempotency-Key": key }));
    const paid = await send(document, { "X-PAYMENT": signature, "Idempotency-Key": key });
    const paidBody = await paid.text();
    expect(paid.status, paidBody).toBe(200);
    expect(JSON.parse(paidBody).payment.transaction).toBe(signature);

    // No payment at all: answered from the key, not asked to pay again.
    const repeated = await send(document, { "Idempotency-Key": key });
    expect(repeated.status).toBe(200);
    expect(await repeated.text()).toBe(paidBody);
    expect(repeated.headers.get("idempotent-replayed")).toBe("true");

    // A second transfer sent by a client that thought the first failed is not consumed: it still pays for another request.
    const other = newDocument();
    const second = await payFor402(h.rpc, h.chain, () => send(other));
    const withSecond = await send(document, { "X-PAYMENT": second, "Idempotency-Key": key });
    expect(await withSecond.text()).toBe(paidBody);
    const spent = await send(other, { "X-PAYMENT": second });
    expect(spent.status).toBe(200);
    expect((await json(spent)).payment.transaction).toBe(second);
  });

  it("x402 v2: the 402 declares payment-identifier; a payment repeated with its id gets the stored answer, charged once", async () => {
    const payer = await funded();
    const v2 = new x402Client();
    v2.register("solana:*", new ExactSvmScheme(payer, { rpcUrl: h.chain.rpcUrl }));
    const id = `pay_${newKey()}`;
    const document = newDocument();

    const payWithId = async (doc: string) => {
      const asked = await send(doc);
      expect(asked.status).toBe(402);
      const required = decodePaymentRequiredHeader(asked.headers.get("payment-required")!);
      expect(required.extensions?.["payment-identifier"]).toMatchObject({ info: { required: false } });
      const payload = await v2.createPaymentPayload(required);
      payload.extensions = appendPaymentIdentifierToExtensions({ ...payload.extensions }, id);
      return encodePaymentSignatureHeader(payload);
    };

    const before = await usdcBalance(payer.address);
    const first = await send(document, { "PAYMENT-SIGNATURE": await payWithId(document) });
    const firstBody = await first.text();
    expect(first.status, firstBody).toBe(200);
    expect(first.headers.get("payment-response")).not.toBeNull();
    expect(await usdcBalance(payer.address)).toBe(before - PRICE);

    // A retry with a fresh payload (a new transaction) and the same id: the stored answer, nothing settled.
    const retried = await send(document, { "PAYMENT-SIGNATURE": await payWithId(document) });
    expect(retried.status).toBe(200);
    expect(await retried.text()).toBe(firstBody);
    expect(retried.headers.get("payment-response")).toBe(first.headers.get("payment-response"));
    expect(await usdcBalance(payer.address)).toBe(before - PRICE);

    // The id with another document: refused, nothing settled.
    const other = newDocument();
    const reused = await send(other, { "PAYMENT-SIGNATURE": await payWithId(other) });
    expect(reused.status).toBe(409);
    expect((await json(reused)).code).toBe("idempotency_key_reused");
    expect(await usdcBalance(payer.address)).toBe(before - PRICE);
  });

  it("a payment-identifier and an Idempotency-Key that differ are refused", async () => {
    const v2 = new x402Client();
    v2.register("solana:*", new ExactSvmScheme(await funded(), { rpcUrl: h.chain.rpcUrl }));
    const document = newDocument();
    const asked = await send(document);
    const payload = await v2.createPaymentPayload(decodePaymentRequiredHeader(asked.headers.get("payment-required")!));
    payload.extensions = appendPaymentIdentifierToExtensions({ ...payload.extensions }, `pay_${newKey()}`);
    const response = await send(document, {
      "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload),
      "Idempotency-Key": newKey(),
    });
    expect(response.status).toBe(400);
    expect((await json(response)).code).toBe("invalid_idempotency_key");
  });
});

describe("MCP chunk_document idempotency_key", () => {
  const connect = () => connectMcp(asClient.address, "idempotency-test");

  it("the same call with the key answers the same result once; another call with it is refused", async () => {
    const sdk = await connect();
    try {
      const key = newKey();
      const text = newDocument();
      const before = await freePagesLeft();
      const chunk = (args: Record<string, unknown>) =>
        sdk.callTool({ name: "chunk_document", arguments: args }) as Promise<CallToolResult>;
      const first = await chunk({ text, tier: "free", idempotency_key: key });
      expect(first.isError, JSON.stringify(first.structuredContent)).toBeFalsy();
      const left = await freePagesLeft();
      expect(left).toBeLessThan(before);

      const again = await chunk({ text, tier: "free", idempotency_key: key });
      expect(again.structuredContent).toEqual(first.structuredContent);
      expect(await freePagesLeft()).toBe(left);

      const reused = await chunk({ text: newDocument(), tier: "free", idempotency_key: key });
      expect(reused.isError).toBe(true);
      expect(reused.structuredContent).toMatchObject({ code: "idempotency_key_reused" });
      const bad = await chunk({ text, tier: "free", idempotency_key: "bad key" });
      expect(bad.structuredContent).toMatchObject({ code: "invalid_idempotency_key" });
    } finally {
      await sdk.close();
    }
  });
});

describe("IdempotencyRecords on redis", () => {
  const records = (leaseMs: number) => new IdempotencyRecords(h.store, 60_000, leaseMs);
  const response = (n: number) => ({ body: { n }, headers: { "x-n": String(n) } });

  it("one record per key with its expiry; a lapsed lease is taken over and the late holder cannot overwrite it", async () => {
    const raw = createClient({ url: h.redis.url });
    await raw.connect();
    const recordNames = () => raw.keys("idempotency:*");
    const before = await recordNames();
    const scope = `scope-${newKey()}`;
    const key = newKey();
    const late = await records(200).begin(scope, key, "request-a");
    expect(late.kind).toBe("started");
    expect((await records(200).begin(scope, key, "request-a")).kind).toBe("in_flight");
    await sleep(400);

    const taken = await records(60_000).begin(scope, key, "request-a");
    expect(taken.kind).toBe("started");
    if (late.kind !== "started" || taken.kind !== "started") throw new Error("unreachable");
    // The holder whose lease lapsed finishes or gives up late: neither touches the new holder's record.
    await late.finish(response(1));
    await late.abandon();
    expect((await records(60_000).begin(scope, key, "request-a")).kind).toBe("in_flight");
    await taken.finish(response(2));
    expect(await records(60_000).begin(scope, key, "request-a")).toEqual({ kind: "replay", response: response(2) });

    // One record for the key, however often it was asked; every record (this file's too) fixed-size and expiring.
    const after = await recordNames();
    expect(after.filter((name) => !before.includes(name))).toHaveLength(1);
    expect(new Set(after.map((name) => name.length))).toEqual(new Set(["idempotency:".length + 64]));
    for (const name of after) {
      const ttl = await h.store.ttlMs(name);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60 * 60 * 1000);
    }
    await raw.quit();
  });
});
