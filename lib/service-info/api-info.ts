import { tierModel } from "@/lib/ai/model-client";
import type { ApiInfo } from "@/lib/api-schema";
import type { Config } from "@/lib/ground/config";
import { embedderId } from "@/lib/embeddings";
import { OUTPUT_FORMATS } from "@/lib/formats";
import { installedLanguages } from "@/lib/ground/ocr-language-data";
import { DEFAULT_TOKENIZER, TOKENIZER_NAMES } from "@/lib/tokens/names";
import { x402Network } from "@/lib/payments/requirements";
import { INLINE_CHUNK_LIMIT } from "@/lib/ground/limits";
import { lifetimeText } from "@/lib/ground/wording";
import { TIERS, TIER_IDS, type Tier, priceUsd } from "@/lib/tiers";
import packageJson from "@/package.json";

/** Whether this server can run the tier: the AI tiers need their model configured. */
function availability(config: Pick<Config, "ai">, tier: Tier) {
  const configured = tierModel(config.ai, tier);
  if (!configured) return { available: true };
  const { model, setting } = configured;
  if (!model)
    return {
      available: false,
      reason: `No model is configured for this tier on this server (${setting}); its endpoint answers 503 ai_not_configured before asking for payment.`,
    };
  return { available: true, model };
}

/** The body of `GET /api`: everything a client needs to choose a tier and call it, read from the tier table and config. */
export function apiInfo(config: Config, apiBase: string, payment: { feePayer?: string } = {}): ApiInfo {
  const local = config.network === "solana-localnet";
  return {
    name: "Chunkwise",
    version: packageJson.version,
    description: packageJson.description,
    network: config.network,
    asset: { symbol: "USDC", mint: config.usdcMint, decimals: 6 },
    payTo: config.payTo,
    tiers: TIER_IDS.map((id) => {
      const tier = TIERS[id];
      return {
        id,
        price_usd: priceUsd(tier),
        price_base_units: tier.priceBaseUnits,
        endpoints: tier.endpoints.map((path) => `${apiBase}${path}`),
        batch_endpoint: `${apiBase}/batch/${id}`,
        method: tier.method,
        good_for: tier.goodFor,
        mode: tier.mode,
        ...availability(config, tier),
        running_method: tier.runningMethod,
        ...(tier.embedder ? { embedder: embedderId(config.embeddings) } : {}),
      };
    }),
    payment: {
      how: "Send a paid tier request without payment to get a 402 with paymentRequirements. Either transfer maxAmountRequired USDC base units to payTo (put extra.reference in a Memo instruction to bind the payment to that request) and repeat the request with X-PAYMENT: <transaction signature>; or pay with an x402 client (scheme exact), which sends X-PAYMENT: <base64 payload> and gets X-PAYMENT-RESPONSE back.",
      x402: payment.feePayer
        ? { x402Version: 1, scheme: "exact", network: x402Network(config.network), fee_payer: payment.feePayer }
        : null,
      max_payment_age_seconds: config.payments.maxAgeSeconds,
      /** The Solana RPC a browser wallet flow should use (blockhash, balances, sending); a public endpoint, not the server's own. */
      rpc_url: config.payments.publicRpcUrl,
      reference_required: config.payments.requireReference,
      one_payment_pays_for:
        "one request: one document (or URL) with one tier and one set of options; the same payment with the same request returns the same result again",
    },
    ...(local
      ? {
          localnet: {
            rpc_url: config.payments.rpcUrl,
            ws_url: config.payments.wsUrl,
            faucet_url: `${apiBase}/dev/faucet`,
            note: 'A local test chain: test USDC at devnet\'s mint address, no real money. POST {"address": "<base58>"} to faucet_url for SOL and test USDC.',
          },
        }
      : {}),
    url_endpoint: {
      path: `${apiBase}/chunk`,
      method: "POST",
      body: {
        url: "string (http or https)",
        tier: `one of ${TIER_IDS.join(", ")} (default structure)`,
        output_format: OUTPUT_FORMATS.join(" | "),
        max_tokens: "integer",
        overlap_tokens: "integer",
        tokenizer: TOKENIZER_NAMES.join(" | "),
        ocr_languages: 'installed Tesseract codes joined by "+"',
      },
    },
    defaults: {
      max_tokens: config.chunking.defaultMaxTokens,
      overlap_tokens: config.chunking.defaultOverlapTokens,
      output_format: "raw",
      tokenizer: DEFAULT_TOKENIZER,
      ocr_languages: config.ocr.languages.join("+"),
    },
    tokenizers: [...TOKENIZER_NAMES],
    ocr_languages_installed: [...installedLanguages()],
    limits: {
      max_upload_bytes: config.limits.maxUploadBytes,
      batch_max_documents: config.limits.maxBatchDocuments,
      max_pages_per_request: config.limits.maxPagesPerRequest,
      max_characters_per_request: config.limits.maxCharsPerRequest,
      max_tokens_range: [config.chunking.minMaxTokens, config.chunking.maxMaxTokens],
      overlap_tokens_max: "half of max_tokens",
      free_pages_per_day: config.freePagesPerDay,
      inline_chunk_limit: INLINE_CHUNK_LIMIT,
      result_lifetime: lifetimeText(config.resultTtlSeconds),
      url_fetch: {
        schemes: ["http", "https"],
        max_redirects: config.urlFetch.maxRedirects,
        timeout_ms: config.urlFetch.timeoutMs,
        max_bytes: config.urlFetch.maxBytes,
      },
    },
    input_types: {
      upload: [
        "text/plain (.txt)",
        "application/pdf (.pdf)",
        "text/markdown (.md)",
        "text/html (.html)",
        "DOCX (.docx)",
        "PPTX (.pptx)",
        "ODP (.odp)",
        "XLSX (.xlsx)",
        "ODS (.ods)",
        "text/csv (.csv), text/tab-separated-values (.tsv): by name or type",
        "application/vnd.oasis.opendocument.text (.odt)",
        "application/rtf (.rtf)",
        "application/epub+zip (.epub)",
        "message/rfc822 (.eml)",
        "application/vnd.ms-outlook (.msg)",
      ],
      url: ["PDF", "TXT", "HTML", "DOCX", "PPTX", "XLSX", "ODS", "CSV", "ODT", "RTF", "EPUB", "EML", "MSG", "Markdown"],
      detection: "from the bytes, not the file name",
    },
    output_formats: [...OUTPUT_FORMATS],
    jobs: {
      tiers: TIER_IDS.filter((id) => TIERS[id].mode === "async"),
      status: `${apiBase}/job/{job_id}/status`,
      result: `${apiBase}/job/{job_id}/result`,
      states: ["processing", "completed", "failed"],
      poll_every_seconds: [1, 2],
      lifetime: lifetimeText(config.resultTtlSeconds),
      note: "A failed job carries error {code, message} and releases its payment: submit again with the same X-PAYMENT.",
    },
    links: { health: `${apiBase}/health`, results: `${apiBase}/results/{result_id}`, source: "README.md" },
  };
}
