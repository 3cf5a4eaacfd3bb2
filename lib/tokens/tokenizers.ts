/**
 * The tokenizers sizes can be measured in, each an exact byte-pair encoder:
 * a split pattern (pre-tokens never merge with each other) and a rank table.
 * All three share the merge loop (lib/tokens/bpe.ts), so a choice costs only
 * its vocabulary's first build (~50-300 ms, once per process).
 *   - o200k_base: GPT-4o, GPT-4.1, GPT-5, o-series (gpt-tokenizer's ranks);
 *   - cl100k_base: GPT-4, GPT-3.5, text-embedding-3 (gpt-tokenizer's ranks);
 *   - llama3: Llama 3.x (the vocabulary inside llama3-tokenizer-js, whose
 *     ids are tiktoken ranks; the pattern is cl100k's). Special tokens
 *     (`<|begin_of_text|>`, ids from 128000) are neither added nor matched:
 *     text is counted as text, as with the other two.
 */
import o200kRanks from "gpt-tokenizer/bpeRanks/o200k_base";
import { countPreTokenRange } from "./bpe";
import { scanCl100kPreToken } from "./cl100k-pre-tokenizer";
import { type CountCache, createCountCache } from "./count-cache";
import { scanPreToken } from "./pre-tokenizer";
import { type Vocabulary, buildVocabulary } from "./vocabulary";

import { DEFAULT_TOKENIZER, type TokenizerName } from "./names";

export type { TokenizerName } from "./names";

export interface Tokenizer {
  readonly name: TokenizerName;
  /** End of the pre-token starting at `pos` in `text.slice(0, limit)`. */
  scan: (text: string, pos: number, limit: number) => number;
  /** Exact token count of the pre-token text[start, end) (cached). */
  countPiece: (text: string, start: number, end: number) => number;
  readonly cache: CountCache;
}

type Ranks = ArrayLike<string | ArrayLike<number> | undefined>;

/** Llama 3's first 128000 ids, the byte-level alphabet (GPT-2's bytes_to_unicode) decoded back to bytes. */
async function llama3Ranks(): Promise<Ranks> {
  const { default: llama3 } = await import("llama3-tokenizer-js");
  const byteOf = new Map<number, number>();
  let shifted = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    byteOf.set(printable ? b : 256 + shifted++, b);
  }
  const ranks: Uint8Array[] = [];
  for (let id = 0; id < 128000; id++) {
    const token = llama3.vocabById[id]!;
    const bytes = new Uint8Array(token.length);
    let n = 0;
    for (const char of token) bytes[n++] = byteOf.get(char.codePointAt(0)!)!;
    ranks.push(bytes.subarray(0, n));
  }
  return ranks;
}

/**
 * Rank tables other than the default's are imported on first use: loading
 * llama3-tokenizer-js (which decodes its vocabulary and merges) takes ~2.3 s,
 * which no process should pay at start-up for an option few requests take.
 */
const RANK_LOADERS: Record<Exclude<TokenizerName, "o200k_base">, () => Promise<Ranks>> = {
  cl100k_base: async () => (await import("gpt-tokenizer/bpeRanks/cl100k_base")).default,
  llama3: llama3Ranks,
};
const ranks = new Map<TokenizerName, Ranks>([["o200k_base", o200kRanks]]);

/** Makes `tokenizerFor(name)` usable: imports its rank table once per process (a no-op for o200k_base). */
export async function loadTokenizer(name: TokenizerName = DEFAULT_TOKENIZER): Promise<void> {
  if (name !== "o200k_base" && !ranks.has(name)) ranks.set(name, await RANK_LOADERS[name]());
}

const SCANNERS: Record<TokenizerName, Tokenizer["scan"]> = {
  o200k_base: scanPreToken,
  cl100k_base: scanCl100kPreToken,
  llama3: scanCl100kPreToken,
};

const built = new Map<TokenizerName, Tokenizer>();

/** The tokenizer by name, its vocabulary built on first use; other than o200k_base, after `loadTokenizer(name)`. */
export function tokenizerFor(name: TokenizerName = DEFAULT_TOKENIZER): Tokenizer {
  let tokenizer = built.get(name);
  if (tokenizer) return tokenizer;
  const table = ranks.get(name);
  if (!table) throw new Error(`The ${name} tokenizer is not loaded: await loadTokenizer("${name}") first.`);
  let vocabulary: Vocabulary | undefined;
  const cache = createCountCache((text, start, end) =>
    countPreTokenRange((vocabulary ??= buildVocabulary(table)), text, start, end),
  );
  tokenizer = { name, scan: SCANNERS[name], countPiece: cache.count, cache };
  built.set(name, tokenizer);
  return tokenizer;
}

/** Forgets every tokenizer's cached counts (benchmarks start cold). */
export function clearTokenCaches(): void {
  for (const tokenizer of built.values()) tokenizer.cache.clear();
}
