import { z } from "zod";
import type { ErrorCode } from "@/lib/ground/error-codes";
import { ApiError } from "@/lib/ground/errors";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";

/**
 * A remote x402 facilitator (`X402_FACILITATOR_URL`) instead of settling
 * ourselves: POST /verify and /settle with `{x402Version: 2, paymentPayload,
 * paymentRequirements}`, as x402's `HTTPFacilitatorClient` does. Payments
 * that came as x402 v1 are handed over in v2 form (the same transaction
 * accepting the same offer), so the facilitator speaks one version. Its
 * reason codes become this service's codes, so a client sees the same
 * refusals either way.
 */

const VerifyResponseSchema = z.object({
  isValid: z.boolean(),
  invalidReason: z.string().nullish(),
  invalidMessage: z.string().nullish(),
  payer: z.string().nullish(),
});

const SettleResponseSchema = z.object({
  success: z.boolean(),
  errorReason: z.string().nullish(),
  errorMessage: z.string().nullish(),
  transaction: z.string(),
  network: z.string(),
  payer: z.string().nullish(),
});

/** The facilitator's reason codes (x402 1.x and @x402/svm), most specific first. */
const REASON_CODES: [RegExp, ErrorCode][] = [
  [/network/, "payment_wrong_network"],
  [/amount_insufficient|insufficient_funds/, "payment_insufficient"],
  [/amount_mismatch/, "payment_amount_mismatch"],
  [/fee_payer/, "payment_fee_payer_misuse"],
  [/mint_mismatch|incorrect_asset/, "payment_wrong_asset"],
  [/recipient_mismatch|incorrect_ata|incorrect_payee/, "payment_wrong_recipient"],
  [/instruction/, "payment_invalid_instructions"],
  [/simulation_failed|ata_not_found/, "payment_simulation_failed"],
  [/block_height_exceeded|expired/, "payment_expired"],
  [/duplicate_settlement/, "payment_already_used"],
  [/confirmation_timed_out/, "payment_unconfirmed"],
  [/transaction_failed/, "payment_failed"],
];

function refusal(reason: string | null | undefined, message: string | null | undefined, fallback: ErrorCode): ApiError {
  const text = reason ?? "";
  const [, code] = REASON_CODES.find(([pattern]) => pattern.test(text)) ?? [/./, fallback];
  return new ApiError(
    code,
    `The facilitator refused the payment (${text || "no reason given"}${message ? `: ${message}` : ""}).`,
  );
}

function unavailable(cause: unknown): ApiError {
  return new ApiError(
    "facilitator_unavailable",
    "The payment facilitator cannot be reached; nothing was charged. Try again shortly.",
    {
      headers: { "Retry-After": "5" },
      cause,
    },
  );
}

export interface FacilitatorSettlement {
  signature: string;
  payer: string;
  network: string;
}

export class X402FacilitatorClient {
  constructor(
    private readonly baseUrl: string,
    private readonly options: { timeoutMs: number } = { timeoutMs: 30_000 },
  ) {}

  private body(payment: PaymentPayload, requirements: PaymentRequirements) {
    if (payment.accepted.network !== requirements.network)
      throw new ApiError(
        "payment_wrong_network",
        `The payment is for ${payment.accepted.network}; this service takes ${requirements.network}.`,
      );
    return { x402Version: 2, paymentPayload: payment, paymentRequirements: requirements };
  }

  private async post(path: string, body: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl.replace(/\/+$/, "")}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      // The reference facilitator answers a refusal with a non-200 status and the usual body.
      return await response.json();
    } catch (cause) {
      throw unavailable(cause);
    }
  }

  /** Resolves with the payer when the facilitator accepts the payment; a refusal is a 402 with this service's code. */
  async verify(payment: PaymentPayload, requirements: PaymentRequirements): Promise<{ payer: string }> {
    const parsed = VerifyResponseSchema.safeParse(await this.post("/verify", this.body(payment, requirements)));
    if (!parsed.success) throw unavailable(parsed.error);
    const answer = parsed.data;
    if (!answer.isValid) throw refusal(answer.invalidReason, answer.invalidMessage, "payment_invalid");
    if (!answer.payer) throw unavailable(new Error("verify answer without payer"));
    return { payer: answer.payer };
  }

  /** Has the facilitator co-sign, send and confirm the payment. */
  async settle(payment: PaymentPayload, requirements: PaymentRequirements): Promise<FacilitatorSettlement> {
    const parsed = SettleResponseSchema.safeParse(await this.post("/settle", this.body(payment, requirements)));
    if (!parsed.success) throw unavailable(parsed.error);
    const answer = parsed.data;
    if (!answer.success) throw refusal(answer.errorReason, answer.errorMessage, "payment_failed");
    if (!answer.transaction) throw unavailable(new Error("settle answer without transaction"));
    return { signature: answer.transaction, payer: answer.payer ?? "", network: answer.network };
  }
}
