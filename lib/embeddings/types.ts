/**
 * Turns texts into vectors for the semantic tier. Implementations: the
 * built-in local embedder (no network, no model download) and any
 * OpenAI-compatible `/v1/embeddings` endpoint, chosen at start-up.
 */
export interface Embedder {
  /** Names the embedder in `GET /api` and in results, e.g. "local:hashed-ngrams-v1" or "openai:text-embedding-3-small". */
  readonly id: string;
  /** One vector per text, in order. */
  embed: (texts: string[]) => Promise<Float32Array[]>;
}
