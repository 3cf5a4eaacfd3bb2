import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type TransactionSigner,
  createKeyPairSignerFromPrivateKeyBytes,
  type Address,
  type Instruction,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase58Decoder,
} from "@solana/kit";
import { randomBytes } from "node:crypto";
import {
  getAddMemoInstruction,
  LEGACY_MEMO_PROGRAM_ADDRESS_V1,
  LEGACY_MEMO_PROGRAM_ADDRESS_V3,
} from "@solana-program/memo";
import { describe, expect, it, vi } from "vitest";
import { wrapFetchWithPayment, createSigner, decodeXPaymentResponse } from "x402-fetch";
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { validateDiscoveryExtensionSpec } from "@x402/extensions/bazaar";
import { wrapFetchWithPayment as wrapFetchWithPaymentV2, x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { associatedTokenAccount, memoInstruction } from "@/lib/payments/usdc-transfer";
import { clientPerTest, funded, inProcessFetch, json, ORIGIN, prose, upload } from "./helpers/api";
import { createOtherMint, transferToken } from "./helpers/chain";
import { serviceHarness } from "./helpers/service-harness";
import { startReferenceFacilitator } from "./helpers/facilitator";
import { startRecordingProxy } from "./helpers/rpc-proxy";
import { freePort } from "./helpers/redis-server";

/**
 * Paying for the paid tiers, through the route handlers, against the real
 * Solana runtime (the project's local chain) and a real redis-server.
 */

const h = serviceHarness({ chain: true, feePayer: true });

const PRICE = 2000n; // structure tier
const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dirname, "fixtures", name)));

/** The service settling x402 payments through x402's reference facilitator instead of its own fee payer key. */
async function withFacilitator(run: (facilitator: { requests: string[] }) => Promise<void>): Promise<void> {
  const facilitator = await startReferenceFacilitator(h.chain.rpcUrl, h.chain.feePayer.secretKey);
  h.use({
    FEE_PAYER_SECRET_KEY: "",
    X402_FACILITATOR_URL: facilitator.url,
    X402_FACILITATOR_FEE_PAYER: h.chain.feePayer.address,
  });
  try {
    await run(facilitator);
  } finally {
    await facilitator.close();
    h.use();
  }
}

// Each test asks as its own client: unpaid references are counted per client.
const asClient = clientPerTest();
const { call } = asClient;

let documentCounter = 0;
/** A distinct small document per call, so each test's requests are its own. */
const newDocument = () => `# Report ${++documentCounter}\n\n${prose(1, documentCounter)}`;

async function advanceClock(seconds: number): Promise<void> {
  const response = await fetch(h.chain.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "chunkwise_advanceClock", params: [seconds] }),
  });
  expect(await response.json()).not.toHaveProperty("error");
}

const send = (document: string, headers: Record<string, string> = {}, endpoint = "standard") =>
  call("POST", `/api/chunk/${endpoint}`, { body: upload(document, "report.md"), headers });

async function ask(document: string): Promise<Record<string, any>> {
  const response = await send(document);
  expect(response.status).toBe(402);
  return json(response);
}

async function usdcBalance(owner: string): Promise<bigint> {
  const account = await associatedTokenAccount(owner, h.chain.usdcMint);
  const { value } = await h.rpc.getTokenAccountBalance(account).send();
  return BigInt(value.amount);
}

const memoOf = (programAddress: Address, text: string) => getAddMemoInstruction({ memo: text }, { programAddress });

async function pay(
  payer: TransactionSigner,
  options: {
    amount?: bigint;
    reference?: string;
    /** The Memo instruction carrying `reference`; SPL Memo v2 by default. */
    memo?: (reference: string) => Instruction;
    owner?: string;
    mint?: string;
    skipPreflight?: boolean;
  } = {},
): Promise<string> {
  return transferToken(
    h.rpc,
    payer,
    {
      owner: options.owner ?? h.chain.payTo,
      mint: options.mint ?? h.chain.usdcMint,
      amount: options.amount ?? PRICE,
      memo: options.reference ? (options.memo ?? memoInstruction)(options.reference) : undefined,
    },
    { skipPreflight: options.skipPreflight },
  );
}

describe("the signature path (the spec's agent flow)", () => {
  it("serves a paid request once the transfer is confirmed, and returns the same result for the same payment and request", async () => {
    const document = newDocument();
    const required = await ask(document);
    expect(required.code).toBe("payment_required");
    expect(required.paymentRequirements).toMatchObject({
      payTo: h.chain.payTo,
      asset: h.chain.usdcMint,
      maxAmountRequired: "2000",
      network: "solana-localnet",
    });
    expect(required.paymentRequirements.extra.reference).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(required.accepts[0].extra.feePayer).toBe(h.chain.feePayer.address);

    const payer = await funded();
    const before = await usdcBalance(h.chain.payTo);
    const signature = await pay(payer, { reference: required.paymentRequirements.extra.reference });
    expect(await usdcBalance(h.chain.payTo)).toBe(before + PRICE);

    const served = await send(document, { "X-PAYMENT": signature });
    const result = await json(served);
    expect(served.status).toBe(200);
    expect(result).toMatchObject({
      success: true,
      tier: "structure",
      payment: { amount: 2000, asset: "USDC", network: "solana-localnet", transaction: signature },
    });
    expect(result.chunks.length).toBeGreaterThan(0);

    const again = await send(document, { "X-PAYMENT": signature });
    expect(again.status).toBe(200);
    expect(await json(again)).toEqual(result);
  });

  it("refuses a used signature for a different document", async () => {
    const payer = await funded();
    const signature = await pay(payer);
    expect((await send(newDocument(), { "X-PAYMENT": signature })).status).toBe(200);
    const reused = await send(newDocument(), { "X-PAYMENT": signature });
    expect(reused.status).toBe(402);
    const body = await json(reused);
    expect(body.code).toBe("payment_already_used");
    // Every refusal is a full 402 a client can pay from.
    expect(body.paymentRequirements.payTo).toBe(h.chain.payTo);
  });

  it("gives each bad payment a 402 with its own code", async () => {
    const payer = await funded();
    const stranger = await generateKeyPairSigner();
    const otherMint = await createOtherMint(h.rpc, payer, 1_000_000n);
    const cases: Array<[string, string]> = [
      ["payment_insufficient", await pay(payer, { amount: PRICE - 1n })],
      ["payment_wrong_asset", await pay(payer, { mint: otherMint })],
      ["payment_wrong_recipient", await pay(payer, { owner: stranger.address })],
      ["payment_failed", await pay(payer, { amount: 10_000_000_000n, skipPreflight: true })],
      ["payment_invalid", "not-a-signature"],
      ["payment_invalid", "3".repeat(100)],
      // Signature-length text outside base58: the base58 decoder throws on it, which must not become a 500.
      ["payment_invalid", "+".repeat(70)],
      ["payment_not_found", getBase58Decoder().decode(randomBytes(64))],
    ];
    for (const [code, header] of cases) {
      const response = await send(newDocument(), { "X-PAYMENT": header });
      expect({ header, status: response.status, code: (await json(response)).code }).toEqual({
        header,
        status: 402,
        code,
      });
    }
  });

  it("refuses a transaction older than the payment window", async () => {
    const payer = await funded();
    // The chain's clock runs two hours behind while this payment lands, so it is two hours old now.
    await advanceClock(-7200);
    const signature = await pay(payer).finally(() => advanceClock(7200));
    const response = await send(newDocument(), { "X-PAYMENT": signature });
    expect(response.status).toBe(402);
    expect((await json(response)).code).toBe("payment_expired");
  });

  it("lets exactly one of 10 concurrent requests with one fresh payment for 10 documents through", async () => {
    // One client sending 10 at once: its limit of requests in progress raised, so all 10 reach the payment.
    h.use({ CLIENT_MAX_CONCURRENT_REQUESTS: "10" });
    const payer = await funded();
    const signature = await pay(payer);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => send(newDocument(), { "X-PAYMENT": signature })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    const refusals = await Promise.all(responses.filter((r) => r.status !== 200).map(json));
    expect(refusals.map((r) => r.code)).toEqual(Array(9).fill("payment_already_used"));
    h.use();
  });

  // Each Memo program wallets and libraries use: the newest one's data reaches us undecoded.
  const memoBuilders = [
    { name: "@solana-program/memo's default builder", memo: (text: string) => getAddMemoInstruction({ memo: text }) },
    { name: "Memo v1", memo: (text: string) => memoOf(LEGACY_MEMO_PROGRAM_ADDRESS_V1, text) },
    { name: "Memo v2", memo: (text: string) => memoOf(LEGACY_MEMO_PROGRAM_ADDRESS_V3, text) },
  ];

  it.each(memoBuilders)("binds a reference carried by $name to its document and tier", async ({ memo }) => {
    const documentA = newDocument();
    const reference = (await ask(documentA)).paymentRequirements.extra.reference;
    // Enough for the semantic tier too, so that only the binding can refuse it there.
    const signature = await pay(await funded(), { reference, memo, amount: 4000n });

    const forB = await send(newDocument(), { "X-PAYMENT": signature });
    expect(forB.status).toBe(402);
    expect((await json(forB)).code).toBe("payment_reference_mismatch");
    const otherTier = await send(documentA, { "X-PAYMENT": signature }, "semantic");
    expect(otherTier.status).toBe(402);
    expect((await json(otherTier)).code).toBe("payment_reference_mismatch");

    expect((await send(documentA, { "X-PAYMENT": signature })).status).toBe(200);
  });

  it.each(memoBuilders)(
    "a strict server (PAYMENT_REQUIRE_REFERENCE) accepts a reference carried by $name",
    async ({ memo }) => {
      h.use({ PAYMENT_REQUIRE_REFERENCE: "true" });
      try {
        const document = newDocument();
        const reference = (await ask(document)).paymentRequirements.extra.reference;
        const signature = await pay(await funded(), { reference, memo });
        expect((await send(document, { "X-PAYMENT": signature })).status).toBe(200);
      } finally {
        h.use();
      }
    },
  );

  it("binds a payment carrying a reference to the document it was asked for", async () => {
    const documentA = newDocument();
    const documentB = newDocument();
    const reference = (await ask(documentA)).paymentRequirements.extra.reference;
    const payer = await funded();
    const signature = await pay(payer, { reference });

    const forB = await send(documentB, { "X-PAYMENT": signature });
    expect(forB.status).toBe(402);
    expect((await json(forB)).code).toBe("payment_reference_mismatch");
    // A reference binds the tier too.
    const otherTier = await send(documentA, { "X-PAYMENT": signature }, "semantic");
    expect(otherTier.status).toBe(402);

    expect((await send(documentA, { "X-PAYMENT": signature })).status).toBe(200);
  });

  it("a client past its allowance of unpaid references can still pay the 402s it holds, and paying frees one", async () => {
    h.use({ PAYMENT_MAX_OUTSTANDING_REFERENCES: "3" });
    try {
      const documentA = newDocument();
      const reference = (await ask(documentA)).paymentRequirements.extra.reference;
      await ask(newDocument());
      await ask(newDocument());
      const over = await send(newDocument());
      expect(over.status).toBe(429);
      expect((await json(over)).code).toBe("too_many_unpaid_requests");

      const paid = await send(documentA, { "X-PAYMENT": await pay(await funded(), { reference }) });
      expect(paid.status).toBe(200);
      expect((await send(newDocument())).status).toBe(402);
    } finally {
      h.use();
    }
  });

  it("refuses memo-less payments when configured strict", async () => {
    h.use({ PAYMENT_REQUIRE_REFERENCE: "true" });
    try {
      const payer = await funded();
      const signature = await pay(payer);
      const response = await send(newDocument(), { "X-PAYMENT": signature });
      expect(response.status).toBe(402);
      expect((await json(response)).code).toBe("payment_reference_required");
    } finally {
      h.use();
    }
  });

  it("leaves the payment usable when the work fails after payment", async () => {
    const payer = await funded();
    const signature = await pay(payer);
    const broken = await call("POST", "/api/chunk/standard", {
      body: upload(fixture("corrupted.pdf"), "broken.pdf"),
      headers: { "X-PAYMENT": signature },
    });
    expect(broken.status).toBe(400);
    const retried = await send(newDocument(), { "X-PAYMENT": signature });
    expect(retried.status).toBe(200);
    expect((await json(retried)).payment.transaction).toBe(signature);
  });

  it("answers 503 with the payment untouched while the RPC is down", async () => {
    const payer = await funded();
    const signature = await pay(payer);
    const document = newDocument();
    h.use({ SOLANA_RPC_URL: `http://127.0.0.1:${await freePort()}` });
    try {
      const down = await send(document, { "X-PAYMENT": signature });
      expect(down.status).toBe(503);
      expect(await json(down)).toMatchObject({ success: false, code: "chain_unavailable" });
      const health = await call("GET", "/api/health");
      expect(health.status).toBe(503);
      expect((await json(health)).checks.chain.ok).toBe(false);
    } finally {
      h.use();
    }
    expect((await send(document, { "X-PAYMENT": signature })).status).toBe(200);
  });

  it("pays through POST /api/chunk with a URL too, binding the reference to the URL", async () => {
    const body = (url: string) => JSON.stringify({ url, tier: "structure" });
    const headers = { "content-type": "application/json" };
    const asked = await call("POST", "/api/chunk", { body: body("http://127.0.0.1:9/a.txt"), headers });
    expect(asked.status).toBe(402);
    const reference = (await json(asked)).paymentRequirements.extra.reference;
    const payer = await funded();
    const signature = await pay(payer, { reference });
    const other = await call("POST", "/api/chunk", {
      body: body("http://127.0.0.1:9/b.txt"),
      headers: { ...headers, "X-PAYMENT": signature },
    });
    expect((await json(other)).code).toBe("payment_reference_mismatch");
  });
});

describe("the x402 path", () => {
  /** A funded payer whose secret x402's createSigner can take (base58 of seed then public key); kit keeps its own unexportable. */
  async function x402Payer() {
    const seed = randomBytes(32);
    const payer = await funded(await createKeyPairSignerFromPrivateKeyBytes(seed));
    const secret = getBase58Decoder().decode(new Uint8Array([...seed, ...getAddressEncoder().encode(payer.address)]));
    return { payer, signer: await createSigner("solana-devnet", secret) };
  }

  async function payWithX402Fetch(): Promise<{
    response: Response;
    result: Record<string, any>;
    settlement: ReturnType<typeof decodeXPaymentResponse>;
    payer: string;
  }> {
    const { payer, signer } = await x402Payer();
    const payingFetch = wrapFetchWithPayment(inProcessFetch(asClient.address), signer, 100_000n, undefined, {
      svmConfig: { rpcUrl: h.chain.rpcUrl },
    });
    const response = await payingFetch(`${ORIGIN}/api/chunk/standard`, {
      method: "POST",
      body: upload(newDocument(), "x402.md"),
    });
    const result = await json(response);
    expect(response.status, JSON.stringify(result)).toBe(200);
    return {
      response,
      result,
      settlement: decodeXPaymentResponse(response.headers.get("x-payment-response")!),
      payer: payer.address,
    };
  }

  it("an unmodified x402-fetch client pays and gets its result with X-PAYMENT-RESPONSE", async () => {
    const before = await usdcBalance(h.chain.payTo);
    const { result, settlement, payer } = await payWithX402Fetch();
    expect(settlement).toMatchObject({ success: true, network: "solana-devnet", payer });
    expect(result.payment).toMatchObject({ amount: 2000, transaction: settlement.transaction });
    expect(await usdcBalance(h.chain.payTo)).toBe(before + PRICE);

    // The settled transaction's signature cannot pay a second time through the signature path.
    const reuse = await send(newDocument(), { "X-PAYMENT": settlement.transaction });
    expect((await json(reuse)).code).toBe("payment_already_used");
  });

  it("settles through a configured facilitator (X402_FACILITATOR_URL) when the service holds no fee-payer key", async () => {
    await withFacilitator(async (facilitator) => {
      const before = await usdcBalance(h.chain.payTo);
      const { result, settlement } = await payWithX402Fetch();
      expect(facilitator.requests).toEqual(["/verify", "/settle"]);
      expect(result.payment.transaction).toBe(settlement.transaction);
      expect(await usdcBalance(h.chain.payTo)).toBe(before + PRICE);
      const reuse = await send(newDocument(), { "X-PAYMENT": settlement.transaction });
      expect((await json(reuse)).code).toBe("payment_already_used");
    });
  });
});

describe("x402 version 2: PAYMENT-REQUIRED, PAYMENT-SIGNATURE, PAYMENT-RESPONSE", () => {
  const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

  /** `@x402/fetch` 2.x set up as its README says, with the v2 scheme only. */
  function v2Client(signer: TransactionSigner) {
    const client = new x402Client();
    client.register("solana:*", new ExactSvmScheme(signer, { rpcUrl: h.chain.rpcUrl }));
    return client;
  }

  async function offerFor(document: string): Promise<{ body: Record<string, any>; required: PaymentRequired }> {
    const response = await send(document);
    expect(response.status).toBe(402);
    const header = response.headers.get("payment-required");
    expect(header).not.toBeNull();
    return { body: await json(response), required: decodePaymentRequiredHeader(header!) };
  }

  it("an unmodified @x402/fetch 2.x client registering only v2 pays and reads PAYMENT-RESPONSE", async () => {
    const payer = await funded();
    const before = await usdcBalance(h.chain.payTo);
    const payingFetch = wrapFetchWithPaymentV2(inProcessFetch(asClient.address), v2Client(payer));
    const response = await payingFetch(`${ORIGIN}/api/chunk/standard`, {
      method: "POST",
      body: upload(newDocument(), "v2.md"),
    });
    const result = await json(response);
    expect(response.status, JSON.stringify(result)).toBe(200);
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true, network: DEVNET, payer: payer.address });
    expect(result.payment).toMatchObject({ amount: 2000, transaction: settlement.transaction });
    expect(response.headers.get("x-payment-response")).toBeNull();
    expect(await usdcBalance(h.chain.payTo)).toBe(before + PRICE);
  });

  it("a v2 payment settles through the reference facilitator when one is configured", async () => {
    await withFacilitator(async (facilitator) => {
      const before = await usdcBalance(h.chain.payTo);
      const payingFetch = wrapFetchWithPaymentV2(inProcessFetch(asClient.address), v2Client(await funded()));
      const response = await payingFetch(`${ORIGIN}/api/chunk/standard`, {
        method: "POST",
        body: upload(newDocument(), "v2.md"),
      });
      const result = await json(response);
      expect(response.status, JSON.stringify(result)).toBe(200);
      expect(facilitator.requests).toEqual(["/verify", "/settle"]);
      const settlement = decodePaymentResponseHeader(response.headers.get("payment-response")!);
      expect(result.payment.transaction).toBe(settlement.transaction);
      expect(await usdcBalance(h.chain.payTo)).toBe(before + PRICE);
    });
  });

  it("through a facilitator too, work that fails settles nothing: it was asked to verify, never to settle", async () => {
    await withFacilitator(async (facilitator) => {
      const payer = await funded();
      const broken = (headers: Record<string, string> = {}) =>
        call("POST", "/api/chunk/standard", { body: upload(fixture("corrupted.pdf"), "broken.pdf"), headers });
      const asked = await broken();
      const payload = await v2Client(payer).createPaymentPayload(
        decodePaymentRequiredHeader(asked.headers.get("payment-required")!),
      );
      const before = await usdcBalance(payer.address);
      const failed = await broken({ "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) });
      expect(failed.status).toBe(400);
      expect(facilitator.requests).toEqual(["/verify"]);
      expect(await usdcBalance(payer.address)).toBe(before);
    });
  });

  it("every 402 carries the v2 offer beside the v1 body: CAIP-2 network, the reference as extra.memo, bazaar metadata", async () => {
    const { body, required } = await offerFor(newDocument());
    expect(required).toMatchObject({
      x402Version: 2,
      resource: { url: `${ORIGIN}/api/chunk/standard`, mimeType: "application/json" },
      accepts: [
        {
          scheme: "exact",
          network: DEVNET,
          amount: "2000",
          asset: h.chain.usdcMint,
          payTo: h.chain.payTo,
          extra: {
            feePayer: h.chain.feePayer.address,
            memo: body.paymentRequirements.extra.reference,
            tier: "structure",
          },
        },
      ],
    });
    expect(validateDiscoveryExtensionSpec(required.extensions!.bazaar as Record<string, unknown>)).toEqual({
      valid: true,
    });
    expect(required.extensions!.bazaar).toMatchObject({
      info: { input: { type: "http", method: "POST", bodyType: "form-data" } },
    });
    // The v1 body is unchanged for the clients that read it.
    expect(body).toMatchObject({ x402Version: 1, accepts: [{ network: "solana-devnet", maxAmountRequired: "2000" }] });
  });

  it("browsers may send PAYMENT-SIGNATURE and read PAYMENT-REQUIRED and PAYMENT-RESPONSE", async () => {
    const preflight = await call("OPTIONS", "/api/chunk/standard");
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/payment-signature/);
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/x-payment/);
    const response = await send(newDocument());
    const exposed = response.headers.get("access-control-expose-headers")!.split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(["payment-required", "payment-response", "x-payment-response"]));
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  const tampered: [string, (accepted: PaymentRequirements, other: string) => PaymentRequirements, string][] = [
    ["another tier", (a) => ({ ...a, extra: { ...a.extra, tier: "semantic" } }), "payment_wrong_tier"],
    ["another amount", (a) => ({ ...a, amount: "4000" }), "payment_amount_mismatch"],
    ["another payee", (a, other) => ({ ...a, payTo: other }), "payment_wrong_recipient"],
    [
      "another request's memo",
      (a, other) => ({ ...a, extra: { ...a.extra, memo: other } }),
      "payment_reference_mismatch",
    ],
  ];

  it.each(tampered)(
    "a v2 payload accepting %s is refused with its own code and no RPC call",
    async (_name, tamper, code) => {
      const proxy = await startRecordingProxy(h.chain.rpcUrl);
      h.use({ SOLANA_RPC_URL: proxy.url });
      try {
        const document = newDocument();
        const { required } = await offerFor(document);
        const payload = await v2Client(await funded()).createPaymentPayload(required);
        const otherReference = (await ask(newDocument())).paymentRequirements.extra.reference as string;
        const other = code === "payment_reference_mismatch" ? otherReference : (await generateKeyPairSigner()).address;
        proxy.methods = [];
        const response = await send(document, {
          "PAYMENT-SIGNATURE": encodePaymentSignatureHeader({ ...payload, accepted: tamper(payload.accepted, other) }),
        });
        expect(response.status).toBe(402);
        expect((await json(response)).code).toBe(code);
        expect(proxy.methods).toEqual([]);
      } finally {
        h.use();
        await proxy.close();
      }
    },
  );

  it("work that fails settles nothing: the payer keeps the money", async () => {
    const payer = await funded();
    const broken = () =>
      call("POST", "/api/chunk/standard", { body: upload(fixture("corrupted.pdf"), "broken.pdf"), headers: {} });
    const asked = await broken();
    expect(asked.status).toBe(402);
    const payload = await v2Client(payer).createPaymentPayload(
      decodePaymentRequiredHeader(asked.headers.get("payment-required")!),
    );
    const header = encodePaymentSignatureHeader(payload);
    const before = await usdcBalance(payer.address);

    const failed = await call("POST", "/api/chunk/standard", {
      body: upload(fixture("corrupted.pdf"), "broken.pdf"),
      headers: { "PAYMENT-SIGNATURE": header },
    });
    expect(failed.status).toBe(400);
    expect(await usdcBalance(payer.address)).toBe(before);
  });

  it("a settlement that fails after the work is a 402 with the reason, and a new payment is answered from the kept result", async () => {
    const proxy = await startRecordingProxy(h.chain.rpcUrl);
    const services = h.use({ SOLANA_RPC_URL: proxy.url });
    const lookups = vi.spyOn(services.computedResults, "find");
    try {
      const document = newDocument();
      const payer = await funded();
      const first = encodePaymentSignatureHeader(
        await v2Client(payer).createPaymentPayload((await offerFor(document)).required),
      );
      proxy.sends = "refuse";
      const refused = await send(document, { "PAYMENT-SIGNATURE": first });
      expect(refused.status).toBe(402);
      expect((await json(refused)).code).toBe("payment_failed");
      const [[requestKey]] = lookups.mock.calls as [[string]];
      expect(await services.computedResults.find(requestKey)).not.toBeNull();
      lookups.mockClear();

      proxy.sends = "forward";
      const before = await usdcBalance(h.chain.payTo);
      const second = encodePaymentSignatureHeader(
        await v2Client(payer).createPaymentPayload((await offerFor(document)).required),
      );
      const paid = await send(document, { "PAYMENT-SIGNATURE": second });
      const result = await json(paid);
      expect(paid.status, JSON.stringify(result)).toBe(200);
      expect(result.chunks.length).toBeGreaterThan(0);
      expect(await usdcBalance(h.chain.payTo)).toBe(before + PRICE);
      expect(await lookups.mock.results[0]?.value).not.toBeNull();
      expect(await services.computedResults.find(requestKey)).toBeNull();
    } finally {
      h.use();
      await proxy.close();
    }
  });
});

describe("local mode", () => {
  it("GET /api shows the local chain and the faucet; other networks have neither", async () => {
    const info = await json(await call("GET", "/api"));
    expect(info.localnet).toMatchObject({ rpc_url: h.chain.rpcUrl, faucet_url: `${ORIGIN}/api/dev/faucet` });
    expect(info.payment.x402.fee_payer).toBe(h.chain.feePayer.address);

    h.use({ SOLANA_NETWORK: "solana-devnet", PAY_TO_ADDRESS: h.chain.payTo });
    try {
      expect((await json(await call("GET", "/api"))).localnet).toBeUndefined();
      const faucet = await call("POST", "/api/dev/faucet", {
        body: JSON.stringify({ address: h.chain.payTo }),
        headers: { "content-type": "application/json" },
      });
      expect(faucet.status).toBe(404);
    } finally {
      h.use();
    }
  });

  it("the faucet refuses a bad address", async () => {
    const response = await call("POST", "/api/dev/faucet", {
      body: JSON.stringify({ address: "nope" }),
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(400);
    expect((await json(response)).code).toBe("invalid_request");
  });
});
