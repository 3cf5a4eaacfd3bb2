import type { OutputFormat, TierInfo } from "@/web/api-client";

/** Display names derived from the API's ids (the ids themselves come from `GET /api`): "ai-pro" → "AI Pro". */
export const tierName = (id: string) =>
  id
    .split(/[-_]/)
    .map((word) => (word.length <= 2 ? word.toUpperCase() : word[0]!.toUpperCase() + word.slice(1)))
    .join(" ");

export const tierPrice = (tier: Pick<TierInfo, "price_base_units" | "price_usd">) =>
  tier.price_base_units === 0 ? "Free" : `${tier.price_usd} USDC`;

const FORMAT_NAMES: Partial<Record<OutputFormat, string>> = {
  raw: "Raw chunks",
  qdrant: "Qdrant points",
  weaviate: "Weaviate objects",
  chroma: "Chroma records",
  pinecone: "Pinecone records",
};

export const formatName = (format: string) => FORMAT_NAMES[format as OutputFormat] ?? format;
