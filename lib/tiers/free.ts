import type { TierRecord } from "./tier";

export const free: TierRecord<"free"> = {
  id: "free",
  endpoints: ["/chunk/demo", "/chunk/free"],
  priceBaseUnits: 0,
  method: "Recursive splitting by paragraphs, lines, sentences, words and characters, sized in tokens.",
  goodFor: "Trying the service; plain prose. Limited to 100 pages per UTC day per client.",
  mode: "sync",
  resultPrefix: "standard",
  runningMethod: "recursive",
  splitter: "recursive",
  enrich: false,
  situates: false,
  embedder: false,
};
