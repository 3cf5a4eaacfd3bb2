import type { TierRecord } from "./tier";

export const semantic: TierRecord<"semantic"> = {
  id: "semantic",
  endpoints: ["/chunk/semantic"],
  priceBaseUnits: 4000,
  method: "Embedding-based: splits where the topic changes.",
  goodFor: "Long prose that drifts between topics: transcripts, articles, books.",
  mode: "sync",
  resultPrefix: "standard",
  runningMethod: "semantic",
  splitter: "semantic",
  enrich: false,
  situates: false,
  embedder: true,
};
