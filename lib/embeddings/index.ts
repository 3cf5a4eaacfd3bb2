import type { Config } from "@/lib/config";
import type { Embedder } from "./types";

/** The semantic tier's embedder, chosen once from the config. */
export function createEmbedder(config: Config["embeddings"]): Embedder {
  // TEMPORARY: replaced by the semantic-tier work (local hashed embedder and OpenAI-compatible client).
  return { id: `unbuilt:${config.kind}`, embed: async () => { throw new Error("embedder not built yet"); } };
}
