import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { paymentIdentifierDeclaration } from "@/lib/idempotency/payment-identifier";
import { z } from "zod";
import {
  BatchRequestSchema,
  ChunkDocumentArgsSchema,
  ChunkDocumentsArgsSchema,
  UploadRequestSchema,
  UrlChunkRequestSchema,
} from "@/lib/api-schema";
import type { Network } from "@/lib/ground/config";
import { MAX_PAYMENT_SIGNATURE_CHARS } from "@/lib/payments/payment-header";
import { accept, refuse, type Verdict } from "@/lib/payments/refusal";
import type { PaymentRequirement } from "@/lib/payments/requirements";
import { type X402Payment, X402TransactionSchema } from "@/lib/payments/x402/v1";
import { DEFAULT_TIER } from "@/lib/tiers";

/**
 * x402 version 2 beside version 1: the same `exact` payment on Solana, with
 * the offer in a `PAYMENT-REQUIRED` header, the payment in
 * `PAYMENT-SIGNATURE` and the receipt in `PAYMENT-RESPONSE`, networks named
 * by CAIP-2. Header encoding is `@x402/core`'s; the checks are ours, because
 * our fee payer settles payments itself and binds them to one request.
 */

/** CAIP-2 ids with the truncated genesis hash, as `@x402/svm` expects; the local chain mirrors devnet, as it does for v1 clients. */
const CAIP2: Record<Network, `${string}:${string}`> = {
  solana: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
  "solana-devnet": "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
  "solana-localnet": "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
};

export const caip2Network = (network: Network) => CAIP2[network];

/** The v1 name of a CAIP-2 id (what verification compares); an unknown id stays as it is and is refused there. */
const v1Network = (caip2: string) =>
  caip2 === CAIP2.solana ? "solana" : caip2 === CAIP2["solana-devnet"] ? "solana-devnet" : caip2;

/**
 * How a paid resource is called: an upload endpoint, the JSON (URL) endpoint, or the MCP tool; a batch (its JSON
 * body, which its multipart form mirrors) or the MCP batch tool.
 */
export type ResourceKind = "form-data" | "json" | "mcp" | "batch" | "batch-mcp";

/** The requirement as v2 clients read it: `amount`, a CAIP-2 network, and the one-time reference as `extra.memo`, which their Memo instruction carries. */
export function offerV2(requirement: PaymentRequirement, network: Network): PaymentRequirements {
  const { reference, ...extra } = requirement.extra;
  return {
    scheme: "exact",
    network: caip2Network(network),
    amount: requirement.maxAmountRequired,
    asset: requirement.asset,
    payTo: requirement.payTo,
    maxTimeoutSeconds: requirement.maxTimeoutSeconds,
    extra: { ...extra, ...(reference ? { memo: reference } : {}) },
  };
}

const EXAMPLE_OUTPUT = {
  success: true,
  chunks: [{ id: "chunk_0", text: "# Title\n\nFirst paragraph…", tokens: 112, metadata: { chunk_index: 0 } }],
  total_chunks: 1,
};

const bazaars = new Map<ResourceKind, Record<string, unknown>>();

/** Bazaar discovery metadata for one paid endpoint or tool, made once per kind: every 402 carries it. */
function bazaar(kind: ResourceKind): Record<string, unknown> {
  let declared = bazaars.get(kind);
  if (!declared) bazaars.set(kind, (declared = declareBazaar(kind)));
  return declared;
}

/** Catalogues list the service from this: method, body, input schema and an example. */
function declareBazaar(kind: ResourceKind): Record<string, unknown> {
  if (kind === "mcp")
    return declareDiscoveryExtension({
      toolName: "chunk_document",
      description: "Split a document (URL, text or base64 file) into chunks for retrieval.",
      transport: "streamable-http",
      inputSchema: z.toJSONSchema(ChunkDocumentArgsSchema, { io: "input" }),
      example: { url: "https://example.com/paper.pdf", tier: DEFAULT_TIER, max_tokens: 512 },
      output: { example: EXAMPLE_OUTPUT },
    });
  if (kind === "batch-mcp")
    return declareDiscoveryExtension({
      toolName: "chunk_documents",
      description: "Split several documents (URLs or texts) into chunks for retrieval, in one paid job.",
      transport: "streamable-http",
      inputSchema: z.toJSONSchema(ChunkDocumentsArgsSchema, { io: "input" }),
      example: { documents: [{ url: "https://example.com/a.pdf" }, { url: "https://example.com/b.pdf" }] },
      output: { example: { success: true, async: true, job_id: "structure_…", status: "processing" } },
    });
  if (kind === "batch") {
    // `method` given as below for the single-document routes.
    const declaration = {
      method: "POST" as const,
      bodyType: "json" as const,
      input: { documents: [{ url: "https://example.com/a.pdf" }, { text: "# Notes\n\nText.", filename: "notes.md" }] },
      inputSchema: z.toJSONSchema(BatchRequestSchema, { io: "input", unrepresentable: "any" }),
      output: { example: { success: true, async: true, job_id: "structure_…", status: "processing" } },
    };
    return declareDiscoveryExtension(declaration);
  }
  const schema = kind === "json" ? UrlChunkRequestSchema : UploadRequestSchema;
  // `method` is left out of the input type for servers that fill it per route; ours is fixed, so it is given here.
  const declaration = {
    method: "POST" as const,
    bodyType: kind,
    input:
      kind === "json"
        ? { url: "https://example.com/paper.pdf", tier: DEFAULT_TIER, max_tokens: 512 }
        : { file: "<document bytes>", max_tokens: 512 },
    inputSchema: z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }),
    output: { example: EXAMPLE_OUTPUT },
  };
  return declareDiscoveryExtension(declaration);
}

export function paymentRequiredV2(
  [requirement, ...alternatives]: [PaymentRequirement, ...PaymentRequirement[]],
  network: Network,
  kind: ResourceKind,
  error: string,
): PaymentRequired {
  return {
    x402Version: 2,
    error,
    resource: { url: requirement.resource, description: requirement.description, mimeType: requirement.mimeType },
    accepts: [requirement, ...alternatives].map((offer) => offerV2(offer, network)),
    extensions: { ...bazaar(kind), ...paymentIdentifierDeclaration() },
  };
}

const AcceptedSchema = z.object({
  scheme: z.literal("exact", { error: "Only the exact scheme is accepted." }),
  network: z.templateLiteral([z.string().min(1).max(32), ":", z.string().min(1).max(64)]),
  amount: z.string().regex(/^\d{1,20}$/),
  asset: z.string().min(1).max(64),
  payTo: z.string().min(1).max(64),
  maxTimeoutSeconds: z.number().int().nonnegative(),
  extra: z.looseObject({
    feePayer: z.string().max(64).optional(),
    tier: z.string().max(32).optional(),
    memo: z.string().max(256).optional(),
  }),
});

const PaymentPayloadV2Schema = z.object({
  x402Version: z.literal(2, { error: "x402Version must be 2 in PAYMENT-SIGNATURE." }),
  accepted: AcceptedSchema,
  payload: z.object({ transaction: X402TransactionSchema }),
});

export type PaymentPayloadV2 = z.infer<typeof PaymentPayloadV2Schema>;
export type AcceptedV2 = PaymentPayloadV2["accepted"];

/** The decoded `PAYMENT-SIGNATURE` header, or its refusal (`payment_invalid`) when it is not a v2 exact payload. */
export function parsePaymentSignatureHeader(header: string): Verdict<PaymentPayloadV2> {
  if (header.length > MAX_PAYMENT_SIGNATURE_CHARS)
    return refuse(
      "payment_invalid",
      `The PAYMENT-SIGNATURE header is longer than ${MAX_PAYMENT_SIGNATURE_CHARS} characters.`,
    );
  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(header.trim());
  } catch {
    return refuse("payment_invalid", "PAYMENT-SIGNATURE must be base64 JSON: an x402 version 2 payment payload.");
  }
  const parsed = PaymentPayloadV2Schema.safeParse(decoded);
  if (parsed.success) return accept(parsed.data);
  const issue = parsed.error.issues[0];
  return refuse(
    "payment_invalid",
    `PAYMENT-SIGNATURE is not a valid x402 v2 exact payload: ${issue ? `${issue.path.join(".") || "payload"}: ${issue.message}` : "malformed"}`,
  );
}

/**
 * Whether the client accepted what this request offers: the one offer we
 * made, field by field, each refusal with its own code (a value, not an
 * error). The memo is checked by the caller against the references it issued.
 */
export function checkAccepted(accepted: AcceptedV2, offer: PaymentRequirements): Verdict<AcceptedV2> {
  if (accepted.network !== offer.network)
    return refuse(
      "payment_wrong_network",
      `The payment is for ${accepted.network}; this service takes ${offer.network}.`,
    );
  if (accepted.extra.tier !== undefined && accepted.extra.tier !== offer.extra.tier)
    return refuse(
      "payment_wrong_tier",
      `The payment accepted the offer of the ${accepted.extra.tier} tier; this request is for the ${String(offer.extra.tier)} tier.`,
    );
  if (BigInt(accepted.amount) < BigInt(offer.amount))
    return refuse(
      "payment_insufficient",
      `The payment accepted ${accepted.amount} base units; the price is ${offer.amount}.`,
    );
  if (accepted.amount !== offer.amount)
    return refuse(
      "payment_amount_mismatch",
      `The payment accepted ${accepted.amount} base units; the exact scheme pays exactly ${offer.amount}.`,
    );
  if (accepted.asset !== offer.asset)
    return refuse("payment_wrong_asset", `The payment is in ${accepted.asset}; the asset asked for is ${offer.asset}.`);
  if (accepted.payTo !== offer.payTo)
    return refuse("payment_wrong_recipient", `The payment goes to ${accepted.payTo}, not to payTo ${offer.payTo}.`);
  if (accepted.extra.feePayer !== offer.extra.feePayer)
    return refuse(
      "payment_fee_payer_misuse",
      `The payment names fee payer ${String(accepted.extra.feePayer)}; this service's is ${String(offer.extra.feePayer)}.`,
    );
  return accept(accepted);
}

/** The transaction in the form verification reads (a v1 payment, its network by v1 name). */
export const asVerifiable = (payment: PaymentPayloadV2): X402Payment => ({
  x402Version: 1,
  scheme: "exact",
  network: v1Network(payment.accepted.network),
  payload: payment.payload,
});

export function paymentResponseHeaderV2(receipt: { signature: string; network: Network; payer: string }): string {
  return encodePaymentResponseHeader({
    success: true,
    transaction: receipt.signature,
    network: caip2Network(receipt.network),
    payer: receipt.payer,
  });
}
