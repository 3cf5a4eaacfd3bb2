import {
  type KeyPairSigner,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  generateKeyPairSigner,
  signature as asSignature,
} from "@solana/kit";
import { ComputeBudgetProgram, Keypair, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalChain, startLocalChain } from "@/localchain";
import { associatedTokenAccount, signUsdcTransfer } from "@/lib/payments/usdc-transfer";
import { type Price, checkFunds, signPayment } from "@/web/payment/paid-request";
import { PaymentChain, TRANSFER_FEE_LAMPORTS } from "@/web/payment/payment-chain";
import { faucet as fundOnLocalChain } from "./helpers/chain";
import { PaymentProblem, type PaymentProblemDetail } from "@/web/payment/payment-problem";
import { formatBaseUnits, formatSol } from "@/web/format";
import { type SignWithWallet, walletTransactionSigner } from "@/web/payment/wallet-signer";

/**
 * The browser's payment code (web/payment) against the real local chain:
 * balances, the checks before signing, how the chain's refusals are
 * explained, and the signer that hands transactions to a wallet-adapter
 * wallet (here a web3.js keypair playing the wallet, as Phantom would).
 */

let chain: LocalChain;
let payments: PaymentChain;

beforeAll(async () => {
  chain = await startLocalChain({ port: 0 });
  payments = new PaymentChain(chain.rpcUrl);
}, 30_000);

afterAll(async () => {
  await chain?.close();
});

const faucet = (address: string, amounts: { lamports?: number; usdc?: number } = {}) =>
  fundOnLocalChain(chain.rpcUrl, address, amounts);

const priceOf = (amount: bigint, reference?: string): Price => ({
  amountBaseUnits: amount,
  decimals: 6,
  payTo: chain.payTo,
  mint: chain.usdcMint,
  network: "solana-localnet",
  description: "test",
  reference,
});

async function problemOf(promise: Promise<unknown>): Promise<PaymentProblemDetail> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PaymentProblem);
  return (error as PaymentProblem).detail;
}

async function payToBalance(): Promise<bigint> {
  return (await payments.balances(chain.payTo, chain.usdcMint)).usdcBaseUnits;
}

/** Signs, sends and confirms through PaymentChain, as the page does. */
async function payWith(payer: Parameters<typeof signPayment>[1], price: Price): Promise<string> {
  const signed = await signPayment(payments, payer, price);
  await payments.send(signed.wireTransaction, {
    signature: signed.signature,
    usdc: { need: price.amountBaseUnits, decimals: 6 },
    payer: payer.address,
    mint: price.mint,
  });
  await payments.waitForConfirmation(signed.signature, signed.blockhash.lastValidBlockHeight);
  return signed.signature;
}

describe("amounts", () => {
  it("shows base units as exact decimals", () => {
    expect(formatBaseUnits(2000n, 6)).toBe("0.002");
    expect(formatBaseUnits("25000", 6)).toBe("0.025");
    expect(formatBaseUnits(10_000_000n, 6)).toBe("10");
    expect(formatBaseUnits(1n, 6)).toBe("0.000001");
    expect(formatBaseUnits(123_456_789_012_345_678n, 6)).toBe("123456789012.345678");
    expect(formatSol(TRANSFER_FEE_LAMPORTS)).toBe("0.000005");
  });
});

describe("balances and the checks before signing", () => {
  it("reads a wallet that never held USDC as zero, and the faucet's funds after", async () => {
    const payer = await generateKeyPairSigner();
    expect(await payments.balances(payer.address, chain.usdcMint)).toEqual({ lamports: 0n, usdcBaseUnits: 0n });
    await faucet(payer.address);
    expect(await payments.balances(payer.address, chain.usdcMint)).toEqual({
      lamports: 1_000_000_000n,
      usdcBaseUnits: 10_000_000n,
    });
  });

  it("says which funds are short and by how much", async () => {
    const empty = await generateKeyPairSigner();
    expect(await problemOf(checkFunds(payments, empty.address, priceOf(2000n)))).toEqual({
      kind: "insufficient_usdc",
      haveBaseUnits: 0n,
      needBaseUnits: 2000n,
      decimals: 6,
    });

    const usdcOnly = await generateKeyPairSigner();
    await faucet(usdcOnly.address, { lamports: 0, usdc: 5000 });
    expect(await problemOf(checkFunds(payments, usdcOnly.address, priceOf(2000n)))).toEqual({
      kind: "insufficient_sol",
      haveLamports: 0n,
      needLamports: TRANSFER_FEE_LAMPORTS,
    });
    expect(await problemOf(checkFunds(payments, usdcOnly.address, priceOf(6000n)))).toMatchObject({
      kind: "insufficient_usdc",
      haveBaseUnits: 5000n,
      needBaseUnits: 6000n,
    });

    const funded = await generateKeyPairSigner();
    await faucet(funded.address);
    await expect(checkFunds(payments, funded.address, priceOf(2000n))).resolves.toBeUndefined();
  });

  it("explains the chain's preflight refusals when a transfer goes out anyway", async () => {
    const poor = await generateKeyPairSigner();
    await faucet(poor.address, { usdc: 1000 });
    const tooMuch = signPayment(payments, poor, priceOf(2000n));
    const signed = await tooMuch;
    const context = {
      signature: signed.signature,
      usdc: { need: 2000n, decimals: 6 },
      payer: poor.address,
      mint: chain.usdcMint,
    };
    expect(await problemOf(payments.send(signed.wireTransaction, context))).toEqual({
      kind: "insufficient_usdc",
      haveBaseUnits: 1000n,
      needBaseUnits: 2000n,
      decimals: 6,
    });

    const noSol = await generateKeyPairSigner();
    await faucet(noSol.address, { lamports: 0, usdc: 5000 });
    const unfunded = await signPayment(payments, noSol, priceOf(2000n));
    expect(
      await problemOf(
        payments.send(unfunded.wireTransaction, { ...context, signature: unfunded.signature, payer: noSol.address }),
      ),
    ).toMatchObject({ kind: "insufficient_sol", haveLamports: 0n });
  });

  it("reports a transaction that can no longer land as expired, and an unreachable RPC as such", async () => {
    const nobody = await generateKeyPairSigner();
    const signed = await signUsdcTransfer({
      payer: nobody,
      mint: chain.usdcMint,
      payTo: chain.payTo,
      amount: 1n,
      blockhash: (await createSolanaRpc(chain.rpcUrl).getLatestBlockhash().send()).value,
    });
    // Never sent, and valid only up to a height the chain has passed.
    expect(await problemOf(payments.waitForConfirmation(signed.signature, 0n))).toEqual({
      kind: "not_confirmed",
      signature: signed.signature,
      reason: "expired",
    });

    const offline = new PaymentChain("http://127.0.0.1:9");
    expect(await problemOf(offline.balances(nobody.address, chain.usdcMint))).toMatchObject({
      kind: "rpc_unreachable",
      rpcUrl: "http://127.0.0.1:9",
    });
  });
});

describe("paying through a browser wallet (the wallet-adapter signer)", () => {
  async function walletKeys(): Promise<{ keypair: Keypair; address: string }> {
    const keypair = Keypair.generate();
    await faucet(keypair.publicKey.toBase58());
    return { keypair, address: keypair.publicKey.toBase58() };
  }

  it("lands a transfer the wallet signed unchanged, with the reference Memo", async () => {
    const { keypair, address } = await walletKeys();
    const seen: VersionedTransaction[] = [];
    const wallet: SignWithWallet = async (transaction) => {
      seen.push(transaction);
      transaction.sign([keypair]);
      return transaction;
    };
    const before = await payToBalance();
    const reference = (await generateKeyPairSigner()).address;
    const signature = await payWith(walletTransactionSigner(address, wallet), priceOf(2000n, reference));
    expect(seen).toHaveLength(1);
    expect(await payToBalance()).toBe(before + 2000n);
    const landed = await createSolanaRpc(chain.rpcUrl)
      .getTransaction(asSignature(signature), {
        commitment: "confirmed",
        encoding: "jsonParsed",
        maxSupportedTransactionVersion: 0,
      })
      .send();
    const memo = landed?.transaction.message.instructions.find(
      (instruction) => "program" in instruction && instruction.program === "spl-memo",
    );
    expect(memo && "parsed" in memo ? memo.parsed : null).toBe(reference);
  });

  it("lands a transfer the wallet changed before signing (as Phantom adds instructions)", async () => {
    const { keypair, address } = await walletKeys();
    const wallet: SignWithWallet = async (transaction) => {
      const message = TransactionMessage.decompile(transaction.message);
      message.instructions.unshift(ComputeBudgetProgram.setComputeUnitLimit({ units: 100_000 }));
      const changed = new VersionedTransaction(message.compileToV0Message());
      changed.sign([keypair]);
      return changed;
    };
    const before = await payToBalance();
    const signature = await payWith(walletTransactionSigner(address, wallet), priceOf(2000n));
    expect(await payToBalance()).toBe(before + 2000n);
    const landed = await createSolanaRpc(chain.rpcUrl)
      .getTransaction(asSignature(signature), {
        commitment: "confirmed",
        encoding: "jsonParsed",
        maxSupportedTransactionVersion: 0,
      })
      .send();
    expect(landed?.transaction.message.instructions).toHaveLength(2);
  });

  it("turns a refusal in the wallet into 'declined', and a wallet that returns no signature into a wallet error", async () => {
    const { address } = await walletKeys();
    const refusing: SignWithWallet = async () => {
      throw Object.assign(new Error("User rejected the request."), { name: "WalletSignTransactionError" });
    };
    expect(await problemOf(signPayment(payments, walletTransactionSigner(address, refusing), priceOf(2000n)))).toEqual({
      kind: "declined",
      walletMessage: "User rejected the request.",
    });

    const unsigned: SignWithWallet = async (transaction) => transaction;
    expect(
      await problemOf(signPayment(payments, walletTransactionSigner(address, unsigned), priceOf(2000n))),
    ).toMatchObject({ kind: "wallet_error" });
  });

  it("signs with the local test wallet's kit keypair directly", async () => {
    const signer: KeyPairSigner = await createKeyPairSignerFromBytes(Keypair.generate().secretKey);
    await faucet(signer.address);
    const before = await payToBalance();
    await payWith(signer, priceOf(25_000n));
    expect(await payToBalance()).toBe(before + 25_000n);
  });
});

it("pays the associated token account of payTo", async () => {
  expect(await associatedTokenAccount(chain.payTo, chain.usdcMint)).toBe(chain.payToTokenAccount);
});
