import fs from "node:fs";
import type { Embedder } from "@/lib/embeddings/types";

/**
 * An embedder that embeds each distinct text once: the evaluation asks for
 * the same sentences at every budget and for every method that shares the
 * model, and the built-in model reads ~3,000 tokens a second. The vectors
 * are the inner embedder's, so no result changes. `load`/`save` keep them in
 * a file between runs (the tuning script).
 */
export class CachedEmbedder implements Embedder {
  readonly id: string;
  readonly charsPerDocument?: number;
  private readonly cache = new Map<string, Float32Array>();

  constructor(private readonly inner: Embedder) {
    this.id = inner.id;
    this.charsPerDocument = inner.charsPerDocument;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const missing = [...new Set(texts.filter((t) => !this.cache.has(t)))];
    if (missing.length > 0) (await this.inner.embed(missing)).forEach((v, i) => this.cache.set(missing[i]!, v));
    return texts.map((t) => this.cache.get(t)!);
  }

  load(file: string): void {
    if (!fs.existsSync(file)) return;
    const entries = JSON.parse(fs.readFileSync(file, "utf8")) as [string, number[]][];
    for (const [text, vector] of entries) this.cache.set(text, Float32Array.from(vector));
  }

  save(file: string): void {
    fs.writeFileSync(file, JSON.stringify([...this.cache].map(([t, v]) => [t, Array.from(v)])));
  }
}
