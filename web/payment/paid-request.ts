import type { TransactionSigner } from "@solana/kit";
import { z } from "zod";
import { signUsdcTransfer } from "@/lib/payments/usdc-transfer";
import {
  type ApiOutcome,
  ApiUnreachable,
  type ChunkOptions,
  type ResultAnswer,
  type DocumentSource,
  type JobAccepted,
  type TierInfo,
  isJob,
  postChunk,
} from "@/web/api-client";
import { type LatestBlockhash, type PaymentChain, TRANSFER_FEE_LAMPORTS } from "@/web/payment/payment-chain";
import { PaymentProblem } from "@/web/payment/payment-problem";

/**
 * The steps of one paid request on the spec's signature path, without React:
 * ask for the price (402), check the payer can afford it, have the wallet sign
 * the USDC transfer, and redeem the confirmed signature with `X-PAYMENT`. The
 * page calls them one by one so it can show each step as it happens.
 */

/** The part of the 402 body the payment is built from, checked rather than trusted. */
const RequirementSchema = z.object({
  maxAmountRequired: z.string().regex(/^\d+$/, "an integer amount in base units"),
  payTo: z.string().min(32),
  asset: z.string().min(32),
  network: z.string(),
  description: z.string(),
  extra: z
    .object({ decimals: z.number().int().min(0).max(18).optional(), reference: z.string().min(1).optional() })
    .loose(),
});

export interface Price {
  amountBaseUnits: bigint;
  decimals: number;
  payTo: string;
  mint: string;
  network: string;
  description: string;
  /** The one-time reference to put in the transfer's Memo (binds the payment to this request). */
  reference?: string;
}

export type Served = { kind: "result"; result: ResultAnswer } | { kind: "job"; job: JobAccepted };

const served = (body: ResultAnswer | JobAccepted): Served =>
  isJob(body) ? { kind: "job", job: body } : { kind: "result", result: body };

async function post(
  tier: TierInfo,
  source: DocumentSource,
  options: ChunkOptions,
  payment?: string,
): Promise<ApiOutcome<ResultAnswer | JobAccepted>> {
  try {
    return await postChunk(tier, source, options, payment);
  } catch (error) {
    if (error instanceof ApiUnreachable)
      throw new PaymentProblem({ kind: "service_unreachable", message: error.message, signature: payment });
    throw error;
  }
}

/** Step (a): the request without payment, answered with the price. */
export async function askPrice(
  tier: TierInfo,
  source: DocumentSource,
  options: ChunkOptions,
  defaultDecimals: number,
): Promise<{ kind: "price"; price: Price } | { kind: "served"; served: Served }> {
  const outcome = await post(tier, source, options);
  if (outcome.kind === "ok") return { kind: "served", served: served(outcome.body) };
  if (outcome.kind === "error")
    throw new PaymentProblem({ kind: "service_refused", status: outcome.status, body: outcome.body });
  const requirement = RequirementSchema.safeParse(outcome.body.paymentRequirements);
  if (!requirement.success) {
    throw new PaymentProblem({
      kind: "service_refused",
      status: 402,
      body: {
        success: false,
        error: "Payment Required",
        code: "unreadable_payment_requirements",
        message: `The service asked for payment in a form this page does not understand (${requirement.error.issues[0]?.message ?? "malformed"}).`,
      },
    });
  }
  const r = requirement.data;
  return {
    kind: "price",
    price: {
      amountBaseUnits: BigInt(r.maxAmountRequired),
      decimals: r.extra.decimals ?? defaultDecimals,
      payTo: r.payTo,
      mint: r.asset,
      network: r.network,
      description: r.description,
      reference: r.extra.reference,
    },
  };
}

/** Before asking the wallet: enough USDC for the price and SOL for the fee, or a problem saying which and how much. */
export async function checkFunds(chain: PaymentChain, payer: string, price: Price): Promise<void> {
  const balances = await chain.balances(payer, price.mint);
  if (balances.usdcBaseUnits < price.amountBaseUnits) {
    throw new PaymentProblem({
      kind: "insufficient_usdc",
      haveBaseUnits: balances.usdcBaseUnits,
      needBaseUnits: price.amountBaseUnits,
      decimals: price.decimals,
    });
  }
  if (balances.lamports < TRANSFER_FEE_LAMPORTS) {
    throw new PaymentProblem({
      kind: "insufficient_sol",
      haveLamports: balances.lamports,
      needLamports: TRANSFER_FEE_LAMPORTS,
    });
  }
}

/** The wallet adapter wraps every refusal in this error (Phantom and Wallet Standard wallets alike). */
function isWalletRefusal(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  const code = (error as { error?: { code?: unknown } }).error?.code ?? (error as { code?: unknown }).code;
  return error.name === "WalletSignTransactionError" || code === 4001;
}

export interface SignedPayment {
  signature: string;
  wireTransaction: string;
  blockhash: LatestBlockhash;
}

/** Step (c): the transfer built from the 402 body and signed by the payer (the wallet asks the person here). */
export async function signPayment(chain: PaymentChain, payer: TransactionSigner, price: Price): Promise<SignedPayment> {
  const blockhash = await chain.latestBlockhash();
  try {
    const signed = await signUsdcTransfer({
      payer,
      mint: price.mint,
      payTo: price.payTo,
      amount: price.amountBaseUnits,
      decimals: price.decimals,
      reference: price.reference,
      blockhash,
    });
    return { ...signed, blockhash };
  } catch (error) {
    if (error instanceof PaymentProblem) throw error;
    if (isWalletRefusal(error))
      throw new PaymentProblem({ kind: "declined", walletMessage: error.message || undefined });
    throw new PaymentProblem({ kind: "wallet_error", message: error instanceof Error ? error.message : String(error) });
  }
}

const PAYMENT_NOT_FOUND_RETRIES = 4;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Step (e): the same request with `X-PAYMENT: <signature>`. A transaction the
 * service's RPC does not see yet (`payment_not_found`) is asked about again
 * with backoff; any other failure keeps the signature for a retry.
 */
export async function redeemPayment(
  tier: TierInfo,
  source: DocumentSource,
  options: ChunkOptions,
  signature: string,
): Promise<Served> {
  for (let attempt = 0; ; attempt++) {
    const outcome = await post(tier, source, options, signature);
    if (outcome.kind === "ok") return served(outcome.body);
    if (
      outcome.kind === "payment_required" &&
      outcome.body.code === "payment_not_found" &&
      attempt < PAYMENT_NOT_FOUND_RETRIES
    ) {
      await sleep(1000 * 2 ** attempt);
      continue;
    }
    const body =
      outcome.kind === "payment_required"
        ? {
            success: false as const,
            error: outcome.body.error,
            code: outcome.body.code,
            message: outcome.body.message ?? "The service did not accept the payment.",
          }
        : outcome.body;
    throw new PaymentProblem({
      kind: "paid_request_failed",
      signature,
      status: outcome.status,
      body,
      retryAfter: outcome.kind === "error" ? outcome.retryAfter : undefined,
    });
  }
}
