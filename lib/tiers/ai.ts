import type { TierRecord } from "./tier";

export const ai: TierRecord<"ai"> = {
  id: "ai",
  endpoints: ["/chunk/ai"],
  priceBaseUnits: 10000,
  method: "A smaller LLM finds the section boundaries.",
  goodFor: "Documents whose structure is implicit: emails, legal text, scanned reports.",
  mode: "sync",
  resultPrefix: "standard",
  runningMethod: "ai-boundaries",
  splitter: "alongSections",
  model: { client: "ai", config: "model", setting: "AI_MODEL", concurrency: "concurrency" },
  enrich: false,
  situates: true,
  embedder: false,
};
