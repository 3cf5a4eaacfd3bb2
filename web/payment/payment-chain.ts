import {
  type Address,
  type Base64EncodedWireTransaction,
  type Blockhash,
  type Signature,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SOLANA_ERROR__INSTRUCTION_ERROR__INSUFFICIENT_FUNDS,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_NOT_FOUND,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_FEE,
  SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_RENT,
  address,
  createSolanaRpc,
  isSolanaError,
} from "@solana/kit";
import { associatedTokenAccount } from "@/lib/payments/usdc-transfer";
import { PaymentProblem } from "@/web/payment/payment-problem";

/**
 * The browser's side of the chain: the few RPC calls a payment needs, on the
 * endpoint `GET /api` announces as `payment.rpc_url`. Failures come back as
 * `PaymentProblem`s with the kind the page explains.
 */

/** One signature's fee (Solana charges 5,000 lamports per signature); the transfer has one. */
export const TRANSFER_FEE_LAMPORTS = 5_000n;
/** The SPL Token program's `InsufficientFunds` custom error. */
const TOKEN_INSUFFICIENT_FUNDS = 1;
const CONFIRM_TIMEOUT_MS = 60_000;
const POLL_INTERVAL_MS = 1_000;

export interface Balances {
  lamports: bigint;
  usdcBaseUnits: bigint;
}

export type LatestBlockhash = { blockhash: Blockhash; lastValidBlockHeight: bigint };

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

export class PaymentChain {
  readonly #rpc;

  constructor(readonly rpcUrl: string) {
    this.#rpc = createSolanaRpc(rpcUrl);
  }

  /** Runs an RPC call; a transport failure (no answer) becomes `rpc_unreachable`. */
  async #call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isSolanaError(error) || error instanceof PaymentProblem) throw error;
      throw new PaymentProblem({
        kind: "rpc_unreachable",
        rpcUrl: this.rpcUrl,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }

  latestBlockhash(): Promise<LatestBlockhash> {
    return this.#call(async () => (await this.#rpc.getLatestBlockhash({ commitment: "confirmed" }).send()).value);
  }

  async balances(owner: string, mint: string): Promise<Balances> {
    const tokenAccount = await associatedTokenAccount(owner, mint);
    const [lamports, usdcBaseUnits] = await Promise.all([
      this.#call(async () => (await this.#rpc.getBalance(address(owner), { commitment: "confirmed" }).send()).value),
      this.#tokenBalance(tokenAccount),
    ]);
    return { lamports: BigInt(lamports), usdcBaseUnits };
  }

  /** A wallet that never held USDC has no token account: its balance is zero, not an error. */
  async #tokenBalance(tokenAccount: Address): Promise<bigint> {
    return this.#call(async () => {
      try {
        return BigInt(
          (await this.#rpc.getTokenAccountBalance(tokenAccount, { commitment: "confirmed" }).send()).value.amount,
        );
      } catch (error) {
        if (!isSolanaError(error)) throw error;
        const account = await this.#rpc
          .getAccountInfo(tokenAccount, { commitment: "confirmed", encoding: "base64" })
          .send();
        if (account.value === null) return 0n;
        throw error;
      }
    });
  }

  /** Sends with preflight, so a shortfall the balance check missed is reported before anything lands. */
  async send(
    wireTransaction: string,
    context: { signature: string; usdc: { need: bigint; decimals: number }; payer: string; mint: string },
  ): Promise<void> {
    try {
      await this.#call(() =>
        this.#rpc
          .sendTransaction(wireTransaction as Base64EncodedWireTransaction, {
            encoding: "base64",
            preflightCommitment: "confirmed",
          })
          .send(),
      );
    } catch (error) {
      throw await this.#explainSendFailure(error, context);
    }
  }

  async #explainSendFailure(
    error: unknown,
    context: { signature: string; usdc: { need: bigint; decimals: number }; payer: string; mint: string },
  ): Promise<unknown> {
    if (!isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)) return error;
    const cause = error.cause;
    const current = () => this.balances(context.payer, context.mint).catch(() => ({ lamports: 0n, usdcBaseUnits: 0n }));
    if (
      isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_FEE) ||
      isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_NOT_FOUND) ||
      isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_RENT)
    ) {
      return new PaymentProblem({
        kind: "insufficient_sol",
        haveLamports: (await current()).lamports,
        needLamports: TRANSFER_FEE_LAMPORTS,
      });
    }
    if (
      (isSolanaError(cause, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM) &&
        cause.context.code === TOKEN_INSUFFICIENT_FUNDS) ||
      isSolanaError(cause, SOLANA_ERROR__INSTRUCTION_ERROR__INSUFFICIENT_FUNDS)
    ) {
      return new PaymentProblem({
        kind: "insufficient_usdc",
        haveBaseUnits: (await current()).usdcBaseUnits,
        needBaseUnits: context.usdc.need,
        decimals: context.usdc.decimals,
      });
    }
    if (isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND)) {
      return new PaymentProblem({ kind: "not_confirmed", signature: context.signature, reason: "expired" });
    }
    return new PaymentProblem({
      kind: "transaction_failed",
      chainError: cause instanceof Error ? cause.message : error.message,
    });
  }

  /**
   * Polls until the transaction is confirmed, fails, or can no longer land
   * (its blockhash expired) — at most about a minute.
   */
  async waitForConfirmation(signature: string, lastValidBlockHeight: bigint, signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + CONFIRM_TIMEOUT_MS;
    for (;;) {
      const [
        {
          value: [status],
        },
        blockHeight,
      ] = await this.#call(() =>
        Promise.all([
          this.#rpc.getSignatureStatuses([signature as Signature]).send(),
          this.#rpc.getBlockHeight({ commitment: "confirmed" }).send(),
        ]),
      );
      if (status?.err)
        throw new PaymentProblem({
          kind: "transaction_failed",
          signature,
          chainError: JSON.stringify(status.err, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v)),
        });
      if (status && (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized")) return;
      if (!status && blockHeight > lastValidBlockHeight)
        throw new PaymentProblem({ kind: "not_confirmed", signature, reason: "expired" });
      if (Date.now() >= deadline) throw new PaymentProblem({ kind: "not_confirmed", signature, reason: "timeout" });
      await sleep(POLL_INTERVAL_MS, signal);
    }
  }
}
