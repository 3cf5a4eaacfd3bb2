/** Settling a verified x402 payment: co-signing it as fee payer, simulating, sending and waiting for it on chain. */

import {
  type Base64EncodedWireTransaction,
  type Signature,
  isFullySignedTransaction,
  createKeyPairFromBytes,
  getAddressFromPublicKey,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  partiallySignTransaction,
} from "@solana/kit";
import { z } from "zod";
import { ApiError } from "@/lib/ground/errors";
import { type ChainRpc, RpcErrorReply } from "@/lib/payments/chain-rpc";
import { accept, refuse, type Verdict } from "@/lib/payments/refusal";
import type { VerifiedX402, CosignedX402 } from "./payload";

/**
 * Adds the fee payer's signature (key: base58 of its 64-byte secret key, as in Solana keypair files). A key that is
 * not the payments' fee payer is the server's fault (500), not the payer's.
 */
export async function cosignX402(verified: VerifiedX402, feePayerSecretKey: string): Promise<Verdict<CosignedX402>> {
  let keyPair: CryptoKeyPair;
  try {
    keyPair = await createKeyPairFromBytes(getBase58Encoder().encode(feePayerSecretKey.trim()));
  } catch (cause) {
    throw new ApiError(
      "fee_payer_misconfigured",
      "FEE_PAYER_SECRET_KEY is not the base58 of a 64-byte Solana secret key.",
      { cause },
    );
  }
  const keyAddress = await getAddressFromPublicKey(keyPair.publicKey);
  if (keyAddress !== verified.feePayer)
    throw new ApiError(
      "fee_payer_misconfigured",
      `FEE_PAYER_SECRET_KEY belongs to ${keyAddress}, but payments name ${verified.feePayer} as fee payer.`,
    );
  const signed = await partiallySignTransaction([keyPair], verified.transaction);
  if (!isFullySignedTransaction(signed))
    return refuse("payment_invalid_signature", "The transaction still lacks a signature after the fee payer's.");
  return accept({
    signature: getSignatureFromTransaction(signed),
    wireTransaction: getBase64EncodedWireTransaction(signed),
  });
}

const SignatureStatusesSchema = z.object({
  value: z
    .array(
      z
        .object({
          confirmationStatus: z.enum(["processed", "confirmed", "finalized"]).nullable().optional(),
          err: z.unknown().nullable(),
        })
        .nullable(),
    )
    .length(1),
});
type SignatureStatus = NonNullable<z.infer<typeof SignatureStatusesSchema>["value"][number]>;

const SimulationSchema = z.object({
  value: z.object({ err: z.unknown().nullable(), logs: z.array(z.string()).nullable().optional() }),
});

export interface SettleOptions {
  /** How long to wait for `confirmed` after sending. */
  confirmTimeoutMs: number;
}

export const describeCause = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause));
const isConfirmed = (status: SignatureStatus) =>
  status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized";
const describe = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const failedOnChain = (err: unknown) =>
  refuse(
    "payment_failed",
    `The payment transaction failed on chain (${describe(err)}); no USDC moved. Create a new payment.`,
  );

/** The calls settling makes, through the service's one RPC client (whose faults are 503 `chain_unavailable`). */
class ChainClient {
  constructor(private readonly rpc: ChainRpc) {}

  async status(signature: Signature): Promise<SignatureStatus | null> {
    const answer = await this.rpc.call(
      "getSignatureStatuses",
      [[signature], { searchTransactionHistory: true }],
      SignatureStatusesSchema,
    );
    return answer.value[0] ?? null;
  }

  async simulate(wire: Base64EncodedWireTransaction) {
    const answer = await this.rpc.call(
      "simulateTransaction",
      [wire, { encoding: "base64", sigVerify: true, replaceRecentBlockhash: false, commitment: "confirmed" }],
      SimulationSchema,
    );
    return answer.value;
  }

  /** `false` when the RPC answered with an error (the transaction was refused); transport failures are a 503. */
  async send(wire: Base64EncodedWireTransaction): Promise<{ accepted: true } | { accepted: false; error: unknown }> {
    try {
      await this.rpc.call("sendTransaction", [wire, { encoding: "base64", skipPreflight: true }], z.string());
      return { accepted: true };
    } catch (error) {
      if (error instanceof ApiError && error.cause instanceof RpcErrorReply)
        return { accepted: false, error: error.cause };
      throw error;
    }
  }
}

/**
 * Polls with a growing delay until the transaction is confirmed, has failed, or the time is up. Not confirmed in
 * time is a 503 thrown: the payment may still land, and the same request repeated finds it.
 */
async function awaitConfirmation(chain: ChainClient, signature: Signature, timeoutMs: number): Promise<Verdict<void>> {
  const deadline = Date.now() + timeoutMs;
  let delay = 50;
  for (;;) {
    const status = await chain.status(signature);
    if (status?.err) return failedOnChain(status.err);
    if (status && isConfirmed(status)) return accept(undefined);
    const left = deadline - Date.now();
    if (left <= 0) break;
    await sleep(Math.min(delay, left));
    delay = Math.min(delay * 2, 1000);
  }
  throw new ApiError(
    "payment_unconfirmed",
    `Payment ${signature} was sent but is not confirmed yet. Repeat the same request with the same X-PAYMENT: it will not be charged twice.`,
    { headers: { "Retry-After": "2" } },
  );
}

/** A transaction whose simulation fails is refused; the chain unchanged. */
async function simulate(chain: ChainClient, wire: Base64EncodedWireTransaction): Promise<Verdict<"ok" | "landed">> {
  const simulation = await chain.simulate(wire);
  if (simulation.err === "BlockhashNotFound")
    return refuse(
      "payment_expired",
      "The payment transaction's blockhash has expired; nothing was charged. Create a new payment.",
    );
  // Landed already (a concurrent sender): nothing to refuse.
  if (simulation.err === "AlreadyProcessed") return accept("landed");
  if (simulation.err) {
    const logs = (simulation.logs ?? []).slice(-3).join(" | ");
    return refuse(
      "payment_simulation_failed",
      `The payment transaction would fail (${describe(simulation.err)}${logs ? `: ${logs}` : ""}); nothing was sent.`,
    );
  }
  return accept("ok");
}

/**
 * Checks, before the work it pays for, that a co-signed payment would go
 * through: known on chain already (a retry) or a successful simulation.
 */
export async function simulateX402(rpc: ChainRpc, cosigned: CosignedX402): Promise<Verdict<void>> {
  const chain = new ChainClient(rpc);
  if (await chain.status(cosigned.signature as Signature)) return accept(undefined);
  const simulated = await simulate(chain, cosigned.wireTransaction as Base64EncodedWireTransaction);
  return simulated.ok ? accept(undefined) : simulated;
}

/**
 * Sends a co-signed payment and waits until it is confirmed. Simulates first
 * and sends nothing when the simulation fails. A payment already on chain (a
 * retry after the work failed) is not sent again. A transaction the chain
 * refuses or fails is a refusal (`payment_failed`, ...); the RPC being
 * unreachable is a 503 `chain_unavailable`, thrown.
 */
export async function settleX402(
  rpc: ChainRpc,
  cosigned: CosignedX402,
  options: SettleOptions,
): Promise<Verdict<void>> {
  const chain = new ChainClient(rpc);
  const signature = cosigned.signature as Signature;
  const wire = cosigned.wireTransaction as Base64EncodedWireTransaction;

  const known = await chain.status(signature);
  if (known) return awaitConfirmation(chain, signature, options.confirmTimeoutMs);
  const simulated = await simulate(chain, wire);
  if (!simulated.ok) return simulated;
  if (simulated.value === "landed") return awaitConfirmation(chain, signature, options.confirmTimeoutMs);

  const sent = await chain.send(wire);
  if (!sent.accepted) {
    // A concurrent sender may have landed it first; otherwise the chain refused it.
    if (await chain.status(signature)) return awaitConfirmation(chain, signature, options.confirmTimeoutMs);
    return refuse(
      "payment_failed",
      `The chain refused the payment transaction (${describeCause(sent.error)}); no USDC moved. Create a new payment.`,
    );
  }
  return awaitConfirmation(chain, signature, options.confirmTimeoutMs);
}

/** The X-PAYMENT-RESPONSE header: base64 JSON `{success, transaction, network, payer}`. */
export function paymentResponseHeader(receipt: { signature: string; network: string; payer: string }): string {
  const body = { success: true, transaction: receipt.signature, network: receipt.network, payer: receipt.payer };
  return Buffer.from(JSON.stringify(body), "utf8").toString("base64");
}
