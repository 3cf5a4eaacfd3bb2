import type { TierRecord } from "./tier";

export const structure: TierRecord<"structure"> = {
  id: "structure",
  endpoints: ["/chunk/standard", "/chunk/structure"],
  priceBaseUnits: 2000,
  method: "Structure-aware: keeps code blocks, tables and lists whole and follows headings.",
  goodFor: "Most RAG pipelines: documentation, reports, Markdown, DOCX and PDF.",
  mode: "sync",
  resultPrefix: "standard",
  runningMethod: "structure",
  splitter: "structure",
  enrich: false,
  situates: false,
  embedder: false,
};
