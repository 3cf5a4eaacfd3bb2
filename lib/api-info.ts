import type { Config } from "@/lib/config";
import { methodFor } from "@/lib/chunking";
import { OUTPUT_FORMATS } from "@/lib/formats";
import { INLINE_CHUNK_LIMIT } from "@/lib/pipeline";
import { lifetimeText } from "@/lib/results";
import { TIERS, TIER_IDS, isPaid, priceUsd } from "@/lib/tiers";
import packageJson from "@/package.json";

/** The body of `GET /api`: everything a client needs to choose a tier and call it, read from the tier table and config. */
export function apiInfo(config: Config, apiBase: string) {
  return {
    name: "Chunkwise",
    version: packageJson.version,
    description: packageJson.description,
    network: config.network,
    asset: { symbol: "USDC", mint: config.usdcMint, decimals: 6 },
    payTo: config.payTo,
    tiers: TIER_IDS.map((id) => {
      const tier = TIERS[id];
      const paid = isPaid(tier);
      return {
        id,
        price_usd: priceUsd(tier),
        price_base_units: tier.priceBaseUnits,
        endpoints: tier.endpoints.map((path) => `${apiBase}${path}`),
        method: tier.method,
        good_for: tier.goodFor,
        mode: tier.mode,
        // Paid tiers answer 402 but cannot be paid yet: payment verification is the next piece of work.
        available: !paid,
        running_method: methodFor(id),
        ...(paid ? { note: "Payment verification is not enabled on this server yet: requests answer 402. Until this tier's own method lands it runs the recursive splitter." } : {}),
      };
    }),
    url_endpoint: { path: `${apiBase}/chunk`, method: "POST", body: { url: "string (http or https)", tier: `one of ${TIER_IDS.join(", ")} (default structure)`, output_format: OUTPUT_FORMATS.join(" | "), max_tokens: "integer", overlap_tokens: "integer" } },
    defaults: { max_tokens: config.chunking.defaultMaxTokens, overlap_tokens: config.chunking.defaultOverlapTokens, output_format: "raw", tokenizer: "o200k_base" },
    limits: {
      max_upload_bytes: config.limits.maxUploadBytes,
      max_pages_per_request: config.limits.maxPagesPerRequest,
      max_characters_per_request: config.limits.maxCharsPerRequest,
      max_tokens_range: [config.chunking.minMaxTokens, config.chunking.maxMaxTokens],
      overlap_tokens_max: "half of max_tokens",
      free_pages_per_day: config.freePagesPerDay,
      inline_chunk_limit: INLINE_CHUNK_LIMIT,
      result_lifetime: lifetimeText(config.resultTtlSeconds),
      url_fetch: { schemes: ["http", "https"], max_redirects: config.urlFetch.maxRedirects, timeout_ms: config.urlFetch.timeoutMs, max_bytes: config.urlFetch.maxBytes },
    },
    input_types: {
      upload: ["text/plain (.txt)", "application/pdf (.pdf)", "text/markdown (.md)", "text/html (.html)", "DOCX (.docx)"],
      url: ["PDF", "TXT", "HTML", "DOCX", "Markdown"],
      detection: "from the bytes, not the file name",
    },
    output_formats: OUTPUT_FORMATS,
    links: { health: `${apiBase}/health`, results: `${apiBase}/results/{result_id}`, source: "README.md" },
  };
}
