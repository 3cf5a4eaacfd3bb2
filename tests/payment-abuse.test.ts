import {
  type Address,
  type TransactionSigner,
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from "@solana-program/compute-budget";
import { getTransferCheckedInstruction } from "@solana-program/token";
import { beforeEach, describe, expect, it } from "vitest";
import type { FetchedDocument } from "@/lib/fetch/safe-fetch";
import { associatedTokenAccount, memoInstruction } from "@/lib/payments/usdc-transfer";
import { call, funded, newClient, prose } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";
import { transferToken } from "./helpers/chain";

/**
 * Payments that cannot buy free work (issue 26, reproductions 3 and 5):
 * x402 payloads funded by one balance, funds moved away while the work runs,
 * a v1 payload carrying another request's reference, and memo-less payments
 * counted. Through the route handlers, against the local chain and a real
 * redis-server. Work is counted where every request's work starts: fetching
 * its URL.
 */

const PRICE = 2000n; // structure tier

/** URLs fetched, one per piece of work; `duringWork` runs inside the work, after the payment was accepted. */
let fetched: string[] = [];
let duringWork: ((url: string) => Promise<void>) | undefined;

async function fetchUrl(url: string): Promise<FetchedDocument> {
  fetched.push(url);
  await duringWork?.(url);
  return {
    bytes: new TextEncoder().encode(`# ${url}\n\n${prose(6, fetched.length)}`),
    finalUrl: url,
    contentType: "text/markdown",
  };
}

const h = serviceHarness({
  chain: true,
  feePayer: true,
  model: true,
  env: () => ({ AI_MAX_RETRIES: "0" }),
  overrides: () => ({ fetchUrl }),
  install: "beforeEach",
});

let client = "";
let urlCounter = 0;
beforeEach(async () => {
  client = newClient();
  fetched = [];
  duringWork = undefined;
  // Each test starts below the service-wide count of defaults.
  await h.store.del("x402-defaults");
});

const newUrl = () => `http://docs.example/${++urlCounter}.md`;

const chunkUrl = (url: string, headers: Record<string, string> = {}, as = client, tier = "structure") =>
  call("POST", "/api/chunk", {
    client: as,
    body: JSON.stringify({ url, tier }),
    headers: { "content-type": "application/json", ...headers },
  });

async function referenceFor(url: string, as = client, tier = "structure"): Promise<string> {
  const response = await chunkUrl(url, {}, as, tier);
  expect(response.status).toBe(402);
  const body = (await response.json()) as { paymentRequirements: { extra: { reference: string } } };
  return body.paymentRequirements.extra.reference;
}

async function usdcBalance(owner: string): Promise<bigint> {
  const { value } = await h.rpc.getTokenAccountBalance(await associatedTokenAccount(owner, h.chain.usdcMint)).send();
  return BigInt(value.amount);
}

/** A wallet holding exactly `amount` USDC (and SOL for its own transfers). */
async function walletWith(amount: bigint): Promise<TransactionSigner> {
  const wallet = await funded();
  const sink = await generateKeyPairSigner();
  await transferToken(h.rpc, wallet, {
    owner: sink.address,
    mint: h.chain.usdcMint,
    amount: (await usdcBalance(wallet.address)) - amount,
  });
  expect(await usdcBalance(wallet.address)).toBe(amount);
  return wallet;
}

/** Moves everything `from` holds to `to`: the funds a payment promised, gone before it settles. */
async function moveAll(from: TransactionSigner, to: Address): Promise<void> {
  const amount = await usdcBalance(from.address);
  if (amount > 0n) await transferToken(h.rpc, from, { owner: to, mint: h.chain.usdcMint, amount });
}

/** An x402 v1 X-PAYMENT of `amount` (the structure price) from `payer`, with the Memo given. */
async function x402Payment(payer: TransactionSigner, memo?: string, amount = PRICE): Promise<string> {
  const mint = address(h.chain.usdcMint);
  const source = address(await associatedTokenAccount(payer.address, h.chain.usdcMint));
  const destination = address(await associatedTokenAccount(h.chain.payTo, h.chain.usdcMint));
  const { value: blockhash } = await h.rpc.getLatestBlockhash().send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(h.chain.feePayer.address), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) =>
      appendTransactionMessageInstructions(
        [
          getSetComputeUnitLimitInstruction({ units: 40_000 }),
          getSetComputeUnitPriceInstruction({ microLamports: 1n }),
          getTransferCheckedInstruction({
            source,
            mint,
            destination,
            authority: payer,
            amount,
            decimals: 6,
          }),
          ...(memo ? [memoInstruction(memo)] : []),
        ],
        m,
      ),
  );
  const signed = await partiallySignTransactionMessageWithSigners(message);
  const payload = {
    x402Version: 1,
    scheme: "exact",
    network: "solana-devnet",
    payload: { transaction: getBase64EncodedWireTransaction(signed) },
  };
  return Buffer.from(JSON.stringify(payload)).toString("base64");
}

const codeOf = async (response: Response) => ((await response.clone().json()) as { code?: string }).code;

describe("payloads funded by one balance of one price", () => {
  it("three at once: one is answered, the other two are refused before any work", async () => {
    const payer = await walletWith(PRICE);
    const urls = [newUrl(), newUrl(), newUrl()];
    const payments = await Promise.all(urls.map(async (url) => x402Payment(payer, await referenceFor(url))));
    const payeeBefore = await usdcBalance(h.chain.payTo);

    const responses = await Promise.all(urls.map((url, i) => chunkUrl(url, { "X-PAYMENT": payments[i]! })));

    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    for (const refused of responses.filter((r) => r.status !== 200)) {
      expect([402, 429]).toContain(refused.status);
      expect(["payer_busy", "payment_simulation_failed"]).toContain(await codeOf(refused));
    }
    expect(fetched).toHaveLength(1);
    expect(await usdcBalance(h.chain.payTo)).toBe(payeeBefore + PRICE);
  });

  it("three one after another: the first pays, the next two fail their simulation and do no work", async () => {
    const payer = await walletWith(PRICE);
    const urls = [newUrl(), newUrl(), newUrl()];
    const payments = await Promise.all(urls.map(async (url) => x402Payment(payer, await referenceFor(url))));
    const answers: (string | undefined)[] = [];
    for (const [i, url] of urls.entries()) {
      const response = await chunkUrl(url, { "X-PAYMENT": payments[i]! });
      answers.push(response.status === 200 ? "200" : await codeOf(response));
    }
    expect(answers).toEqual(["200", "payment_simulation_failed", "payment_simulation_failed"]);
    expect(fetched).toHaveLength(1);
  });

  it("a second payload while the first is being worked on gets 429 payer_busy with Retry-After, and no work", async () => {
    const payer = await walletWith(PRICE * 2n);
    const [first, second] = [newUrl(), newUrl()];
    const secondPayment = x402Payment(payer, await referenceFor(second));
    let secondAnswer: Response | undefined;
    duringWork = async (url) => {
      if (url === first) secondAnswer = await chunkUrl(second, { "X-PAYMENT": await secondPayment });
    };
    const firstAnswer = await chunkUrl(first, { "X-PAYMENT": await x402Payment(payer, await referenceFor(first)) });
    expect(firstAnswer.status).toBe(200);
    expect(secondAnswer?.status).toBe(429);
    expect(await codeOf(secondAnswer!)).toBe("payer_busy");
    expect(Number(secondAnswer!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(fetched).toEqual([first]);

    // Once the first has settled, the payer may pay again.
    const again = await chunkUrl(second, { "X-PAYMENT": await x402Payment(payer, await referenceFor(second)) });
    expect(again.status).toBe(200);
    expect(fetched).toEqual([first, second]);
  });
});

describe("funds moved away after acceptance", () => {
  it("the first payload's work is done and kept unpaid; a loop of two wallets gets no more work for free", async () => {
    const alice = await walletWith(PRICE);
    const bob = await funded();
    await moveAll(bob, (await generateKeyPairSigner()).address);
    const payeeBefore = await usdcBalance(h.chain.payTo);
    // While each request's work runs, the wallet that paid moves its USDC to the other one.
    const owners = [alice, bob];
    let turn = 0;
    duringWork = async () => {
      const from = owners[turn % 2]!;
      await moveAll(from, owners[(turn + 1) % 2]!.address).catch(() => undefined);
    };

    const answers: (string | undefined)[] = [];
    for (turn = 0; turn < 4; turn++) {
      const url = newUrl();
      const response = await chunkUrl(url, {
        "X-PAYMENT": await x402Payment(owners[turn % 2]!, await referenceFor(url)),
      });
      answers.push(response.status === 200 ? "200" : await codeOf(response));
    }

    // The first did its work and could not settle; after that, this client and these wallets pay first:
    // each later payment settles before its work, so moving the funds away no longer buys anything.
    expect(answers[0]).toBe("payment_simulation_failed");
    const paid = answers.filter((answer) => answer === "200").length;
    const payeeGain = (await usdcBalance(h.chain.payTo)) - payeeBefore;
    expect(payeeGain).toBe(BigInt(paid) * PRICE);
    expect(fetched.length).toBe(1 + paid);
  });

  it("new wallets from new addresses: past a few defaults in a window, every payer pays before the work", async () => {
    const payeeBefore = await usdcBalance(h.chain.payTo);
    let free = 0;
    for (let round = 0; round < 5; round++) {
      const as = `198.18.0.${round + 1}`;
      const payer = await walletWith(PRICE);
      const elsewhere = (await generateKeyPairSigner()).address;
      duringWork = () => moveAll(payer, elsewhere).catch(() => undefined);
      const url = newUrl();
      const worked = fetched.length;
      const response = await chunkUrl(url, { "X-PAYMENT": await x402Payment(payer, await referenceFor(url, as)) }, as);
      if (response.status !== 200 && fetched.length > worked) free++;
    }
    expect(free).toBe(3);
    expect(await usdcBalance(h.chain.payTo)).toBe(payeeBefore + 2n * PRICE);
  });
});

describe("x402 v1 payloads and their reference", () => {
  it("a v1 payload whose Memo carries the reference issued for document A cannot pay for document B", async () => {
    const payer = await walletWith(PRICE);
    const [a, b] = [newUrl(), newUrl()];
    const referenceOfA = await referenceFor(a);
    await referenceFor(b);
    const payeeBefore = await usdcBalance(h.chain.payTo);
    const response = await chunkUrl(b, { "X-PAYMENT": await x402Payment(payer, referenceOfA) });
    expect(response.status).toBe(402);
    expect(await codeOf(response)).toBe("payment_reference_mismatch");
    expect(fetched).toEqual([]);
    expect(await usdcBalance(h.chain.payTo)).toBe(payeeBefore);
    // It still pays for A.
    const forA = await chunkUrl(a, { "X-PAYMENT": await x402Payment(payer, referenceOfA) });
    expect(forA.status).toBe(200);
  });

  it("a memo-less v1 payload is refused when references are required", async () => {
    h.use({ PAYMENT_REQUIRE_REFERENCE: "true" });
    const url = newUrl();
    await referenceFor(url);
    const response = await chunkUrl(url, { "X-PAYMENT": await x402Payment(await walletWith(PRICE)) });
    expect(await codeOf(response)).toBe("payment_reference_required");
    expect(fetched).toEqual([]);
  });
});

describe("memo-less payments are counted for the operator", () => {
  it("GET /api/health counts paid requests with and without the 402's reference", async () => {
    const counts = async () =>
      ((await (await call("GET", "/api/health")).json()) as { payments: { memo_less: number; with_reference: number } })
        .payments;
    const before = await counts();

    const memoLess = newUrl();
    await referenceFor(memoLess);
    expect((await chunkUrl(memoLess, { "X-PAYMENT": await x402Payment(await walletWith(PRICE)) })).status).toBe(200);
    const withReference = newUrl();
    const reference = await referenceFor(withReference);
    expect(
      (await chunkUrl(withReference, { "X-PAYMENT": await x402Payment(await walletWith(PRICE), reference) })).status,
    ).toBe(200);

    expect(await counts()).toEqual({
      days: 7,
      memo_less: before.memo_less + 1,
      with_reference: before.with_reference + 1,
    });
  });

  it("every 402 tells the client to put the reference in a Memo", async () => {
    const response = await chunkUrl(newUrl());
    const body = (await response.json()) as { message: string };
    expect(body.message).toMatch(/Memo/);
    const refused = await chunkUrl(newUrl(), { "X-PAYMENT": await x402Payment(await walletWith(0n)) });
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as { message: string }).message).toMatch(/reference.*Memo|Memo.*reference/);
  });
});

describe("the ai tier, whose work costs model calls, settles before the work", () => {
  const AI_PRICE = 10_000n;

  it("three payloads of one balance: the first is paid before its model calls, the others do no work", async () => {
    const payer = await walletWith(AI_PRICE);
    const payeeBefore = await usdcBalance(h.chain.payTo);
    const urls = [newUrl(), newUrl(), newUrl()];
    const payments = await Promise.all(
      urls.map(async (url) => x402Payment(payer, await referenceFor(url, client, "ai"), AI_PRICE)),
    );
    let balanceDuringWork: bigint | undefined;
    duringWork = async () => {
      balanceDuringWork = await usdcBalance(payer.address);
    };
    const answers: (string | undefined)[] = [];
    for (const [i, url] of urls.entries()) {
      const response = await chunkUrl(url, { "X-PAYMENT": payments[i]! }, client, "ai");
      answers.push(response.status === 200 ? "200" : await codeOf(response));
    }
    expect(answers).toEqual(["200", "payment_simulation_failed", "payment_simulation_failed"]);
    // The money had moved before the work began: moving it away then would change nothing.
    expect(balanceDuringWork).toBe(0n);
    expect(await usdcBalance(h.chain.payTo)).toBe(payeeBefore + AI_PRICE);
    expect(fetched).toHaveLength(1);
    expect(h.model.counters().completions).toBeGreaterThan(0);
  });

  it("a provider that fails after the payment settled: 503, and the same X-PAYMENT is served later without a second charge", async () => {
    const payer = await walletWith(AI_PRICE * 2n);
    const url = newUrl();
    const payment = await x402Payment(payer, await referenceFor(url, client, "ai"), AI_PRICE);
    h.model.control({ down: true });
    const down = await chunkUrl(url, { "X-PAYMENT": payment }, client, "ai");
    expect(down.status).toBe(503);
    expect(await codeOf(down)).toBe("ai_unavailable");
    expect(await usdcBalance(payer.address)).toBe(AI_PRICE);
    h.model.control({ down: false });
    const retried = await chunkUrl(url, { "X-PAYMENT": payment }, client, "ai");
    expect(retried.status).toBe(200);
    expect(await usdcBalance(payer.address)).toBe(AI_PRICE);
  });
});
