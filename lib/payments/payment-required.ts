import type { Config, Network } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";
import type { Refusal } from "@/lib/payments/refusal";
import { type PaymentRequirement, x402Network } from "@/lib/payments/requirements";
import { type ResourceKind, paymentRequiredV2 } from "@/lib/payments/x402/v2";
import { encodePaymentRequiredHeader } from "@x402/core/http";

/** The one 402 answer, built from a refused admission or a route's bare offer. */

/** A payment refused (or none sent): the reason and the offer the 402 makes in its place. */
export interface PaymentRefused extends Refusal {
  kind: "refused";
  /** This request's offer, with a fresh reference unless the client is over its allowance of unpaid ones. */
  requirement: PaymentRequirement;
  resourceKind: ResourceKind;
  network: Network;
}

/** The 402 of a refused admission. */
export const paymentRequired = (refused: PaymentRefused): ApiError =>
  paymentRequiredError(refused.requirement, refused, refused.resourceKind, refused);

/** What every 402 carrying a reference tells the client: a payment without it is anyone's to present first. */
const MEMO_ADVICE =
  "Put extra.reference in a Memo instruction of the transfer (x402 v2: it is extra.memo): a payment without it can be presented by anyone watching payTo before you, and a server with PAYMENT_REQUIRE_REFERENCE refuses it.";

/** The 402: the v1 body every client here reads, and the v2 `PAYMENT-REQUIRED` header `@x402/fetch` 2.x reads first. */
export function paymentRequiredError(
  requirement: PaymentRequirement,
  config: Pick<Config, "network">,
  kind: ResourceKind,
  reason: Refusal,
  /** Other offers the client may take instead (the URL endpoint's other tiers). */
  alternatives: PaymentRequirement[] = [],
): ApiError {
  const message = requirement.extra.reference ? `${reason.message} ${MEMO_ADVICE}` : reason.message;
  const v2 = paymentRequiredV2([requirement, ...alternatives], config.network, kind, message);
  return new ApiError(reason.code, message, {
    headers: { "PAYMENT-REQUIRED": encodePaymentRequiredHeader(v2) },
    body: {
      error: "Payment Required",
      code: reason.code,
      message,
      paymentRequirements: requirement,
      x402Version: 1,
      accepts: [requirement, ...alternatives].map((offer) => ({ ...offer, network: x402Network(config.network) })),
    },
  });
}
