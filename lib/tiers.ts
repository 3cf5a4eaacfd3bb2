/**
 * The single table of tiers. Endpoints, prices, methods and availability
 * are read from here by the routes, the 402 builder, `GET /api` and the CLI.
 */
export const TIER_IDS = ["free", "structure", "semantic", "ai", "ai-pro"] as const;
export type TierId = (typeof TIER_IDS)[number];

export interface Tier {
  id: TierId;
  /** Multipart endpoints under /api, the first one canonical. */
  endpoints: readonly string[];
  /** Price in USDC base units (6 decimals). */
  priceBaseUnits: number;
  method: string;
  goodFor: string;
  mode: "sync" | "async";
  /** Prefix of stored result ids. */
  resultPrefix: string;
}

export const TIERS: Record<TierId, Tier> = {
  free: {
    id: "free",
    endpoints: ["/chunk/demo", "/chunk/free"],
    priceBaseUnits: 0,
    method: "Recursive splitting by paragraphs, lines, sentences, words and characters, sized in tokens.",
    goodFor: "Trying the service; plain prose. Limited to 100 pages per UTC day per client.",
    mode: "sync",
    resultPrefix: "standard",
  },
  structure: {
    id: "structure",
    endpoints: ["/chunk/standard", "/chunk/structure"],
    priceBaseUnits: 2000,
    method: "Structure-aware: keeps code blocks, tables and lists whole and follows headings.",
    goodFor: "Most RAG pipelines: documentation, reports, Markdown, DOCX and PDF.",
    mode: "sync",
    resultPrefix: "standard",
  },
  semantic: {
    id: "semantic",
    endpoints: ["/chunk/semantic"],
    priceBaseUnits: 4000,
    method: "Embedding-based: splits where the topic changes.",
    goodFor: "Long prose that drifts between topics: transcripts, articles, books.",
    mode: "sync",
    resultPrefix: "standard",
  },
  ai: {
    id: "ai",
    endpoints: ["/chunk/ai"],
    priceBaseUnits: 10000,
    method: "A smaller LLM finds the section boundaries.",
    goodFor: "Documents whose structure is implicit: emails, legal text, scanned reports.",
    mode: "sync",
    resultPrefix: "standard",
  },
  "ai-pro": {
    id: "ai-pro",
    endpoints: ["/chunk/ai-pro"],
    priceBaseUnits: 25000,
    method: "A larger LLM finds boundaries and adds per-chunk summaries and entities; runs as an async job.",
    goodFor: "Knowledge bases that filter or rank by entities and summaries.",
    mode: "async",
    resultPrefix: "ai-pro",
  },
};

export const isPaid = (tier: Tier) => tier.priceBaseUnits > 0;

/** USDC base units to the spec's USD display ("0.002"). */
export const priceUsd = (tier: Tier) => (tier.priceBaseUnits / 1_000_000).toString();
