import { createServer } from "node:net";
import {
  address,
  appendTransactionMessageInstructions,
  assertIsTransactionWithBlockhashLifetime,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getBase58Encoder,
  getBase64Decoder,
  getBase64Encoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  getTransactionEncoder,
  lamports,
  partiallySignTransaction,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type RpcSubscriptions,
  type Signature,
  type SolanaRpcApi,
  type SolanaRpcSubscriptionsApi,
} from "@solana/kit";
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from "@solana-program/compute-budget";
import {
  getAddMemoInstruction,
  LEGACY_MEMO_PROGRAM_ADDRESS_V1,
  LEGACY_MEMO_PROGRAM_ADDRESS_V3,
  MEMO_PROGRAM_ADDRESS,
} from "@solana-program/memo";
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { DEVNET_USDC_MINT } from "@/lib/ground/config";
import { startLocalChain, type LocalChain } from "@/localchain";

/**
 * The embedded chain against real clients: kit's RPC and subscriptions
 * clients, a raw `ws` client on web3.js's port, and plain JSON-RPC over fetch
 * for the error paths. Every transaction is real and runs in litesvm.
 */

type JsonRpcAnswer = {
  jsonrpc: "2.0";
  id: unknown;
  result?: any;
  error?: { code: number; message: string; data?: any };
};

let chain: LocalChain;
let rpc: Rpc<SolanaRpcApi>;
let rpcSubscriptions: RpcSubscriptions<SolanaRpcSubscriptionsApi>;
let payer: KeyPairSigner;
let payerTokenAccount: Address;
const usdc = address(DEVNET_USDC_MINT);

async function post(body: string, url = chain.rpcUrl): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
}

async function call(method: string, params: unknown[] = [], url = chain.rpcUrl): Promise<JsonRpcAnswer> {
  const response = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), url);
  expect(response.status).toBe(200);
  return (await response.json()) as JsonRpcAnswer;
}

async function signedTransaction(feePayer: KeyPairSigner, instructions: Instruction[]) {
  const { value: lifetime } = await rpc.getLatestBlockhash().send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return signTransactionMessageWithSigners(message);
}

function usdcTransfer(amount: bigint, memo: string): Instruction[] {
  return [
    getSetComputeUnitLimitInstruction({ units: 50_000 }),
    getSetComputeUnitPriceInstruction({ microLamports: 100_000n }),
    getTransferCheckedInstruction({
      source: payerTokenAccount,
      mint: usdc,
      destination: address(chain.payToTokenAccount),
      authority: payer,
      amount,
      decimals: 6,
    }),
    getAddMemoInstruction({ memo }, { programAddress: LEGACY_MEMO_PROGRAM_ADDRESS_V3 }),
  ];
}

async function payerUsdc(): Promise<bigint> {
  const { value } = await rpc.getTokenAccountBalance(payerTokenAccount).send();
  return BigInt(value.amount);
}

async function jsonParsed(signature: Signature) {
  const transaction = await rpc
    .getTransaction(signature, { commitment: "confirmed", encoding: "jsonParsed", maxSupportedTransactionVersion: 0 })
    .send();
  if (!transaction) throw new Error(`transaction ${signature} not found`);
  return transaction;
}

/** Post minus pre per token account, matched by owner and mint, as the service's verifier does. */
function tokenDelta(
  meta: NonNullable<Awaited<ReturnType<typeof jsonParsed>>["meta"]>,
  owner: string,
  mint: string,
): bigint {
  const amounts = (list: typeof meta.postTokenBalances) =>
    new Map(
      (list ?? [])
        .filter((b) => b.owner === owner && b.mint === mint)
        .map((b) => [b.accountIndex, BigInt(b.uiTokenAmount.amount)]),
    );
  const pre = amounts(meta.preTokenBalances);
  const post = amounts(meta.postTokenBalances);
  let delta = 0n;
  for (const [index, amount] of post) delta += amount - (pre.get(index) ?? 0n);
  return delta;
}

function openSocket(url: string): Promise<{ socket: WebSocket; next: () => Promise<any> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const queue: any[] = [];
    const waiting: ((message: any) => void)[] = [];
    socket.on("message", (data) => {
      const message = JSON.parse((data as Buffer).toString());
      const waiter = waiting.shift();
      if (waiter) waiter(message);
      else queue.push(message);
    });
    const next = () =>
      new Promise<any>((resolveMessage, rejectMessage) => {
        const queued = queue.shift();
        if (queued) return resolveMessage(queued);
        const timer = setTimeout(() => rejectMessage(new Error("no websocket message within 5 s")), 5000);
        waiting.push((message) => {
          clearTimeout(timer);
          resolveMessage(message);
        });
      });
    socket.once("open", () => resolve({ socket, next }));
    socket.once("error", reject);
  });
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

beforeAll(async () => {
  chain = await startLocalChain({ port: 0 });
  rpc = createSolanaRpc(chain.rpcUrl);
  rpcSubscriptions = createSolanaRpcSubscriptions(chain.wsUrl);
  payer = await generateKeyPairSigner();
  [payerTokenAccount] = await findAssociatedTokenPda({
    mint: usdc,
    owner: payer.address,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const funded = await call("chunkwise_faucet", [payer.address, { lamports: 2_000_000_000, usdc: 5_000_000 }]);
  expect(funded.error).toBeUndefined();
});

afterAll(async () => {
  await chain?.close();
});

describe("local chain: start-up state", () => {
  it("announces its endpoints, the devnet USDC address and a funded fee payer whose secret matches its address", async () => {
    expect(chain.rpcUrl).toBe(`http://127.0.0.1:${chain.port}`);
    expect(chain.wsUrl).toBe(`ws://127.0.0.1:${chain.port}`);
    expect(chain.usdcMint).toBe(DEVNET_USDC_MINT);

    const mint = await rpc.getAccountInfo(usdc, { encoding: "jsonParsed" }).send();
    expect(mint.value?.owner).toBe(TOKEN_PROGRAM_ADDRESS);
    expect(mint.value?.data).toMatchObject({
      program: "spl-token",
      parsed: { type: "mint", info: { decimals: 6, isInitialized: true } },
    });

    const payToAccount = await rpc.getAccountInfo(address(chain.payToTokenAccount), { encoding: "jsonParsed" }).send();
    expect(payToAccount.value?.data).toMatchObject({
      parsed: { type: "account", info: { owner: chain.payTo, mint: DEVNET_USDC_MINT } },
    });

    const { value: feePayerLamports } = await rpc.getBalance(address(chain.feePayer.address)).send();
    expect(feePayerLamports).toBeGreaterThanOrEqual(1_000_000_000n);
    const secret = getBase58Encoder().encode(chain.feePayer.secretKey);
    expect(secret.length).toBe(64);
    expect((await createKeyPairSignerFromBytes(secret)).address).toBe(chain.feePayer.address);
  });
});

describe("local chain: faucet", () => {
  it("funds an address with SOL and test USDC, creating its token account", async () => {
    const someone = await generateKeyPairSigner();
    const answer = await call("chunkwise_faucet", [someone.address, { lamports: 300_000_000, usdc: 1_250_000 }]);
    expect(answer.error).toBeUndefined();
    const [expectedTokenAccount] = await findAssociatedTokenPda({
      mint: usdc,
      owner: someone.address,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    expect(answer.result).toMatchObject({
      lamports: 300_000_000,
      usdc_base_units: 1_250_000,
      token_account: expectedTokenAccount,
    });
    expect(answer.result.signatures).toHaveLength(1);

    expect((await rpc.getBalance(someone.address).send()).value).toBe(300_000_000n);
    const balance = await rpc.getTokenAccountBalance(expectedTokenAccount).send();
    expect(balance.value).toMatchObject({ amount: "1250000", decimals: 6, uiAmountString: "1.25" });
    expect(balance.value.uiAmount).toBe(1.25);
    const owned = await rpc.getTokenAccountsByOwner(someone.address, { mint: usdc }, { encoding: "jsonParsed" }).send();
    expect(owned.value.map((entry) => entry.pubkey)).toEqual([expectedTokenAccount]);

    // Defaults: 1 SOL and 10 USDC, on top of what was there.
    const again = await call("chunkwise_faucet", [someone.address]);
    expect(again.result).toMatchObject({ lamports: 1_000_000_000, usdc_base_units: 10_000_000 });
    expect((await rpc.getTokenAccountBalance(expectedTokenAccount).send()).value.amount).toBe("11250000");
  });

  it("refuses a malformed address with -32602", async () => {
    const answer = await call("chunkwise_faucet", ["not-an-address", {}]);
    expect(answer.error?.code).toBe(-32602);
  });

  it("answers requestAirdrop with a signature whose transaction is on record", async () => {
    const someone = await generateKeyPairSigner();
    const signature = await rpc.requestAirdrop(someone.address, lamports(50_000_000n)).send();
    expect((await rpc.getBalance(someone.address).send()).value).toBe(50_000_000n);
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    expect(value[0]).toMatchObject({ confirmationStatus: "finalized", err: null });
  });
});

describe("local chain: a USDC payment with a memo", () => {
  let signature: Signature;
  let messageBytes: Uint8Array;
  let sentAt: number;
  let slotBefore: bigint;

  beforeAll(async () => {
    slotBefore = await rpc.getSlot().send();
    const transaction = await signedTransaction(payer, usdcTransfer(12_345n, "chunkwise:ref:abc123"));
    assertIsTransactionWithBlockhashLifetime(transaction);
    signature = getSignatureFromTransaction(transaction);
    messageBytes = new Uint8Array(transaction.messageBytes);
    sentAt = Math.floor(Date.now() / 1000);
    // kit's own confirmation loop (signature and slot subscriptions plus getSignatureStatuses / getEpochInfo).
    await sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions })(transaction, { commitment: "confirmed" });
  });

  it("shows the token deltas of payTo's account in bigint, the parsed memo, and the slot and time", async () => {
    const transaction = await jsonParsed(signature);
    expect(transaction.version).toBe(0);
    expect(transaction.meta?.err).toBeNull();
    expect(tokenDelta(transaction.meta!, chain.payTo, DEVNET_USDC_MINT)).toBe(12_345n);
    expect(tokenDelta(transaction.meta!, payer.address, DEVNET_USDC_MINT)).toBe(-12_345n);
    expect(tokenDelta(transaction.meta!, chain.payTo, "So11111111111111111111111111111111111111112")).toBe(0n);

    const payToBalance = transaction.meta!.postTokenBalances!.find((b) => b.owner === chain.payTo)!;
    expect(payToBalance).toMatchObject({
      mint: DEVNET_USDC_MINT,
      programId: TOKEN_PROGRAM_ADDRESS,
      uiTokenAmount: { decimals: 6 },
    });
    expect(transaction.transaction.message.accountKeys[payToBalance.accountIndex]?.pubkey).toBe(
      chain.payToTokenAccount,
    );
    // The recipient held nothing before: its pre balance is a zero entry.
    const payToPre = transaction.meta!.preTokenBalances!.find((b) => b.owner === chain.payTo)!;
    expect(payToPre.uiTokenAmount).toMatchObject({ amount: "0", uiAmount: null, uiAmountString: "0" });

    // Exact shapes from the wire (kit turns every number it does not know to be small into a bigint).
    const raw = await call("getTransaction", [
      signature,
      { encoding: "jsonParsed", maxSupportedTransactionVersion: 0 },
    ]);
    const instructions = raw.result.transaction.message.instructions as any[];
    expect(instructions.find((ix) => ix.program === "spl-memo")).toEqual({
      parsed: "chunkwise:ref:abc123",
      program: "spl-memo",
      programId: LEGACY_MEMO_PROGRAM_ADDRESS_V3,
      stackHeight: null,
    });
    const transfer = instructions.find((ix) => ix.program === "spl-token");
    expect(transfer.parsed).toEqual({
      type: "transferChecked",
      info: {
        source: payerTokenAccount,
        mint: DEVNET_USDC_MINT,
        destination: chain.payToTokenAccount,
        authority: payer.address,
        tokenAmount: { amount: "12345", decimals: 6, uiAmount: 0.012345, uiAmountString: "0.012345" },
      },
    });
    // Compute budget instructions are not parsed by a real node either.
    expect(instructions[0]).toMatchObject({ programId: "ComputeBudget111111111111111111111111111111", accounts: [] });
    expect(typeof instructions[0].data).toBe("string");

    const feePayerKey = transaction.transaction.message.accountKeys[0]!;
    expect(feePayerKey).toEqual({ pubkey: payer.address, signer: true, writable: true, source: "transaction" });
    expect(transaction.slot).toBeGreaterThan(slotBefore);
    expect(Number(transaction.blockTime)).toBeGreaterThanOrEqual(sentAt - 5);
    expect(Number(transaction.blockTime)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 5);
    expect(
      transaction.meta?.logMessages?.some((line) =>
        line.includes("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA success"),
      ),
    ).toBe(true);
  });

  it("charges and reports the same fee: 5000 per signature plus the priority fee", async () => {
    const transaction = await jsonParsed(signature);
    const meta = transaction.meta!;
    // 50_000 units at 100_000 micro-lamports: 5000 lamports of priority fee.
    expect(meta.fee).toBe(10_000n);
    expect(meta.preBalances[0]! - meta.postBalances[0]!).toBe(meta.fee);
    // And quotes it beforehand.
    const { value: quoted } = await rpc.getFeeForMessage(getBase64Decoder().decode(messageBytes) as never).send();
    expect(quoted).toBe(meta.fee);
  });

  it("reads several accounts at once, absent ones as null", async () => {
    const nobody = (await generateKeyPairSigner()).address;
    const { value } = await rpc
      .getMultipleAccounts([address(chain.payToTokenAccount), nobody, usdc], { encoding: "base64" })
      .send();
    expect(value[0]?.owner).toBe(TOKEN_PROGRAM_ADDRESS);
    expect(value[0]?.space).toBe(165n);
    expect(value[1]).toBeNull();
    expect(value[2]?.data[1]).toBe("base64");
  });

  it("answers the json and base64 encodings consistently with the jsonParsed one", async () => {
    const asJson = await rpc.getTransaction(signature, { encoding: "json", maxSupportedTransactionVersion: 0 }).send();
    expect(asJson?.transaction.message.accountKeys[0]).toBe(payer.address);
    expect(asJson?.transaction.message.header.numRequiredSignatures).toBe(1);
    expect(asJson?.meta?.loadedAddresses).toEqual({ writable: [], readonly: [] });
    const asBase64 = await rpc
      .getTransaction(signature, { encoding: "base64", maxSupportedTransactionVersion: 0 })
      .send();
    const wire = getBase64Encoder().encode(asBase64!.transaction[0]);
    expect(getBase58Decoder().decode(wire.subarray(1, 65))).toBe(signature);
    expect(asBase64?.meta?.preTokenBalances).toEqual(asJson?.meta?.preTokenBalances);
  });

  it("refuses a v0 transaction to a client that did not ask for versions, with -32015", async () => {
    const answer = await call("getTransaction", [signature, { encoding: "jsonParsed" }]);
    expect(answer.error?.code).toBe(-32015);
    expect(answer.error?.message).toContain("maxSupportedTransactionVersion");
  });

  it("runs memos for the v1 and v4 programs too, parsing v1 and leaving v4 undecoded as a node does", async () => {
    const v1: Instruction = {
      programAddress: LEGACY_MEMO_PROGRAM_ADDRESS_V1,
      data: new TextEncoder().encode("v1 memo ✓"),
    };
    const v4 = getAddMemoInstruction({ memo: "v4 memo" });
    expect(v4.programAddress).toBe(MEMO_PROGRAM_ADDRESS);
    const transaction = await signedTransaction(payer, [v1, v4]);
    await rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: "base64" }).send();
    const raw = await call("getTransaction", [
      getSignatureFromTransaction(transaction),
      { encoding: "jsonParsed", maxSupportedTransactionVersion: 0 },
    ]);
    expect(raw.result.meta.err).toBeNull();
    const [first, second] = raw.result.transaction.message.instructions;
    expect(first).toEqual({
      program: "spl-memo",
      parsed: "v1 memo ✓",
      programId: LEGACY_MEMO_PROGRAM_ADDRESS_V1,
      stackHeight: null,
    });
    expect(second).toEqual({
      programId: MEMO_PROGRAM_ADDRESS,
      accounts: [],
      data: getBase58Decoder().decode(new TextEncoder().encode("v4 memo")),
      stackHeight: null,
    });
  });
});

describe("local chain: failed transactions", () => {
  it("refuses an overdraft at preflight with -32002 and logs, and lands it with meta.err when preflight is skipped", async () => {
    const before = await payerUsdc();
    const transaction = await signedTransaction(payer, usdcTransfer(before + 1n, "too much"));
    const signature = getSignatureFromTransaction(transaction);
    const wire = getBase64EncodedWireTransaction(transaction);

    const refused = await call("sendTransaction", [wire, { encoding: "base64" }]);
    expect(refused.error?.code).toBe(-32002);
    expect(refused.error?.message).toBe(
      "Transaction simulation failed: Error processing Instruction 2: custom program error: 0x1",
    );
    expect(refused.error?.data.err).toEqual({ InstructionError: [2, { Custom: 1 }] });
    expect(refused.error?.data.logs).toContain("Program log: Error: insufficient funds");
    expect((await rpc.getSignatureStatuses([signature]).send()).value[0]).toBeNull();

    const solBefore = (await rpc.getBalance(payer.address).send()).value;
    const sent = await rpc.sendTransaction(wire, { encoding: "base64", skipPreflight: true }).send();
    expect(sent).toBe(signature);
    const statuses = (await call("getSignatureStatuses", [[signature]])).result.value;
    expect(statuses[0].err).toEqual({ InstructionError: [2, { Custom: 1 }] });
    expect(statuses[0].confirmationStatus).toBe("finalized");
    const rawMeta = (await call("getTransaction", [signature, { encoding: "json", maxSupportedTransactionVersion: 0 }]))
      .result.meta;
    expect(rawMeta.err).toEqual({ InstructionError: [2, { Custom: 1 }] });
    expect(rawMeta.status).toEqual({ Err: { InstructionError: [2, { Custom: 1 }] } });

    const landed = await jsonParsed(signature);
    expect(landed.meta?.err).not.toBeNull();
    expect(tokenDelta(landed.meta!, chain.payTo, DEVNET_USDC_MINT)).toBe(0n);
    expect(await payerUsdc()).toBe(before);
    // The fee is paid all the same.
    expect((await rpc.getBalance(payer.address).send()).value).toBe(solBefore - landed.meta!.fee);
    expect(landed.meta!.fee).toBeGreaterThan(0n);

    const resent = await call("sendTransaction", [wire, { encoding: "base64" }]);
    expect(resent.error?.data.err).toBe("AlreadyProcessed");
  });

  it("keeps a blockhash valid across transactions and refuses one it never issued", async () => {
    const { value: shared } = await rpc.getLatestBlockhash().send();
    expect(shared.lastValidBlockHeight).toBe((await rpc.getBlockHeight().send()) + 150n);
    const build = async (memo: string, lifetime = shared) =>
      signTransactionMessageWithSigners(
        pipe(
          createTransactionMessage({ version: 0 }),
          (m) => setTransactionMessageFeePayerSigner(payer, m),
          (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
          (m) => appendTransactionMessageInstructions([getAddMemoInstruction({ memo })], m),
        ),
      );
    for (const memo of ["first", "second", "third"]) {
      const transaction = await build(memo);
      // base58, the encoding sendTransaction defaults to
      const base58Wire = getBase58Decoder().decode(getTransactionEncoder().encode(transaction));
      await rpc.sendTransaction(base58Wire as never).send();
      expect(
        (await rpc.getSignatureStatuses([getSignatureFromTransaction(transaction)]).send()).value[0]?.err,
      ).toBeNull();
    }
    expect((await rpc.isBlockhashValid(shared.blockhash).send()).value).toBe(true);

    const stranger = await build("stale", {
      blockhash: "GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi" as never,
      lastValidBlockHeight: 0n,
    });
    const refused = await call("sendTransaction", [getBase64EncodedWireTransaction(stranger), { encoding: "base64" }]);
    expect(refused.error?.code).toBe(-32002);
    expect(refused.error?.data.err).toBe("BlockhashNotFound");
  });

  it("answers -32003 for a transaction whose signature does not verify", async () => {
    const transaction = await signedTransaction(payer, [getAddMemoInstruction({ memo: "tampered" })]);
    const wire = new Uint8Array(getTransactionEncoder().encode(transaction));
    wire[10] = wire[10]! ^ 0xff; // inside the first signature
    const answer = await call("sendTransaction", [
      Buffer.from(wire).toString("base64"),
      { encoding: "base64", skipPreflight: true },
    ]);
    expect(answer.error?.code).toBe(-32003);
  });
});

describe("local chain: simulation as the x402 client uses it", () => {
  it("simulates an unsigned transaction with a placeholder blockhash when asked to replace it", async () => {
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: "11111111111111111111111111111111" as never, lastValidBlockHeight: 0n },
          m,
        ),
      (m) => appendTransactionMessageInstructions(usdcTransfer(1n, "estimate"), m),
    );
    const { compileTransaction } = await import("@solana/kit");
    const unsigned = compileTransaction(message);
    const { value } = await rpc
      .simulateTransaction(getBase64EncodedWireTransaction(unsigned), {
        encoding: "base64",
        sigVerify: false,
        replaceRecentBlockhash: true,
      })
      .send();
    expect(value.err).toBeNull();
    expect(value.unitsConsumed).toBeGreaterThan(0n);
    expect(value.replacementBlockhash?.blockhash).toBe((await rpc.getLatestBlockhash().send()).value.blockhash);

    const strict = await call("simulateTransaction", [
      getBase64EncodedWireTransaction(unsigned),
      { encoding: "base64", sigVerify: true },
    ]);
    expect(strict.error?.code).toBe(-32003);
  });
});

describe("local chain: the x402 1.2.0 client", () => {
  it("builds its payment against this RPC (mint lookup, simulation, blockhash); the fee payer co-signs and it lands", async () => {
    const { createPaymentHeader } = await import("x402/client");
    const requirements = {
      scheme: "exact" as const,
      network: "solana-devnet" as const,
      maxAmountRequired: "2000",
      resource: "http://127.0.0.1/api/chunk/structure",
      description: "structure tier",
      mimeType: "application/json",
      maxTimeoutSeconds: 60,
      payTo: chain.payTo,
      asset: DEVNET_USDC_MINT,
      extra: { feePayer: chain.feePayer.address },
    };
    const header = await createPaymentHeader(payer, 1, requirements, { svmConfig: { rpcUrl: chain.rpcUrl } });
    const { payload } = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as {
      payload: { transaction: string };
    };
    const partiallySigned = getTransactionDecoder().decode(getBase64Encoder().encode(payload.transaction));
    const feePayer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(chain.feePayer.secretKey));
    const signed = await partiallySignTransaction([feePayer.keyPair], partiallySigned);
    const signature = await rpc
      .sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: "base64", skipPreflight: true })
      .send();
    const landed = await jsonParsed(signature);
    expect(landed.meta?.err).toBeNull();
    expect(tokenDelta(landed.meta!, chain.payTo, DEVNET_USDC_MINT)).toBe(2000n);
    expect(landed.transaction.message.accountKeys[0]?.pubkey).toBe(chain.feePayer.address);
  });
});

describe("local chain: clock", () => {
  it("moves the clock for new blocks and leaves old ones alone", async () => {
    const first = await signedTransaction(payer, [getAddMemoInstruction({ memo: "before the jump" })]);
    await rpc.sendTransaction(getBase64EncodedWireTransaction(first), { encoding: "base64" }).send();
    const firstTime = Number((await jsonParsed(getSignatureFromTransaction(first))).blockTime);

    const jumped = await call("chunkwise_advanceClock", [7200]);
    expect(jumped.result.unix_timestamp).toBeGreaterThanOrEqual(firstTime + 7200);
    const slot = await rpc.getSlot().send();
    expect(Number(await rpc.getBlockTime(slot).send())).toBeGreaterThanOrEqual(firstTime + 7200);

    const second = await signedTransaction(payer, [getAddMemoInstruction({ memo: "after the jump" })]);
    await rpc.sendTransaction(getBase64EncodedWireTransaction(second), { encoding: "base64" }).send();
    const secondTime = Number((await jsonParsed(getSignatureFromTransaction(second))).blockTime);
    expect(secondTime).toBeGreaterThanOrEqual(firstTime + 7200);
    expect(Number((await jsonParsed(getSignatureFromTransaction(first))).blockTime)).toBe(firstTime);

    expect((await call("chunkwise_advanceClock", [0])).error?.code).toBe(-32602);
    expect((await call("chunkwise_advanceClock", [1.5])).error?.code).toBe(-32602);
  });
});

describe("local chain: websockets", () => {
  it("notifies a signature subscription on port + 1 (web3.js's port) once, and at once when already processed", async () => {
    const { socket, next } = await openSocket(`ws://127.0.0.1:${chain.port + 1}`);
    try {
      const transaction = await signedTransaction(payer, [getAddMemoInstruction({ memo: "watched" })]);
      const signature = getSignatureFromTransaction(transaction);
      socket.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "signatureSubscribe",
          params: [signature, { commitment: "confirmed" }],
        }),
      );
      const subscribed = await next();
      expect(subscribed).toMatchObject({ jsonrpc: "2.0", id: 7 });
      expect(typeof subscribed.result).toBe("number");

      await rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: "base64" }).send();
      const notification = await next();
      const landedSlot = (await rpc.getSignatureStatuses([signature]).send()).value[0]!.slot;
      expect(notification).toEqual({
        jsonrpc: "2.0",
        method: "signatureNotification",
        params: {
          result: { context: { slot: Number(landedSlot) }, value: { err: null } },
          subscription: subscribed.result,
        },
      });
      // It ended with the notification, as on a node.
      socket.send(
        JSON.stringify({ jsonrpc: "2.0", id: 8, method: "signatureUnsubscribe", params: [subscribed.result] }),
      );
      expect((await next()).error?.code).toBe(-32602);

      socket.send(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "signatureSubscribe", params: [signature] }));
      const late = await next();
      expect(late.id).toBe(9);
      expect(await next()).toMatchObject({
        method: "signatureNotification",
        params: { subscription: late.result, result: { value: { err: null } } },
      });

      socket.send(JSON.stringify({ jsonrpc: "2.0", id: 10, method: "accountSubscribe", params: [payer.address] }));
      expect((await next()).error?.code).toBe(-32601);
    } finally {
      socket.close();
    }
  });

  it("streams slots to kit's subscriptions client on the RPC's own port", async () => {
    const abort = new AbortController();
    try {
      const slots = await rpcSubscriptions.slotNotifications().subscribe({ abortSignal: abort.signal });
      const transaction = await signedTransaction(payer, [getAddMemoInstruction({ memo: "tick" })]);
      const iterator = slots[Symbol.asyncIterator]();
      const pending = iterator.next();
      await rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: "base64" }).send();
      const { value } = await pending;
      const landedSlot = (await rpc.getSignatureStatuses([getSignatureFromTransaction(transaction)]).send()).value[0]!
        .slot;
      expect(value?.slot).toBe(landedSlot);
      expect(value?.parent).toBe(landedSlot - 1n);
    } finally {
      abort.abort();
    }
  });
});

describe("local chain: JSON-RPC framing", () => {
  it("answers a batch in order, with per-request errors", async () => {
    const response = await post(
      JSON.stringify([
        { jsonrpc: "2.0", id: "a", method: "getSlot" },
        { jsonrpc: "2.0", id: "b", method: "noSuchMethod" },
        { jsonrpc: "2.0", id: "c", method: "getBalance", params: [payer.address] },
        { id: "d", method: "getSlot" },
      ]),
    );
    const answers = (await response.json()) as JsonRpcAnswer[];
    expect(answers.map((a) => a.id)).toEqual(["a", "b", "c", "d"]);
    expect(typeof answers[0]!.result).toBe("number");
    expect(answers[1]!.error?.code).toBe(-32601);
    expect(typeof answers[2]!.result.value).toBe("number");
    expect(answers[3]!.error?.code).toBe(-32600);
  });

  it("answers -32601 for an unknown method, -32700 for malformed JSON, -32602 for bad params", async () => {
    expect((await call("getEverything")).error?.code).toBe(-32601);
    const malformed = await post('{"jsonrpc":"2.0","id":1,"method":"getSlot"');
    expect(((await malformed.json()) as JsonRpcAnswer).error).toEqual({ code: -32700, message: "Parse error" });
    expect((await call("getBalance", ["short"])).error?.code).toBe(-32602);
    expect((await call("getSignatureStatuses", ["not a list"])).error?.code).toBe(-32602);
    expect((await call("getTransaction", ["x".repeat(88)])).error?.code).toBe(-32602);
  });

  it("writes u64 values as JSON numbers, the way kit expects them", async () => {
    const response = await post(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "getAccountInfo",
        params: [chain.usdcMint, { encoding: "base64" }],
      }),
    );
    const text = await response.text();
    expect(text).toContain('"rentEpoch":18446744073709551615');
    expect(text).toMatch(/"lamports":\d+/);
  });

  it("refuses bodies over the size limit and methods other than POST", async () => {
    const huge = await post(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSlot", params: ["x".repeat(100_000)] }),
    );
    expect(huge.status).toBe(413);
    expect((await fetch(chain.rpcUrl)).status).toBe(405);
    expect(await (await fetch(`${chain.rpcUrl}/health`)).text()).toBe("ok");
  });
});

describe("local chain: several chains and shutdown", () => {
  it("runs a second chain beside the first with its own state, and frees both ports on close", async () => {
    const second = await startLocalChain({ port: 0 });
    try {
      expect(second.port).not.toBe(chain.port);
      expect(second.payTo).not.toBe(chain.payTo);
      const someone = await generateKeyPairSigner();
      const funded = await call("chunkwise_faucet", [someone.address, { usdc: 1 }], second.rpcUrl);
      const signature = funded.result.signatures[0];
      expect((await call("getSignatureStatuses", [[signature]], second.rpcUrl)).result.value[0].err).toBeNull();
      expect((await call("getSignatureStatuses", [[signature]])).result.value[0]).toBeNull();
    } finally {
      await second.close();
    }
    expect(await portIsFree(second.port)).toBe(true);
    expect(await portIsFree(second.port + 1)).toBe(true);
    await expect(fetch(second.rpcUrl, { method: "POST", body: "{}" })).rejects.toThrow();
  });

  it("takes an explicit port and refuses one that is taken", async () => {
    const first = await startLocalChain({ port: 0 });
    const port = first.port;
    await first.close();
    const fixed = await startLocalChain({ port });
    try {
      expect(fixed.rpcUrl).toBe(`http://127.0.0.1:${port}`);
      expect((await call("getHealth", [], fixed.rpcUrl)).result).toBe("ok");
      await expect(startLocalChain({ port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await fixed.close();
    }
  });
});
