import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type Address,
  AccountRole,
  type Instruction,
  type KeyPairSigner,
  type TransactionSigner,
  type Signature,
  address,
  appendTransactionMessageInstructions,
  compressTransactionMessageUsingAddressLookupTables,
  createKeyPairFromBytes,
  createKeyPairFromPrivateKeyBytes,
  createNoopSigner,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signBytes,
} from "@solana/kit";
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from "@solana-program/compute-budget";
import {
  getAddMemoInstruction,
  LEGACY_MEMO_PROGRAM_ADDRESS_V1,
  LEGACY_MEMO_PROGRAM_ADDRESS_V3,
} from "@solana-program/memo";
import { getTransferSolInstruction } from "@solana-program/system";
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from "@solana-program/token";
import { createPaymentHeader } from "x402/client";
import type { PaymentRequirements as X402Requirements } from "x402/types";
import { decodeXPaymentResponse, wrapFetchWithPayment } from "x402-fetch";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";
import { createChainRpc } from "@/lib/payments/chain-rpc";
import { type LocalChain, startLocalChain } from "@/localchain";
import { paymentRequiredError } from "@/lib/payments/payment-required";
import { type PaymentRequirement, paymentRequirement } from "@/lib/payments/requirements";
import type { Verdict } from "@/lib/payments/refusal";
import { X402FacilitatorClient } from "@/lib/payments/x402/facilitator";
import { offerV2 } from "@/lib/payments/x402/v2";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { faucet as fundOnLocalChain } from "./helpers/chain";
import { startReferenceFacilitator } from "./helpers/facilitator";
import { type RecordingProxy, startRecordingProxy } from "./helpers/rpc-proxy";
import {
  LIGHTHOUSE_PROGRAM_ADDRESS,
  cosignX402,
  readX402Header,
  type X402Payment,
  paymentResponseHeader,
  settleX402,
  verifyX402Payment,
} from "@/lib/payments/x402/v1";
import { TIERS, isPaid } from "@/lib/tiers";
import { DEFAULT_FEE_PAYER_MAX_SOL_USD, feeBudget, worstCaseFeeLamports } from "@/lib/ground/fee-budget";

/** The accepted value of a verdict, or its refusal raised as the 402 ApiError the tests' expectations read. */
function orRefuse<T>(verdict: Verdict<T>): T {
  if (!verdict.ok) throw new ApiError(verdict.refusal.code, verdict.refusal.message);
  return verdict.value;
}

/** An X-PAYMENT header read as the gate reads it, its refusal thrown as the 402 it becomes. */
function parseX402Header(header: string): X402Payment | null {
  const read = readX402Header(header);
  return read && orRefuse(read);
}

/**
 * The x402 exact-SVM path against the project's local chain: payloads made
 * by the unmodified x402 1.2.0 client are verified, co-signed and settled;
 * tampered ones are refused with their own code before anything reaches the
 * chain. The chain's RPC is reached through a recording proxy, so "nothing
 * sent" is observed, not assumed.
 */

type Rpc = ReturnType<typeof createSolanaRpc>;

let chain: LocalChain;
let rpc: Rpc;
let proxy: RecordingProxy;
let requirement: PaymentRequirement;
/** The 402's `accepts[0]`, as an x402 client sees it (network `solana-devnet`). */
let advertised: X402Requirements;
let payer: KeyPairSigner;
let feePayer: Address;
let feePayerSecret: string;
let usdc: Address;
let payTo: Address;
let price: bigint;

// ---------------------------------------------------------------- helpers

const faucet = (owner: Address) => fundOnLocalChain(chain.rpcUrl, owner);

const ata = async (owner: Address, mint: Address = usdc) =>
  (await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];

async function tokenBalance(owner: Address): Promise<bigint> {
  const { value } = await rpc.getTokenAccountBalance(await ata(owner)).send();
  return BigInt(value.amount);
}

interface Balances {
  payTo: bigint;
  payer: bigint;
  feePayerLamports: bigint;
}

async function balances(): Promise<Balances> {
  return {
    payTo: await tokenBalance(payTo),
    payer: await tokenBalance(payer.address),
    feePayerLamports: (await rpc.getBalance(feePayer).send()).value,
  };
}

const encodeHeader = (payment: unknown) => Buffer.from(JSON.stringify(payment)).toString("base64");
const decodeHeader = (header: string) =>
  JSON.parse(Buffer.from(header, "base64").toString("utf8")) as { network: string; payload: { transaction: string } };

/** What the pipeline's gate does with an x402 header. */
async function payThrough(header: string, options: { rpcUrl?: string; confirmTimeoutMs?: number } = {}) {
  const payment = parseX402Header(header);
  if (!payment) throw new Error("not an x402 header");
  const verified = orRefuse(await verifyX402Payment(payment, requirement, feePayer));
  const cosigned = orRefuse(await cosignX402(verified, feePayerSecret));
  orRefuse(
    await settleX402(createChainRpc(options.rpcUrl ?? proxy.url), cosigned, {
      confirmTimeoutMs: options.confirmTimeoutMs ?? 10_000,
    }),
  );
  return { verified, cosigned };
}

/** The signature the fee payer would give this payload: what the chain would know it by. */
async function wouldBeSignature(header: string): Promise<Signature> {
  const bytes = getBase64Encoder().encode(decodeHeader(header).payload.transaction);
  const transaction = getTransactionDecoder().decode(bytes);
  const keyPair = await createKeyPairFromBytes(getBase58Encoder().encode(feePayerSecret));
  return getBase58Decoder().decode(await signBytes(keyPair.privateKey, transaction.messageBytes)) as Signature;
}

async function statusOf(signature: string) {
  const { value } = await rpc.getSignatureStatuses([signature as Signature], { searchTransactionHistory: true }).send();
  return value[0] ?? null;
}

interface PaymentShape {
  amount?: bigint;
  recipient?: Address;
  mint?: Address;
  /** Before the compute budget. */
  first?: Instruction[];
  /** Accounts to move behind address lookup tables. */
  lookupTables?: Record<Address, Address[]>;
  /** Between the compute budget and the transfer. */
  before?: Instruction[];
  after?: Instruction[];
  network?: string;
  txFeePayer?: Address;
  microLamports?: bigint;
  units?: number;
  signer?: TransactionSigner;
}

/** A payload laid out like an x402 client's (newer clients add a Memo), with any part changed. */
async function buildPayment(shape: PaymentShape = {}): Promise<string> {
  const signer = shape.signer ?? payer;
  const mint = shape.mint ?? usdc;
  const transfer = getTransferCheckedInstruction({
    source: await ata(signer.address, mint),
    mint,
    destination: await ata(shape.recipient ?? payTo, mint),
    authority: signer,
    amount: shape.amount ?? price,
    decimals: 6,
  });
  const { value: blockhash } = await rpc.getLatestBlockhash().send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(shape.txFeePayer ?? feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) =>
      appendTransactionMessageInstructions(
        [
          ...(shape.first ?? []),
          getSetComputeUnitLimitInstruction({ units: shape.units ?? 40_000 }),
          getSetComputeUnitPriceInstruction({ microLamports: shape.microLamports ?? 1n }),
          ...(shape.before ?? []),
          transfer,
          ...(shape.after ?? []),
        ],
        m,
      ),
    (m) => (shape.lookupTables ? compressTransactionMessageUsingAddressLookupTables(m, shape.lookupTables) : m),
  );
  const signed = await partiallySignTransactionMessageWithSigners(message);
  return encodeHeader({
    x402Version: 1,
    scheme: "exact",
    network: shape.network ?? "solana-devnet",
    payload: { transaction: getBase64EncodedWireTransaction(signed) },
  });
}

const memo = (text: string): Instruction => ({
  programAddress: LEGACY_MEMO_PROGRAM_ADDRESS_V3,
  data: new TextEncoder().encode(text),
});

async function expectRefusal(promise: Promise<unknown>, status: number, code: string): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect({ status: (error as ApiError).status, code: (error as ApiError).code }).toEqual({ status, code });
  return error as ApiError;
}

// ---------------------------------------------------------------- setup

beforeAll(async () => {
  chain = await startLocalChain({ port: 0 });
  rpc = createSolanaRpc(chain.rpcUrl);
  proxy = await startRecordingProxy(chain.rpcUrl);
  usdc = address(chain.usdcMint);
  payTo = address(chain.payTo);
  feePayer = address(chain.feePayer.address);
  feePayerSecret = chain.feePayer.secretKey;

  const config = loadConfig({
    SOLANA_NETWORK: "solana-localnet",
    SOLANA_RPC_URL: chain.rpcUrl,
    USDC_MINT: chain.usdcMint,
    PAY_TO_ADDRESS: chain.payTo,
  });
  requirement = paymentRequirement(config, TIERS.structure, "http://127.0.0.1/api/chunk/structure", { feePayer });
  const body = paymentRequiredError(requirement, config, "form-data", { code: "payment_required", message: "pay" })
    .body as {
    accepts: PaymentRequirement[];
  };
  const accepted = body.accepts[0]!;
  expect(accepted.network).toBe("solana-devnet");
  advertised = { ...accepted, network: "solana-devnet" };
  price = BigInt(requirement.maxAmountRequired);

  payer = await generateKeyPairSigner();
  await faucet(payer.address);
});

afterAll(async () => {
  await proxy?.close();
  await chain?.close();
});

beforeEach(() => {
  proxy.methods = [];
  proxy.sends = "forward";
});

// ---------------------------------------------------------------- tests

describe("parseX402Header", () => {
  it("leaves a plain base58 signature to the signature path", async () => {
    const signature = getBase58Decoder().decode(new Uint8Array(64).fill(7));
    expect(parseX402Header(signature)).toBeNull();
    expect(parseX402Header(`  ${signature}\n`)).toBeNull();
  });

  it("refuses base64 JSON that is not a valid x402 exact payload", () => {
    const cases = [
      Buffer.from("{not json").toString("base64"),
      encodeHeader({ x402Version: 2, scheme: "exact", network: "solana-devnet", payload: { transaction: "AAAA" } }),
      encodeHeader({ x402Version: 1, scheme: "upto", network: "solana-devnet", payload: { transaction: "AAAA" } }),
      encodeHeader({ x402Version: 1, scheme: "exact", network: "solana-devnet" }),
      encodeHeader({
        x402Version: 1,
        scheme: "exact",
        network: "solana-devnet",
        payload: { transaction: "not base64!" },
      }),
    ];
    for (const header of cases) {
      let caught: unknown;
      try {
        parseX402Header(header);
      } catch (error) {
        caught = error;
      }
      expect(caught, header).toBeInstanceOf(ApiError);
      expect((caught as ApiError).code).toBe("payment_invalid");
      expect((caught as ApiError).status).toBe(402);
    }
  });

  it("refuses a payload whose transaction bytes are not a transaction", async () => {
    const header = encodeHeader({
      x402Version: 1,
      scheme: "exact",
      network: "solana-devnet",
      payload: { transaction: Buffer.from("hello").toString("base64") },
    });
    expect(await verifyX402Payment(parseX402Header(header)!, requirement, feePayer)).toMatchObject({
      ok: false,
      refusal: { code: "payment_invalid" },
    });
  });
});

describe("payments made by the x402 1.2.0 client", () => {
  it("createPaymentHeader's payload is verified, co-signed, settled, and moves exactly the price to payTo", async () => {
    const header = await createPaymentHeader(payer, 1, advertised, { svmConfig: { rpcUrl: chain.rpcUrl } });
    const parsed = parseX402Header(header);
    expect(parsed?.network).toBe("solana-devnet");
    const before = await balances();

    const { verified, cosigned } = await payThrough(header);

    expect(verified.payer).toBe(payer.address);
    expect(verified.amount).toBe(price);
    expect(verified.memos).toEqual([]);
    expect(cosigned.signature).toBe(await wouldBeSignature(header));
    const after = await balances();
    expect(after.payTo - before.payTo).toBe(price);
    expect(before.payer - after.payer).toBe(price);
    expect(before.feePayerLamports).toBeGreaterThan(after.feePayerLamports);
    expect((await statusOf(cosigned.signature))?.confirmationStatus).toMatch(/confirmed|finalized/);
    expect(proxy.methods.filter((m) => m === "sendTransaction")).toHaveLength(1);

    const response = decodeXPaymentResponse(
      paymentResponseHeader({ signature: cosigned.signature, network: verified.network, payer: verified.payer }),
    );
    expect(response).toEqual({
      success: true,
      transaction: cosigned.signature,
      network: "solana-devnet",
      payer: payer.address,
    });
  });

  it("x402-fetch pays a 402 carrying our requirement and reads our X-PAYMENT-RESPONSE", async () => {
    const before = await balances();
    const seen: string[] = [];
    const server = async (_input: RequestInfo | URL, init?: RequestInit) => {
      const header = new Headers(init?.headers).get("X-PAYMENT");
      if (!header)
        return Response.json(
          { x402Version: 1, error: "payment_required", accepts: [advertised], paymentRequirements: requirement },
          { status: 402 },
        );
      seen.push(header);
      const { verified, cosigned } = await payThrough(header);
      const receipt = paymentResponseHeader({
        signature: cosigned.signature,
        network: verified.network,
        payer: verified.payer,
      });
      return Response.json({ success: true }, { headers: { "X-PAYMENT-RESPONSE": receipt } });
    };
    const fetchWithPayment = wrapFetchWithPayment(server, payer, undefined, undefined, {
      svmConfig: { rpcUrl: chain.rpcUrl },
    });

    const response = await fetchWithPayment("http://127.0.0.1/api/chunk/structure", { method: "POST" });

    expect(response.status).toBe(200);
    expect(seen).toHaveLength(1);
    const receipt = decodeXPaymentResponse(response.headers.get("X-PAYMENT-RESPONSE")!);
    expect(receipt.success).toBe(true);
    expect(await statusOf(receipt.transaction)).not.toBeNull();
    expect((await balances()).payTo - before.payTo).toBe(price);
  });

  it("a retry of an already settled payload succeeds without sending it again or charging twice", async () => {
    const header = await createPaymentHeader(payer, 1, advertised, { svmConfig: { rpcUrl: chain.rpcUrl } });
    const before = await balances();
    const first = await payThrough(header);
    proxy.methods = [];

    const second = await payThrough(header);

    expect(second.cosigned.signature).toBe(first.cosigned.signature);
    expect(proxy.methods).not.toContain("sendTransaction");
    expect(proxy.methods).not.toContain("simulateTransaction");
    expect((await balances()).payTo - before.payTo).toBe(price);
  });
});

describe("layouts the current exact-SVM spec allows", () => {
  it("a Memo after the transfer (newer x402 clients) is accepted and settled", async () => {
    const header = await buildPayment({ after: [memo("5f1a0c3e9b7d24a6")] });
    const before = await balances();
    const { verified } = await payThrough(header);
    expect(verified.memos).toEqual(["5f1a0c3e9b7d24a6"]);
    expect((await balances()).payTo - before.payTo).toBe(price);
  });

  it("Lighthouse guards anywhere (before the compute budget, between, after) and seven instructions in all pass", async () => {
    const guard: Instruction = {
      programAddress: LIGHTHOUSE_PROGRAM_ADDRESS,
      accounts: [{ address: await ata(payer.address), role: AccountRole.READONLY }],
      data: new Uint8Array([1, 2, 3]),
    };
    const header = await buildPayment({ first: [guard], before: [guard], after: [memo("nonce"), guard] });
    const verified = orRefuse(await verifyX402Payment(parseX402Header(header)!, requirement, feePayer));
    expect(verified.memos).toEqual(["nonce"]);
    expect(proxy.methods).toEqual([]);
  });

  it("reads the text of a Memo from every Memo program, @solana-program/memo's default builder's included", async () => {
    const header = await buildPayment({
      after: [
        getAddMemoInstruction({ memo: "newest" }),
        getAddMemoInstruction({ memo: "v1" }, { programAddress: LEGACY_MEMO_PROGRAM_ADDRESS_V1 }),
        getAddMemoInstruction({ memo: "v2 ✓" }, { programAddress: LEGACY_MEMO_PROGRAM_ADDRESS_V3 }),
      ],
    });
    const verified = orRefuse(await verifyX402Payment(parseX402Header(header)!, requirement, feePayer));
    expect(verified.memos).toEqual(["newest", "v1", "v2 ✓"]);
  });

  it("resolves accounts behind an address lookup table on the chain before judging them", async () => {
    const table = (await generateKeyPairSigner()).address;
    const header = await buildPayment({ lookupTables: { [table]: [await ata(payTo)] } });
    expect(decodeHeader(header).payload.transaction.length).toBeGreaterThan(0);
    proxy.methods = [];
    // No such table on the chain: the accounts cannot be resolved, so the payload cannot be judged.
    const verdict = await verifyX402Payment(
      parseX402Header(header)!,
      requirement,
      feePayer,
      createSolanaRpc(proxy.url),
    );
    expect(verdict).toMatchObject({ ok: false, refusal: { code: "payment_invalid" } });
    expect(proxy.methods).toEqual(["getMultipleAccounts"]);
  });

  it("Lighthouse guard instructions (Phantom, Solflare) and a Memo pass verification, up to six instructions", async () => {
    const guard: Instruction = {
      programAddress: LIGHTHOUSE_PROGRAM_ADDRESS,
      accounts: [{ address: await ata(payer.address), role: AccountRole.READONLY }],
      data: new Uint8Array([1, 2, 3]),
    };
    const header = await buildPayment({ after: [guard, guard, memo("nonce")] });
    const verified = orRefuse(await verifyX402Payment(parseX402Header(header)!, requirement, feePayer));
    expect(verified.memos).toEqual(["nonce"]);
    expect(proxy.methods).toEqual([]);
  });
});

describe("refusals before anything reaches the chain", () => {
  const tampered: [string, () => Promise<string>, string][] = [
    [
      "a Memo whose data is not UTF-8 (the Memo program would fail it)",
      () => buildPayment({ after: [{ programAddress: LEGACY_MEMO_PROGRAM_ADDRESS_V3, data: new Uint8Array([0xff]) }] }),
      "payment_invalid_instructions",
    ],
    ["an amount below the price", () => buildPayment({ amount: price - 1n }), "payment_insufficient"],
    ["an amount above the price", () => buildPayment({ amount: price + 1n }), "payment_amount_mismatch"],
    [
      "another recipient",
      async () => buildPayment({ recipient: (await generateKeyPairSigner()).address }),
      "payment_wrong_recipient",
    ],
    [
      "another mint",
      async () => buildPayment({ mint: (await generateKeyPairSigner()).address }),
      "payment_wrong_asset",
    ],
    [
      "an extra instruction spending the fee payer's SOL",
      () =>
        buildPayment({
          after: [
            getTransferSolInstruction({
              source: createNoopSigner(feePayer),
              destination: payer.address,
              amount: 1_000_000n,
            }),
          ],
        }),
      "payment_fee_payer_misuse",
    ],
    [
      "a transfer from the fee payer's own token account",
      () => buildPayment({ signer: createNoopSigner(feePayer) }),
      "payment_fee_payer_misuse",
    ],
    [
      "a transaction whose fee payer is not extra.feePayer",
      () => buildPayment({ txFeePayer: payer.address }),
      "payment_fee_payer_misuse",
    ],
    [
      "eight instructions",
      () => buildPayment({ after: [memo("1"), memo("2"), memo("3"), memo("4"), memo("5")] }),
      "payment_invalid_instructions",
    ],
    [
      "an unknown program after the transfer",
      () =>
        buildPayment({
          after: [{ programAddress: address("11111111111111111111111111111111"), data: new Uint8Array([2, 0, 0, 0]) }],
        }),
      "payment_invalid_instructions",
    ],
    [
      "a compute unit price above the cap",
      () => buildPayment({ microLamports: 5_000_001n }),
      "payment_invalid_instructions",
    ],
    ["a compute unit limit above the cap", () => buildPayment({ units: 1_400_000 }), "payment_invalid_instructions"],
    [
      "a priority fee (limit × price) above the cap",
      () => buildPayment({ units: 100_000, microLamports: 1_000_000n }),
      "payment_fee_too_high",
    ],
    [
      // 600 lamports: under the old flat cap of 50,000, over what 0.002 USDC pays for after two signatures at SOL $190.
      "a priority fee the structure tier's price does not pay for",
      () => buildPayment({ units: 40_000, microLamports: 15_000n }),
      "payment_fee_too_high",
    ],
    [
      "nine signatures (seven more signers on a Memo): nine base fees for the fee payer",
      async () =>
        buildPayment({
          after: [
            getAddMemoInstruction({
              memo: "extra signers",
              signers: await Promise.all(Array.from({ length: 7 }, () => generateKeyPairSigner())),
            }),
          ],
        }),
      "payment_fee_too_high",
    ],
    [
      "a third signer",
      async () =>
        buildPayment({
          after: [getAddMemoInstruction({ memo: "one more", signers: [await generateKeyPairSigner()] })],
        }),
      "payment_fee_too_high",
    ],
    [
      "a create of payTo's token account (it must exist already)",
      async () =>
        buildPayment({
          before: [
            getCreateAssociatedTokenIdempotentInstruction({ payer, ata: await ata(payTo), owner: payTo, mint: usdc }),
          ],
        }),
      "payment_invalid_instructions",
    ],
    ["the wrong network", () => buildPayment({ network: "solana" }), "payment_wrong_network"],
    [
      "a payer signature that does not match the bytes",
      async () => {
        const payload = decodeHeader(await buildPayment());
        const bytes = getBase64Encoder().encode(payload.payload.transaction).slice();
        bytes[1 + 64 + 10]! ^= 1; // inside the payer's signature, after the count byte and the fee payer's empty slot
        return encodeHeader({
          x402Version: 1,
          scheme: "exact",
          network: payload.network,
          payload: { transaction: Buffer.from(bytes).toString("base64") },
        });
      },
      "payment_invalid_signature",
    ],
  ];

  it.each(tampered)("%s", async (_name, build, code) => {
    const header = await build();
    const signature = await wouldBeSignature(header).catch(() => null);
    const before = await balances();
    proxy.methods = [];

    await expectRefusal(payThrough(header), 402, code);

    expect(proxy.methods).toEqual([]);
    expect(await balances()).toEqual(before);
    if (signature) expect(await statusOf(signature)).toBeNull();
  });
});

describe("the fee payer's worst case stays below every tier's price", () => {
  it("at FEE_PAYER_MAX_SOL_USD, for each paid tier: signatures' base fees plus the largest priority fee allowed < the price", () => {
    for (const solUsd of [DEFAULT_FEE_PAYER_MAX_SOL_USD, 150, 100, 20]) {
      for (const tier of Object.values(TIERS).filter(isPaid)) {
        const budget = feeBudget(BigInt(tier.priceBaseUnits), solUsd);
        const worstLamports = worstCaseFeeLamports(budget);
        // In USD, without the module's rounding: lamports × SOL price against the price in USDC.
        const worstUsd = (Number(worstLamports) / 1e9) * solUsd;
        expect(worstUsd, `${tier.id} at $${solUsd}`).toBeLessThan(tier.priceBaseUnits / 1e6);
        expect(budget.maxSignatures).toBe(2);
      }
    }
  });

  it("a structure payment of nine signatures would have cost ~7x its price at SOL $150: now refused with its reason", async () => {
    const header = await buildPayment({
      units: 200_000,
      microLamports: 250_000n,
      after: [
        getAddMemoInstruction({
          memo: "nine",
          signers: await Promise.all(Array.from({ length: 7 }, () => generateKeyPairSigner())),
        }),
      ],
    });
    const verdict = await verifyX402Payment(parseX402Header(header)!, requirement, feePayer, undefined, 150);
    expect(verdict).toMatchObject({ ok: false, refusal: { code: "payment_fee_too_high" } });
    expect(verdict.ok ? "" : verdict.refusal.message).toMatch(/9 signers/);
  });

  it("the payloads x402 clients make fit the cheapest tier's budget", async () => {
    const header = await createPaymentHeader(payer, 1, advertised, { svmConfig: { rpcUrl: chain.rpcUrl } });
    expect(await verifyX402Payment(parseX402Header(header)!, requirement, feePayer)).toMatchObject({ ok: true });
  });

  it("a SOL bound at which the cheapest tier cannot pay two signatures refuses to start", () => {
    expect(() => loadConfig({ FEE_PAYER_MAX_SOL_USD: "1000" })).toThrow(/FEE_PAYER_MAX_SOL_USD=1000.*structure/);
    expect(loadConfig({}).payments.feePayerMaxSolUsd).toBe(DEFAULT_FEE_PAYER_MAX_SOL_USD);
  });
});

describe("settlement", () => {
  it("a payment that would fail on chain is refused after simulation and never sent", async () => {
    const broke = await generateKeyPairSigner(); // no token account, no USDC
    const header = await buildPayment({ signer: broke });
    const before = await balances();

    await expectRefusal(payThrough(header), 402, "payment_simulation_failed");

    expect(proxy.methods).toContain("simulateTransaction");
    expect(proxy.methods).not.toContain("sendTransaction");
    expect(await balances()).toEqual(before);
    expect(await statusOf(await wouldBeSignature(header))).toBeNull();
  });

  it("a send that never lands is a 503 to retry, and the retry charges once", async () => {
    const header = await buildPayment({ after: [memo("lost once")] });
    const before = await balances();
    proxy.sends = "drop";

    await expectRefusal(payThrough(header, { confirmTimeoutMs: 300 }), 503, "payment_unconfirmed");
    expect((await balances()).payTo).toBe(before.payTo);

    proxy.sends = "forward";
    await payThrough(header);
    await payThrough(header);
    expect((await balances()).payTo - before.payTo).toBe(price);
  });

  it("a send the RPC refuses is a 402 payment_failed and nothing is charged", async () => {
    const header = await buildPayment();
    const before = await balances();
    proxy.sends = "refuse";

    await expectRefusal(payThrough(header), 402, "payment_failed");

    expect(proxy.methods).toContain("sendTransaction");
    expect(await balances()).toEqual(before);
    expect(await statusOf(await wouldBeSignature(header))).toBeNull();
  });

  it("an unreachable RPC is a 503 chain_unavailable", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const header = await buildPayment();
    const before = await balances();

    await expectRefusal(payThrough(header, { rpcUrl: `http://127.0.0.1:${port}` }), 503, "chain_unavailable");
    expect(await balances()).toEqual(before);
  });

  it("a fee payer key that is not extra.feePayer is a configuration error, not a payment error", async () => {
    const header = await buildPayment();
    const verified = orRefuse(await verifyX402Payment(parseX402Header(header)!, requirement, feePayer));
    const seed = crypto.getRandomValues(new Uint8Array(32));
    const strangerKeys = await createKeyPairFromPrivateKeyBytes(seed, true);
    const publicKey = new Uint8Array(await crypto.subtle.exportKey("raw", strangerKeys.publicKey));
    const stranger = getBase58Decoder().decode(new Uint8Array([...seed, ...publicKey]));
    await expectRefusal(cosignX402(verified, stranger), 500, "fee_payer_misconfigured");
  });
});

describe("a remote facilitator (X402_FACILITATOR_URL), here x402's reference one (@x402/core + @x402/svm, v2)", () => {
  let facilitator: Awaited<ReturnType<typeof startReferenceFacilitator>>;
  let client: X402FacilitatorClient;
  let offer: PaymentRequirements;
  /** A payload laid out by buildPayment, handed over as a v2 payment accepting the offer. */
  const asV2 = async (header: string | Promise<string>): Promise<PaymentPayload> => ({
    x402Version: 2,
    accepted: offer,
    payload: decodeHeader(await header).payload,
  });

  beforeAll(async () => {
    facilitator = await startReferenceFacilitator(chain.rpcUrl, feePayerSecret);
    client = new X402FacilitatorClient(facilitator.url, { timeoutMs: 30_000 });
    offer = offerV2(requirement, "solana-localnet");
  });
  afterAll(async () => {
    await facilitator?.close();
  });

  it("verifies and settles an @x402/fetch 2.x client's payment, and payTo receives the price", async () => {
    const x402 = new x402Client();
    x402.register("solana:*", new ExactSvmScheme(payer, { rpcUrl: chain.rpcUrl }));
    const payment = await x402.createPaymentPayload({
      x402Version: 2,
      resource: { url: requirement.resource },
      accepts: [offer],
    });
    const before = await balances();

    expect(await client.verify(payment, offer)).toEqual({ ok: true, value: { payer: payer.address } });
    const settled = orRefuse(await client.settle(payment, offer));

    expect(settled).toMatchObject({ payer: payer.address, network: offer.network });
    expect((await statusOf(settled.signature))?.err).toBeNull();
    expect((await balances()).payTo - before.payTo).toBe(price);
  });

  it("turns the facilitator's reasons into this service's codes, and nothing is settled", async () => {
    const cases: [string, string][] = [
      [await buildPayment({ amount: price + 1n }), "payment_amount_mismatch"],
      [await buildPayment({ recipient: (await generateKeyPairSigner()).address }), "payment_wrong_recipient"],
      [
        await buildPayment({
          after: [{ programAddress: address("11111111111111111111111111111111"), data: new Uint8Array([2, 0, 0, 0]) }],
        }),
        "payment_invalid_instructions",
      ],
    ];
    const before = await balances();
    for (const [header, code] of cases) {
      // Refusals are answers, not exceptions.
      expect(await client.verify(await asV2(header), offer)).toMatchObject({ ok: false, refusal: { code } });
      expect(await client.settle(await asV2(header), offer)).toMatchObject({ ok: false, refusal: { code } });
      expect(await statusOf(await wouldBeSignature(header))).toBeNull();
    }
    expect(await balances()).toEqual(before);
  });

  it("refuses a payment for another network without asking the facilitator", async () => {
    const unreachable = new X402FacilitatorClient("http://127.0.0.1:9", { timeoutMs: 1000 });
    const payment = await asV2(buildPayment());
    expect(
      await unreachable.verify(
        { ...payment, accepted: { ...offer, network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" } },
        offer,
      ),
    ).toMatchObject({ ok: false, refusal: { code: "payment_wrong_network" } });
  });

  it("an unreachable facilitator is a 503", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = new X402FacilitatorClient(`http://127.0.0.1:${port}`, { timeoutMs: 5000 });
    await expectRefusal(unreachable.verify(await asV2(buildPayment()), offer), 503, "facilitator_unavailable");
  });
});
