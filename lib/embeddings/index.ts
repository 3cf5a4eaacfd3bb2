import type { LimitFunction } from "p-limit";
import type { Config } from "@/lib/config";
import { LOCAL_EMBEDDER_ID, LocalEmbedder } from "./local";
import { OpenAIEmbedder, openAIEmbedderId } from "./openai";
import type { Embedder } from "./types";

/** The semantic tier's embedder, chosen once from the config: an OpenAI-compatible endpoint when one is set, else the built-in local one. */
/** `modelCalls`: the process-wide cap on model calls (AI_MAX_INFLIGHT) that remote embedding requests share with chat calls. */
export function createEmbedder(config: Config["embeddings"], modelCalls?: LimitFunction): Embedder {
  if (config.kind === "openai") return new OpenAIEmbedder({ ...config, modelCalls });
  return new LocalEmbedder();
}

/** The id of the embedder `createEmbedder(config)` makes, without making it. */
export const embedderId = (config: Config["embeddings"]) =>
  config.kind === "openai" ? openAIEmbedderId(config.model) : LOCAL_EMBEDDER_ID;
