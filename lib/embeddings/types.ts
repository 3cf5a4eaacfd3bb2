/**
 * Turns texts into vectors for the semantic tier. Implementations: the
 * built-in sentence encoder (no network, no model download) and any
 * OpenAI-compatible `/v1/embeddings` endpoint, chosen at start-up.
 */
export interface Embedder {
  /** Names the embedder in `GET /api` and in results, e.g. "local:universal-sentence-encoder-lite" or "openai:text-embedding-3-small". */
  readonly id: string;
  /** One vector per text, in order. */
  embed: (texts: string[]) => Promise<Float32Array[]>;
  /**
   * Characters of one document it can read in a few seconds, for an embedder
   * that runs on this machine's CPU: past it, the semantic tier gives it
   * every k-th sentence. Unset: no limit (a remote service).
   */
  readonly charsPerDocument?: number;
}
