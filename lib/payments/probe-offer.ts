import type { Config } from "@/lib/ground/config";
import type { ApiError } from "@/lib/ground/errors";
import { paymentRequiredError } from "@/lib/payments/payment-required";
import { paymentRequirement } from "@/lib/payments/requirements";
import type { ResourceKind } from "@/lib/payments/x402/v2";
import type { Tier } from "@/lib/tiers";

/**
 * A POST with no body and no payment is how discovery crawlers (x402scan, agentcash) probe a paid route: it must
 * get the 402 and its offer (price, payTo, the bazaar input schema), not the 400 the missing document would earn,
 * or the route is listed as broken.
 */
export function isBodilessProbe(headers: Headers): boolean {
  if (headers.has("content-type") || headers.has("transfer-encoding")) return false;
  const length = headers.get("content-length");
  return length === null || length === "0";
}

/**
 * The probe's 402: the offer of each tier the route serves, without a reference, since there is no document to
 * bind one to. The message sends the client to ask with its document for the offer it should pay.
 */
export function probeOffer(
  config: Pick<Config, "network" | "usdcMint" | "payTo">,
  [tier, ...others]: [Tier, ...Tier[]],
  resource: string,
  kind: ResourceKind,
  feePayer: string | undefined,
): ApiError {
  const offer = (t: Tier) => paymentRequirement(config, t, resource, feePayer ? { feePayer } : {});
  return paymentRequiredError(
    offer(tier),
    config,
    kind,
    {
      code: "payment_required",
      message: `This route is paid (${[tier, ...others].map((t) => `${t.id}: ${t.priceBaseUnits} USDC base units`).join(", ")} per request). Send the request with its document and without payment to get the offer to pay: it carries a one-time reference binding the payment to that document, tier and options.`,
    },
    others.map(offer),
  );
}
