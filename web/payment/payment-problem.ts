import type { ErrorBody } from "@/web/api-client";

/**
 * Why a paid run stopped, as a value the page can explain. Each kind maps to
 * one message and one next action in the UI; `charged` says whether USDC may
 * have left the wallet, because that is what a person wants to know first.
 */
export type PaymentProblemDetail =
  /** The person said no in the wallet; nothing was sent. */
  | { kind: "declined"; walletMessage?: string }
  /** Checked before signing, or reported by the chain's preflight. */
  | { kind: "insufficient_usdc"; haveBaseUnits: bigint; needBaseUnits: bigint; decimals: number }
  | { kind: "insufficient_sol"; haveLamports: bigint; needLamports: bigint }
  /** Sent but never confirmed (blockhash expired, dropped, or not in time). */
  | { kind: "not_confirmed"; signature: string; reason: "expired" | "timeout" }
  /** Landed with an error: the transfer did not happen (a transaction is all or nothing). */
  | { kind: "transaction_failed"; signature?: string; chainError: string }
  /** The Solana RPC did not answer. */
  | { kind: "rpc_unreachable"; rpcUrl: string; message: string }
  /** The wallet could not sign for a reason other than a refusal (locked, unsupported, disconnected). */
  | { kind: "wallet_error"; message: string }
  /** The service refused the request before any payment (bad file, tier unavailable, ...). */
  | { kind: "service_refused"; status: number; body: ErrorBody }
  /** Paid (the signature confirmed) but the request then failed: retry with the same signature. */
  | { kind: "paid_request_failed"; signature: string; status: number; body: ErrorBody; retryAfter?: number }
  /** The service could not be reached at all. */
  | { kind: "service_unreachable"; message: string; signature?: string };

export class PaymentProblem extends Error {
  constructor(readonly detail: PaymentProblemDetail) {
    super(detail.kind);
    this.name = "PaymentProblem";
  }
}
