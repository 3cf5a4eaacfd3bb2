import { z } from "zod";
import { type CodeOf, ERROR_CODES, type ErrorCode } from "@/lib/ground/error-codes";
import { ApiError } from "@/lib/ground/errors";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { accept, type Refusal, refuse, type Verdict } from "@/lib/payments/refusal";

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

/**
 * The facilitator's refusal in this service's terms: a refusal (402) as a value; a settlement it could not confirm in
 * time (503 `payment_unconfirmed`, to be repeated) thrown, as settling ourselves throws it.
 */
function refusal(
  reason: string | null | undefined,
  message: string | null | undefined,
  fallback: CodeOf<402>,
): { ok: false; refusal: Refusal } {
  const text = reason ?? "";
  const [, code] = REASON_CODES.find(([pattern]) => pattern.test(text)) ?? [/./, fallback];
  const said = `The facilitator refused the payment (${text || "no reason given"}${message ? `: ${message}` : ""}).`;
  if (ERROR_CODES[code].status !== 402) throw new ApiError(code, said, { headers: { "Retry-After": "2" } });
  return refuse(code as CodeOf<402>, said);
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

  private body(payment: PaymentPayload, requirements: PaymentRequirements): Verdict<unknown> {
    if (payment.accepted.network !== requirements.network)
      return refuse(
        "payment_wrong_network",
        `The payment is for ${payment.accepted.network}; this service takes ${requirements.network}.`,
      );
    return accept({ x402Version: 2, paymentPayload: payment, paymentRequirements: requirements });
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

  /** The payer when the facilitator accepts the payment; its refusal with this service's code. */
  async verify(payment: PaymentPayload, requirements: PaymentRequirements): Promise<Verdict<{ payer: string }>> {
    const body = this.body(payment, requirements);
    if (!body.ok) return body;
    const parsed = VerifyResponseSchema.safeParse(await this.post("/verify", body.value));
    if (!parsed.success) throw unavailable(parsed.error);
    const answer = parsed.data;
    if (!answer.isValid) return refusal(answer.invalidReason, answer.invalidMessage, "payment_invalid");
    if (!answer.payer) throw unavailable(new Error("verify answer without payer"));
    return accept({ payer: answer.payer });
  }

  /** Has the facilitator co-sign, send and confirm the payment. */
  async settle(payment: PaymentPayload, requirements: PaymentRequirements): Promise<Verdict<FacilitatorSettlement>> {
    const body = this.body(payment, requirements);
    if (!body.ok) return body;
    const parsed = SettleResponseSchema.safeParse(await this.post("/settle", body.value));
    if (!parsed.success) throw unavailable(parsed.error);
    const answer = parsed.data;
    if (!answer.success) return refusal(answer.errorReason, answer.errorMessage, "payment_failed");
    if (!answer.transaction) throw unavailable(new Error("settle answer without transaction"));
    return accept({ signature: answer.transaction, payer: answer.payer ?? "", network: answer.network });
  }
}
