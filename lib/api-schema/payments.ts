/** Wire shapes of paying: the 402 and its requirements, x402 discovery, and what a result says of its payment. */

import { z } from "zod";
import { TIER_IDS } from "@/lib/tiers";

const count = z.number().int().nonnegative();

const PaymentOptionSchema = z
  .object({
    scheme: z.literal("exact"),
    network: z.string().meta({ description: "CAIP-2 id, as x402 v2 names it." }),
    network_v1: z.string().meta({ description: "The name x402 v1 clients use (`solana`, `solana-devnet`)." }),
    amount: z.string().regex(/^\d+$/).meta({ description: "USDC base units (6 decimals)." }),
    price_usd: z.string(),
    asset: z.string().meta({ description: "The USDC mint." }),
    payTo: z.string(),
    maxTimeoutSeconds: z.number().int().positive(),
    extra: z.object({ name: z.literal("USDC"), decimals: z.literal(6), feePayer: z.string().optional() }),
  })
  .meta({ id: "PaymentOption" });

/** `GET /.well-known/x402`: the paid resources, for agent catalogues and crawlers. */
export const X402DiscoverySchema = z
  .object({
    x402Version: z.literal(2),
    service: z.object({ name: z.string(), description: z.string(), openapi: z.url(), llms_txt: z.url(), mcp: z.url() }),
    resources: z.array(
      z.object({
        resource: z.string().meta({ description: "The URL, or for the MCP tool the MCP endpoint." }),
        type: z.enum(["http", "mcp"]),
        method: z.literal("POST"),
        tier: z.enum(TIER_IDS),
        description: z.string(),
        mimeType: z.literal("application/json"),
        input: z.object({
          body: z.enum(["multipart/form-data", "application/json", "mcp-tool"]),
          tool: z.string().optional(),
          schema: z.record(z.string(), z.unknown()),
        }),
        accepts: z.array(PaymentOptionSchema),
      }),
    ),
  })
  .meta({ id: "X402Discovery" });
export type X402Discovery = z.infer<typeof X402DiscoverySchema>;

export const PaymentSummarySchema = z
  .object({
    amount: count.meta({ description: "USDC base units received (6 decimals); 0 on the free tier." }),
    asset: z.literal("USDC"),
    network: z.string(),
    transaction: z
      .string()
      .nullable()
      .meta({ description: "The payment's transaction signature; null on the free tier." }),
  })
  .meta({ id: "PaymentSummary" });

export const PaymentRequirementSchema = z
  .object({
    x402Version: z.literal(1),
    scheme: z.literal("exact"),
    network: z.string().meta({
      description:
        "In `paymentRequirements` the service's network (`solana-localnet`, `solana-devnet`, `solana`); in `accepts[]` as x402 clients know it (the local chain shows as `solana-devnet`).",
    }),
    maxAmountRequired: z
      .string()
      .regex(/^\d+$/)
      .meta({ description: "The price in USDC base units (6 decimals), as a decimal string.", example: "2000" }),
    asset: z.string().meta({ description: "The USDC mint address." }),
    payTo: z
      .string()
      .meta({ description: "The address to pay (its USDC associated token account receives the transfer)." }),
    description: z.string(),
    resource: z.url().meta({ description: "The URL this requirement pays for." }),
    mimeType: z.string(),
    maxTimeoutSeconds: z.number().int().positive(),
    extra: z.object({
      name: z.literal("USDC"),
      decimals: z.literal(6),
      tier: z.enum(TIER_IDS),
      feePayer: z.string().optional().meta({
        description:
          "x402: the service's fee payer, which co-signs `exact` payloads. Absent when this server takes only transaction signatures.",
      }),
      reference: z.string().optional().meta({
        description:
          "One-time reference bound to this tier and document (or URL): put it in a Memo instruction of the transfer so the payment can pay for this request only.",
      }),
    }),
  })
  .meta({ id: "PaymentRequirement" });

export const PaymentRequiredSchema = z
  .object({
    error: z.literal("Payment Required"),
    code: z
      .string()
      .meta({ description: "`payment_required` when no payment came; otherwise why the payment was refused." }),
    message: z.string(),
    paymentRequirements: PaymentRequirementSchema,
    x402Version: z.literal(1),
    accepts: z.array(PaymentRequirementSchema).min(1).meta({ description: "The same requirement for x402 clients." }),
  })
  .meta({
    id: "PaymentRequired",
    description:
      "The 402 body: the spec's `paymentRequirements`, plus `code`, `x402Version` and `accepts[]` for x402 clients.",
  });

export type PaymentRequired = z.infer<typeof PaymentRequiredSchema>;
