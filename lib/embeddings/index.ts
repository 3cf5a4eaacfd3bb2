import type { LimitFunction } from "p-limit";
import type { Config } from "@/lib/ground/config";
import { OpenAIEmbedder, openAIEmbedderId } from "./openai";
import { SENTENCE_ENCODER_ID, SentenceEncoderEmbedder } from "./sentence-encoder";
import type { Embedder } from "./types";

/** The semantic tier's embedder, chosen once from the config: an OpenAI-compatible endpoint when one is set, else the built-in model. */
/** `modelCalls`: the process-wide cap on model calls (AI_MAX_INFLIGHT) that remote embedding requests share with chat calls. */
export function createEmbedder(config: Config["embeddings"], modelCalls?: LimitFunction): Embedder {
  if (config.kind === "openai") return new OpenAIEmbedder({ ...config, modelCalls });
  return new SentenceEncoderEmbedder();
}

/** The id of the embedder `createEmbedder(config)` makes, without making it. */
export const embedderId = (config: Config["embeddings"]) =>
  config.kind === "openai" ? openAIEmbedderId(config.model) : SENTENCE_ENCODER_ID;
