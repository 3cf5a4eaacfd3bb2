/** Wire shapes of the service's own endpoints: `GET /api` and its tiers, health, the free allowance, the faucet's answer, the OpenAPI document. */

import { z } from "zod";
import { TOKENIZER_NAMES } from "@/lib/tokens/names";
import { OUTPUT_FORMATS } from "./requests";
import { TIER_IDS } from "@/lib/tiers";

const count = z.number().int().nonnegative();

const TierInfoSchema = z
  .looseObject({
    id: z.enum(TIER_IDS),
    price_usd: z.string(),
    price_base_units: count,
    endpoints: z.array(z.url()).min(1),
    batch_endpoint: z.url().meta({
      description: "`POST` several documents here to chunk them in one job with one payment (docs/batches.md).",
    }),
    method: z.string(),
    good_for: z.string(),
    mode: z.enum(["sync", "async"]),
    available: z.boolean(),
    reason: z.string().optional().meta({ description: "Why an unavailable tier is unavailable here." }),
    model: z.string().optional(),
    running_method: z.string(),
    embedder: z.string().optional(),
  })
  .meta({ id: "TierInfo" });

export const ApiInfoSchema = z
  .looseObject({
    name: z.string(),
    version: z.string(),
    network: z.string(),
    asset: z.object({ symbol: z.string(), mint: z.string(), decimals: z.number().int() }),
    payTo: z.string(),
    tiers: z.array(TierInfoSchema),
    payment: z.looseObject({
      how: z.string(),
      x402: z.looseObject({ network: z.string(), fee_payer: z.string() }).nullable(),
      max_payment_age_seconds: count,
      rpc_url: z.url().meta({ description: "The Solana RPC a browser wallet flow should use." }),
      reference_required: z.boolean(),
    }),
    localnet: z
      .looseObject({ rpc_url: z.url(), ws_url: z.url(), faucet_url: z.url() })
      .optional()
      .meta({ description: "Local mode only: the test chain and its faucet." }),
    defaults: z.looseObject({
      max_tokens: z.number().int(),
      overlap_tokens: z.number().int(),
      output_format: z.enum(OUTPUT_FORMATS),
      tokenizer: z.enum(TOKENIZER_NAMES),
      ocr_languages: z.string().meta({ description: 'The server\'s OCR languages (OCR_LANGUAGES), joined by "+".' }),
    }),
    tokenizers: z.array(z.enum(TOKENIZER_NAMES)).meta({ description: "What a request's `tokenizer` may name." }),
    ocr_languages_installed: z
      .array(z.string())
      .meta({ description: "Tesseract languages installed here: what a request's `ocr_languages` may name." }),
    limits: z.looseObject({
      max_upload_bytes: count,
      batch_max_documents: count.meta({ description: "Documents one batch may carry (BATCH_MAX_DOCUMENTS)." }),
      max_tokens_range: z.tuple([z.number().int(), z.number().int()]),
      free_pages_per_day: count,
      inline_chunk_limit: count,
    }),
    output_formats: z.array(z.enum(OUTPUT_FORMATS)),
  })
  .meta({
    id: "ApiInfo",
    description: "Everything a client needs to choose a tier and call it. Fields beyond these may be added.",
  });

const check = z.object({ ok: z.boolean(), error: z.string().optional() });

export const HealthSchema = z
  .object({
    status: z.enum(["healthy", "degraded"]),
    network: z.string(),
    checks: z
      .object({ store: check.extend({ kind: z.string() }), chain: check.extend({ rpc: z.string() }) })
      .optional()
      .meta({ description: "When degraded: each dependency's check." }),
    payments: z
      .object({
        days: count.meta({ description: "The UTC days counted, today included." }),
        with_reference: count.meta({ description: "Paid requests whose transfer carried the 402's reference." }),
        memo_less: count.meta({
          description:
            "Paid requests whose transfer carried no reference: what PAYMENT_REQUIRE_REFERENCE=true would have refused.",
        }),
      })
      .optional()
      .meta({
        description: "Paid requests with and without the 402's reference in a Memo (absent while the store is down).",
      }),
  })
  .meta({ id: "Health" });

export const FreeQuotaSchema = z
  .object({
    limit: count.meta({ description: "Free pages per UTC day." }),
    remaining: count,
    reset: count.meta({ description: "Epoch seconds of the next UTC midnight, when the allowance renews." }),
  })
  .meta({ id: "FreeQuota" });

export const FaucetAnswerSchema = z
  .object({
    success: z.literal(true),
    address: z.string(),
    sol: z.number().meta({ description: "SOL sent." }),
    usdc: z.number().meta({ description: "Test USDC sent." }),
    token_account: z.string().meta({ description: "The address's USDC associated token account." }),
    signatures: z.array(z.string()),
    network: z.string(),
  })
  .meta({ id: "FaucetAnswer" });

export const OpenApiDocumentSchema = z
  .looseObject({
    openapi: z.string().regex(/^3\.1\.\d+$/),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "OpenApiDocument", description: "An OpenAPI 3.1 document." });

export type TierInfo = z.infer<typeof TierInfoSchema>;
export type ApiInfo = z.infer<typeof ApiInfoSchema>;
export type FreeQuota = z.infer<typeof FreeQuotaSchema>;
export type HealthReport = z.infer<typeof HealthSchema>;
export type FaucetAnswer = z.infer<typeof FaucetAnswerSchema>;
