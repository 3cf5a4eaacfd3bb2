import type { z } from "zod";
import type { PaymentRequirementSchema } from "@/lib/api-schema";
import type { Config } from "@/lib/ground/config";
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
