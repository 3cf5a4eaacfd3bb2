import type { TierRecord } from "./tier";

export const aiPro: TierRecord<"ai-pro"> = {
  id: "ai-pro",
  endpoints: ["/chunk/ai-pro"],
  priceBaseUnits: 25000,
  method: "A larger LLM finds boundaries and adds per-chunk summaries and entities; runs as an async job.",
  goodFor: "Knowledge bases that filter or rank by entities and summaries.",
  mode: "async",
  resultPrefix: "ai-pro",
  runningMethod: "ai-boundaries-enriched",
  splitter: "alongSections",
  model: { client: "aiPro", config: "proModel", setting: "AI_PRO_MODEL", concurrency: "proConcurrency" },
  enrich: true,
  situates: true,
  embedder: false,
};
