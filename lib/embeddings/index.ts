import type { Config } from "@/lib/config";
import { LOCAL_EMBEDDER_ID, LocalEmbedder } from "./local";
import { OpenAIEmbedder, openAIEmbedderId } from "./openai";
import type { Embedder } from "./types";

/** The semantic tier's embedder, chosen once from the config: an OpenAI-compatible endpoint when one is set, else the built-in local one. */
export function createEmbedder(config: Config["embeddings"]): Embedder {
  if (config.kind === "openai") return new OpenAIEmbedder(config);
  return new LocalEmbedder();
}

/** The id of the embedder `createEmbedder(config)` makes, without making it. */
export const embedderId = (config: Config["embeddings"]) =>
  config.kind === "openai" ? openAIEmbedderId(config.model) : LOCAL_EMBEDDER_ID;
