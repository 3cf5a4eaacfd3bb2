import type { z } from "zod";
import type { PaymentRequirementSchema } from "@/lib/api-schema";
import type { Config } from "@/lib/config";
import { ApiError } from "@/lib/errors";
import type { Refusal } from "@/lib/payments/refusal";
import { encodePaymentRequiredHeader } from "@x402/core/http";
import { type ResourceKind, paymentRequiredV2 } from "@/lib/payments/x402/v2";
import { type Tier, priceUsd } from "@/lib/tiers";

/**
 * The 402 answer: the spec's `paymentRequirements` plus, at the top level,
 * `x402Version` and `accepts` so standard x402 clients understand it. Its
 * shape is the one `lib/api-schema/` documents.
 */
export type PaymentRequirement = z.infer<typeof PaymentRequirementSchema>;

/** x402 v1 knows no local network; the local chain mirrors devnet (same USDC mint address), so x402 clients see devnet. */
export const x402Network = (network: Config["network"]) => (network === "solana-localnet" ? "solana-devnet" : network);

export function paymentRequirement(
  config: Pick<Config, "network" | "usdcMint" | "payTo">,
  tier: Tier,
  resource: string,
  extra: { feePayer?: string; reference?: string } = {},
): PaymentRequirement {
  return {
    x402Version: 1,
    scheme: "exact",
    network: config.network,
    maxAmountRequired: String(tier.priceBaseUnits),
    asset: config.usdcMint,
    payTo: config.payTo,
    description: `Chunkwise ${tier.id} tier ($${priceUsd(tier)} USDC per request): ${tier.method}`,
    resource,
    mimeType: "application/json",
    maxTimeoutSeconds: 120,
    extra: { name: "USDC", decimals: 6, tier: tier.id, ...extra },
  };
}

/** What every 402 carrying a reference tells the client: a payment without it is anyone's to present first. */
export const MEMO_ADVICE =
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
