import { isSignature } from "@solana/kit";
import { z } from "zod";
import type { ChainRpc } from "@/lib/payments/chain-rpc";
import { MEMO_PROGRAMS, memoTextFromBase58 } from "@/lib/payments/memo";
import { accept, refuse, type Verdict } from "@/lib/payments/refusal";

/**
 * The spec's way of paying: the client sends USDC to `payTo` itself, then
 * presents the transaction signature. We judge what the chain recorded, not
 * what the transaction asked for: token balance deltas of accounts owned by
 * `payTo` in the configured mint, so transfers routed through other programs
 * or creating the recipient account in the same transaction count too.
 */

const TokenBalance = z.object({
  accountIndex: z.number().int(),
  mint: z.string(),
  owner: z.string().optional(),
  uiTokenAmount: z.object({ amount: z.string().regex(/^\d+$/) }),
});

const Instruction = z.object({
  program: z.string().optional(),
  programId: z.string(),
  parsed: z.unknown().optional(),
  /** Base58 instruction data, given when the node has no parser for the program. */
  data: z.string().optional(),
});

const ParsedTransaction = z
  .object({
    slot: z.number(),
    blockTime: z.number().nullable(),
    meta: z
      .object({
        err: z.unknown(),
        preTokenBalances: z.array(TokenBalance).nullish(),
        postTokenBalances: z.array(TokenBalance).nullish(),
        innerInstructions: z.array(z.object({ instructions: z.array(Instruction) })).nullish(),
      })
      .nullable(),
    transaction: z.object({
      message: z.object({
        accountKeys: z.array(z.union([z.string(), z.object({ pubkey: z.string(), signer: z.boolean().optional() })])),
        instructions: z.array(Instruction),
      }),
    }),
  })
  .nullable();

type ParsedTransaction = NonNullable<z.infer<typeof ParsedTransaction>>;

export interface ExpectedPayment {
  payTo: string;
  mint: string;
  price: bigint;
  maxAgeSeconds: number;
  /** Total time to wait for a transaction not yet visible at `confirmed`. */
  confirmTimeoutMs: number;
}

export interface VerifiedTransfer {
  signature: string;
  /** USDC base units received by `payTo`. */
  amount: bigint;
  /** The fee payer, first account of the message. */
  payer: string;
  /** Memo texts, top-level and inner, in order: where a 402's reference travels. */
  memos: string[];
}

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

/** A base58 transaction signature (64 bytes). kit's `isSignature` throws on characters outside base58 rather than answering false. */
export const isBase58Signature = (value: string) => BASE58.test(value) && isSignature(value);

/** The header as a base58 transaction signature (64 bytes), or its refusal. */
export function parseSignature(header: string): Verdict<string> {
  const value = header.trim();
  if (isBase58Signature(value)) return accept(value);
  return refuse(
    "payment_invalid",
    "X-PAYMENT must be the base58 signature of your USDC transfer (64 bytes) or an x402 payment payload.",
  );
}

/** Polls `getTransaction` at `confirmed` with backoff until found or the time is up. */
async function findTransaction(rpc: ChainRpc, signature: string, timeoutMs: number): Promise<ParsedTransaction | null> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 200; ; delay = Math.min(delay * 2, 2000)) {
    const transaction = await rpc.call(
      "getTransaction",
      [signature, { commitment: "confirmed", encoding: "jsonParsed", maxSupportedTransactionVersion: 0 }],
      ParsedTransaction,
    );
    if (transaction) return transaction;
    const left = deadline - Date.now();
    if (left <= 0) return null;
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, left)));
  }
}

/** Post minus pre, per token account, summed over accounts matching `owner` and `mint`; a missing pre entry is zero. */
function receivedBy(meta: NonNullable<ParsedTransaction["meta"]>, owner: string, mint: string | null): bigint {
  const pre = new Map((meta.preTokenBalances ?? []).map((b) => [b.accountIndex, b]));
  let total = 0n;
  for (const post of meta.postTokenBalances ?? []) {
    if (post.owner !== owner || (mint !== null && post.mint !== mint)) continue;
    const before = pre.get(post.accountIndex);
    total += BigInt(post.uiTokenAmount.amount) - BigInt(before?.mint === post.mint ? before.uiTokenAmount.amount : "0");
  }
  return total;
}

/** Nodes parse v1 and v2 memos into text and leave the newest program's data in base58. */
function memosOf(transaction: ParsedTransaction): string[] {
  const instructions = [
    ...transaction.transaction.message.instructions,
    ...(transaction.meta?.innerInstructions ?? []).flatMap((inner) => inner.instructions),
  ];
  return instructions.flatMap((i) => {
    if (!MEMO_PROGRAMS.has(i.programId)) return [];
    const text =
      typeof i.parsed === "string" ? i.parsed.trim() : i.data === undefined ? null : memoTextFromBase58(i.data);
    return text === null ? [] : [text];
  });
}

function payerOf(transaction: ParsedTransaction): string {
  const first = transaction.transaction.message.accountKeys[0];
  return typeof first === "string" ? first : (first?.pubkey ?? "");
}

/** Judges a transfer by what the chain recorded; a refusal is a value with its reason code. */
export async function verifySignaturePayment(
  rpc: ChainRpc,
  signature: string,
  expected: ExpectedPayment,
  now = Date.now(),
): Promise<Verdict<VerifiedTransfer>> {
  const transaction = await findTransaction(rpc, signature, expected.confirmTimeoutMs);
  if (!transaction?.meta)
    return refuse(
      "payment_not_found",
      "No confirmed transaction with this signature yet. If you just sent it, retry the same request with the same X-PAYMENT in a few seconds.",
    );
  if (transaction.meta.err !== null && transaction.meta.err !== undefined)
    return refuse("payment_failed", "This transaction failed on chain, so nothing was paid. Send a new transfer.");
  if (transaction.blockTime === null || now / 1000 - transaction.blockTime > expected.maxAgeSeconds)
    return refuse(
      "payment_expired",
      `This transaction is older than ${expected.maxAgeSeconds} seconds; payments must be used soon after they are made. Send a new transfer.`,
    );

  const amount = receivedBy(transaction.meta, expected.payTo, expected.mint);
  if (amount < expected.price) {
    if (amount > 0n)
      return refuse(
        "payment_insufficient",
        `This transaction paid ${amount} USDC base units; the price is ${expected.price}. Send a new transfer of the full price.`,
      );
    if (receivedBy(transaction.meta, expected.payTo, null) > 0n)
      return refuse("payment_wrong_asset", `This transaction sent another token; pay in USDC (mint ${expected.mint}).`);
    return refuse(
      "payment_wrong_recipient",
      `This transaction sent no USDC to ${expected.payTo}, the payTo address of the 402 answer.`,
    );
  }
  return accept({ signature, amount, payer: payerOf(transaction), memos: memosOf(transaction) });
}
