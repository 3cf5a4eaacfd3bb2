/**
 * The free tier's splitter and the token counter under it, checked on real
 * text (excerpts of the Chroma chunking-eval corpora in tests/fixtures/)
 * and on inputs built to break them: CJK without spaces, emoji sequences,
 * code, a single huge word, \r\n, a grapheme cluster bigger than a chunk.
 *
 * Ground truth for token counts is gpt-tokenizer itself (o200k_base), never
 * the module under test.
 */
import { checkChunks, referenceTokens as reference } from "./helpers/chunk-invariants";
import { mulberry32 } from "./helpers/random";
import fs from "node:fs";
import { join } from "node:path";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { splitRecursive } from "@/lib/chunking/recursive";
import type { Span, SplitOptions } from "@/lib/chunking/types";
import { clearTokenCache, countPreToken, countTokens, O200K_PATTERN, preTokenize, TokenIndex } from "@/lib/tokens";

const root = join(import.meta.dirname, "..");
const wiki = fs.readFileSync(join(root, "tests/fixtures/wikitext-excerpt.md"), "utf8");
const chat = fs.readFileSync(join(root, "tests/fixtures/chatlogs-excerpt.md"), "utf8");
const code = fs.readFileSync(join(root, "node_modules/gpt-tokenizer/src/BytePairEncodingCore.ts"), "utf8");

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;

/** Characters the o200k pattern and grapheme rules treat specially. */
const TRICKY = [
  "a",
  "Z",
  "É",
  "é",
  "ß",
  "ǅ",
  "ʰ",
  "ı",
  "İ",
  "ﬁ",
  "中",
  "文",
  "日",
  "本",
  "ア",
  "ー",
  "ッ",
  "한",
  "글",
  "ㄱ",
  "\u0301",
  "\u0308",
  "\u20dd",
  "\ufe0f",
  "\u200d",
  "\u200c",
  "1",
  "2",
  "٣",
  "½",
  "Ⅻ",
  "𝟘",
  "𝓐",
  "𐐷",
  " ",
  "  ",
  "\t",
  "\n",
  "\r",
  "\r\n",
  "\u00a0",
  "\u3000",
  "\u2028",
  "'s",
  "'LL",
  "'re",
  "'",
  "/",
  ".",
  ",",
  "!",
  "?",
  "。",
  "！",
  "(",
  ")",
  "-",
  "_",
  "=",
  "#",
  "<|endoftext|>",
  "😀",
  "👍🏽",
  "👨‍👩‍👧",
  "🇯🇵",
  "\ud800",
  "\udc00",
  "\u{1D167}",
  "ﷺ",
] as const;

// ---------------------------------------------------------------------------
// Texts
// ---------------------------------------------------------------------------

const CHINESE = [
  "今天天气很好，我们去公园散步吧。",
  "这个算法的时间复杂度是线性的！",
  "他问：你为什么总是迟到？",
  "机器学习模型需要大量高质量的数据来训练。",
  "在遥远的山村里，住着一位年迈的木匠，他每天清晨都会去河边取水。",
  "请把文件分成若干个小块，每块不超过五百个标记。",
  "长城是中国古代最伟大的防御工程之一。",
];

/** `least` to `least + spread - 1` pieces of TRICKY, joined. */
function trickyString(next: () => number, least: number, spread: number): string {
  const parts: string[] = [];
  const length = least + Math.floor(next() * spread);
  for (let k = 0; k < length; k++) parts.push(pick(next, TRICKY));
  return parts.join("");
}
const JAPANESE = [
  "吾輩は猫である。名前はまだ無い。",
  "どこで生れたかとんと見当がつかぬ！",
  "東京の地下鉄はとても便利ですが、朝のラッシュアワーは大変です。",
  "このライブラリはテキストをトークン単位で分割します。",
  "カタカナのコーヒーとひらがなのおちゃ、どちらが好きですか？",
];

function cjkText(chars: number, seed: number, sentences: readonly string[]): string {
  const next = mulberry32(seed);
  let out = "";
  while (out.length < chars) out += pick(next, sentences);
  return out;
}

const chinese = cjkText(12_000, 1, CHINESE);
const japanese = cjkText(8_000, 2, JAPANESE);
/** Chinese with every sentence mark removed: only grapheme splitting can cut it. */
const chineseUnpunctuated = cjkText(6_000, 3, CHINESE).replace(/[，。！？：]/gu, "");

const EMOJI = ["👨‍👩‍👧‍👦", "👩🏽‍💻", "🏳️‍🌈", "🇯🇵", "🇫🇷", "🇺🇸", "👍🏿", "👍", "❤️", "🧑🏻‍🤝‍🧑🏾", "🤷‍♀️", "😀", "🎉", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "1️⃣", "©️"];
function emojiText(count: number, seed: number): string {
  const next = mulberry32(seed);
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = next();
    parts.push(pick(next, EMOJI));
    if (r < 0.15) parts.push(" ");
    else if (r < 0.2) parts.push(" family time! ");
    else if (r < 0.22) parts.push("\n\n");
  }
  return parts.join("");
}
const emoji = emojiText(3_000, 4);
/** Emoji with no separator at all. */
const emojiRun = emojiText(1_500, 5).replace(/\s+/g, "");

function hugeWord(length: number, seed: number): string {
  const next = mulberry32(seed);
  let out = "";
  for (let i = 0; i < length; i++) out += "abcdefghijklmnopqrstuvwxyz"[Math.floor(next() * 26)];
  return out;
}
const huge = `Before the word. ${hugeWord(20_000, 6)} and after it.`;

/** One grapheme cluster of thousands of combining marks, some outside the BMP. */
const zalgo = `Start. x${"\u0301\u0316\u{1D167}\u0489".repeat(700)} end.`;

const crlf = wiki.slice(0, 40_000).replace(/\n/g, "\r\n");

// ---------------------------------------------------------------------------
// Invariant checker
// ---------------------------------------------------------------------------

interface CheckOptions {
  /** Chunk edges may cut a cluster bigger than maxTokens (between code points, never inside a pair). */
  allowCodePointCuts?: boolean;
}

/**
 * The shared chunk rules for the free tier (trimmed edges on grapheme boundaries), and countTokens, the counter
 * under test here, agreeing with gpt-tokenizer on every chunk. Throws on the first break; returns how many
 * consecutive chunks overlap.
 */
function checkSpans(text: string, spans: Span[], options: SplitOptions, check: CheckOptions = {}): number {
  const graphemes = check.allowCodePointCuts ? "code-points" : "whole";
  const overlapping = checkChunks(text, spans, { ...options, trimmed: true, graphemes });
  spans.forEach((span, i) => {
    if (countTokens(text.slice(span.start, span.end)) !== span.tokenCount)
      throw new Error(`chunk ${i}: countTokens disagrees with gpt-tokenizer`);
  });
  return overlapping;
}

// ---------------------------------------------------------------------------
// countTokens
// ---------------------------------------------------------------------------

describe("countTokens", () => {
  it("equals gpt-tokenizer's o200k encode(text).length on hand-picked strings", () => {
    const samples = [
      "",
      " ",
      "hello world",
      "Hello, World! It's 2024; they'll've gone.",
      "   leading and trailing   ",
      "tabs\tand\t\ttabs",
      "line\nbreaks\n\n\nand\r\nCRLF\r\n\r\n",
      " \n \n\t\n   x",
      "x" + " ".repeat(100) + "y",
      " ".repeat(333),
      "\n".repeat(50),
      "\u00a0non\u00a0breaking\u3000ideographic\u2028separator",
      "中文文本没有空格也可以分词。日本語のテキストも同じです。",
      "한국어 텍스트도 마찬가지입니다.",
      "Ελληνικά και русский текст, עברית ועربية.",
      "👨‍👩‍👧‍👦 family 🇯🇵🇫🇷 flags 👍🏽 skin tones ❤️ 1️⃣",
      "function f(a, b) {\n  return a + b; // sum\n}\nconst x = [1, 2, 3].map((n) => n ** 2);",
      "https://example.com/a/b?c=d&e=f#g //comment /* block */ ///triple",
      "1234567890 12.5 1e10 -42 ½ Ⅻ ٣٤٥ 𝟘𝟙𝟚",
      "CamelCaseWords and UPPERCASE and mIxEd and ǅungla",
      "e\u0301 a\u0308 Z̴̡̛̙͖̮̭ combining",
      "don't DON'T we'RE you'Ve I'M she'S it'D they'LL",
      "'s 's''s",
      "<|endoftext|> and <|im_start|>user<|im_end|>",
      "\ud800 lone \udc00 surrogates \ud83d",
      "a".repeat(3000),
      "abcdefghij".repeat(400),
      "中文".repeat(800),
      "=".repeat(4000),
      "x😀".repeat(300),
    ];
    for (const s of samples) expect([s.slice(0, 40), countTokens(s)]).toEqual([s.slice(0, 40), reference(s)]);
    // Without special-token strings, the default encode agrees too.
    for (const s of samples.filter((s) => !s.includes("<|"))) expect(countTokens(s)).toBe(encode(s).length);
  });

  it("equals gpt-tokenizer on the eval corpus, whole and paragraph by paragraph", () => {
    for (const text of [wiki, chat, code, chinese, japanese, emoji, crlf]) {
      expect(countTokens(text)).toBe(reference(text));
      for (const paragraph of text.split(/\n\s*\n/).slice(0, 400))
        expect(countTokens(paragraph)).toBe(reference(paragraph));
    }
  });

  it("equals gpt-tokenizer on random strings of awkward characters", () => {
    const next = mulberry32(7);
    for (let i = 0; i < 4000; i++) {
      const s = trickyString(next, 1, 40);
      expect([s, countTokens(s)]).toEqual([s, reference(s)]);
    }
  });

  it("counts long pre-tokens (the heap merge) exactly", () => {
    const next = mulberry32(8);
    const letters = "abcdefghijklmnopqrstuvwxyzéüñçøåßšžčёжщыэюя中文日本語";
    for (let i = 0; i < 300; i++) {
      let s = "";
      const length = 60 + Math.floor(next() * 600);
      for (let k = 0; k < length; k++) s += letters[Math.floor(next() * letters.length)];
      expect(countPreToken(s)).toBe(reference(s));
    }
  });

  it("gives the same counts from an empty cache", () => {
    const before = countTokens(wiki);
    clearTokenCache();
    expect(countTokens(wiki)).toBe(before);
  });
});

describe("pre-tokenizer", () => {
  const regexPieces = (text: string) =>
    [...text.matchAll(new RegExp(O200K_PATTERN.source, "gu"))].map((m) => [m.index, m.index + m[0].length]);

  it("matches the o200k split pattern on real text", () => {
    for (const text of [wiki, chat, code, chinese, emoji, crlf, zalgo])
      expect(preTokenize(text)).toEqual(regexPieces(text));
  });

  it("matches the o200k split pattern on random ASCII, control characters included", () => {
    const next = mulberry32(13);
    const ascii = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));
    for (let i = 0; i < 3000; i++) {
      let s = "";
      const length = 1 + Math.floor(next() * 30);
      for (let k = 0; k < length; k++)
        s += next() < 0.5 ? pick(next, ascii) : pick(next, ["a", "B", " ", "'s", "1", "\n"]);
      expect([s, preTokenize(s)]).toEqual([s, regexPieces(s)]);
      expect([s, countTokens(s)]).toEqual([s, reference(s)]);
    }
  });

  it("matches the o200k split pattern on random strings", () => {
    const next = mulberry32(9);
    for (let i = 0; i < 4000; i++) {
      const s = trickyString(next, 1, 40);
      expect([s, preTokenize(s)]).toEqual([s, regexPieces(s)]);
    }
  });
});

describe("TokenIndex", () => {
  it("counts any range of a document exactly", () => {
    const next = mulberry32(10);
    for (const text of [wiki.slice(0, 30_000), chat.slice(0, 20_000), chinese, emoji, crlf.slice(0, 20_000)]) {
      const index = new TokenIndex(text);
      expect(index.total).toBe(reference(text));
      for (let i = 0; i < 300; i++) {
        const a = Math.floor(next() * (text.length + 1));
        const b = Math.min(text.length, a + Math.floor(next() * 3000));
        expect([a, b, index.count(a, b)]).toEqual([a, b, reference(text.slice(a, b))]);
      }
    }
  });

  it("counts ranges of awkward strings exactly, surrogate halves and whitespace edges included", () => {
    const next = mulberry32(11);
    for (let i = 0; i < 3000; i++) {
      const s = trickyString(next, 1, 40);
      const index = new TokenIndex(s);
      const a = Math.floor(next() * (s.length + 1));
      const b = a + Math.floor(next() * (s.length + 1 - a));
      expect([s, a, b, index.count(a, b)]).toEqual([s, a, b, reference(s.slice(a, b))]);
    }
  });

  it("counts a range with text joined before and after it exactly (fences, table headers, awkward seams)", () => {
    const next = mulberry32(12);
    const joins = [
      "",
      "```ts\n",
      "\n```",
      "\n  ~~~",
      "| a | b |\n|---|---|\n",
      " ",
      "\n",
      "x",
      "'s",
      "1",
      "😀",
      "\ud83d",
      "\ude00",
      "。",
    ];
    const documents = [wiki.slice(0, 20_000), code, emoji, crlf.slice(0, 10_000)];
    for (let i = 0; i < 3000; i++) {
      const s = i % 2 === 0 ? pick(next, documents) : trickyString(next, 1, 40);
      const index = new TokenIndex(s);
      const a = Math.floor(next() * (s.length + 1));
      const b = Math.min(s.length, a + Math.floor(next() * 2000));
      const prefix = pick(next, joins) + (next() < 0.3 ? pick(next, joins) : "");
      const suffix = pick(next, joins) + (next() < 0.3 ? pick(next, joins) : "");
      const joined = prefix + s.slice(a, b) + suffix;
      expect([prefix, a, b, suffix, index.countJoined(prefix, a, b, suffix)]).toEqual([
        prefix,
        a,
        b,
        suffix,
        reference(joined),
      ]);
    }
  });
});

// ---------------------------------------------------------------------------
// splitRecursive
// ---------------------------------------------------------------------------

const BUDGETS: SplitOptions[] = [
  { maxTokens: 512, overlapTokens: 64 },
  { maxTokens: 256, overlapTokens: 0 },
  { maxTokens: 128, overlapTokens: 32 },
  { maxTokens: 32, overlapTokens: 8 },
  { maxTokens: 32, overlapTokens: 0 },
  { maxTokens: 1000, overlapTokens: 200 },
];

const TEXTS: Array<[string, string]> = [
  ["wikitexts.md", wiki],
  ["chatlogs.md", chat],
  ["Chinese without spaces", chinese],
  ["Japanese without spaces", japanese],
  ["Chinese without punctuation", chineseUnpunctuated],
  ["emoji sequences", emoji],
  ["emoji without separators", emojiRun],
  ["TypeScript source", code],
  ["one huge word", huge],
  ["\\r\\n line breaks", crlf],
];

describe("splitRecursive", () => {
  describe.each(TEXTS)("%s", (_name, text) => {
    it.each(BUDGETS.map((b) => [`${b.maxTokens}/${b.overlapTokens}`, b] as const))(
      "keeps every invariant at %s tokens",
      (_budget, options) => {
        const spans = splitRecursive(text, options);
        expect(spans.length).toBeGreaterThan(0);
        checkSpans(text, spans, options);
      },
    );
  });

  it("splits CJK text without spaces at its full stops", () => {
    const spans = splitRecursive(chinese, { maxTokens: 64, overlapTokens: 0 });
    expect(spans.length).toBeGreaterThan(10);
    for (const span of spans.slice(0, -1)) expect("。！？").toContain(chinese[span.end - 1]);
  });

  it("fills chunks close to the budget and overlaps neighbours on real text", () => {
    const options = { maxTokens: 512, overlapTokens: 64 };
    const spans = splitRecursive(wiki, options);
    const overlapping = checkSpans(wiki, spans, options);
    expect(overlapping).toBeGreaterThan(0.8 * (spans.length - 1));
    const mean = spans.reduce((sum, s) => sum + s.tokenCount, 0) / spans.length;
    expect(mean).toBeGreaterThan(300);
  });

  it("never overlaps when overlapTokens is 0", () => {
    const spans = splitRecursive(chat, { maxTokens: 128, overlapTokens: 0 });
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
  });

  it("cuts unseparated emoji only between clusters, even with chunks barely bigger than one cluster", () => {
    // Many chunks, so many cuts land where the splitter segments text in blocks.
    const biggest = Math.max(...EMOJI.map(reference));
    for (let extra = 1; extra <= 12; extra++) {
      const options = { maxTokens: biggest + extra, overlapTokens: extra % 3 === 0 ? 4 : 0 };
      const spans = splitRecursive(emojiRun, options);
      expect(spans.length).toBeGreaterThan(150);
      checkSpans(emojiRun, spans, options);
    }
  });

  it("cuts a grapheme cluster bigger than a chunk between code points, never inside a surrogate pair", () => {
    const options = { maxTokens: 32, overlapTokens: 4 };
    const spans = splitRecursive(zalgo, options);
    expect(spans.length).toBeGreaterThan(10);
    checkSpans(zalgo, spans, options, { allowCodePointCuts: true });
  });

  it("keeps every invariant on random strings of awkward characters (lone surrogates included)", () => {
    const next = mulberry32(12);
    for (let i = 0; i < 300; i++) {
      const text = trickyString(next, 20, 400);
      const options = pick(next, [
        { maxTokens: 16, overlapTokens: 4 },
        { maxTokens: 24, overlapTokens: 0 },
        { maxTokens: 64, overlapTokens: 16 },
      ]);
      // Some clusters here (a family emoji with marks) outgrow 16 tokens and are cut between code points.
      checkSpans(text, splitRecursive(text, options), options, { allowCodePointCuts: options.maxTokens < 64 });
    }
  });

  it("returns nothing for empty or whitespace-only text, and one chunk for a short text", () => {
    expect(splitRecursive("", { maxTokens: 64, overlapTokens: 8 })).toEqual([]);
    expect(splitRecursive(" \n\t\r\n \u3000", { maxTokens: 64, overlapTokens: 8 })).toEqual([]);
    expect(splitRecursive("  Hello, world.  \n", { maxTokens: 64, overlapTokens: 8 })).toEqual([
      { start: 2, end: 15, tokenCount: reference("Hello, world.") },
    ]);
  });

  it("does not depend on what the token cache holds", () => {
    const options = { maxTokens: 128, overlapTokens: 16 };
    const first = splitRecursive(wiki, options);
    clearTokenCache();
    expect(splitRecursive(wiki, options)).toEqual(first);
  });

  it("rejects budgets it cannot honour", () => {
    expect(() => splitRecursive("text", { maxTokens: 3, overlapTokens: 0 })).toThrow(RangeError);
    expect(() => splitRecursive("text", { maxTokens: 64, overlapTokens: 64 })).toThrow(RangeError);
    expect(() => splitRecursive("text", { maxTokens: 64.5, overlapTokens: 0 })).toThrow(RangeError);
  });
});

describe("the invariant checker", () => {
  // The checks above are only as good as this function: each broken span
  // list below breaks exactly one invariant and must be rejected.
  const text = "First sentence here. Second one 👨‍👩‍👧 follows.";
  const options = { maxTokens: 64, overlapTokens: 4 };
  const span = (start: number, end: number): Span => ({ start, end, tokenCount: reference(text.slice(start, end)) });
  const space = text.indexOf(" Second");
  const insideEmoji = text.indexOf("👨") + 2; // before the first zero-width joiner

  it("accepts the splitter's output and valid hand-made spans", () => {
    expect(() => checkSpans(text, splitRecursive(text, options), options)).not.toThrow();
    expect(() => checkSpans(text, [span(0, space), span(space + 1, text.length)], options)).not.toThrow();
  });

  it.each([
    ["a wrong token count", () => [{ ...span(0, text.length), tokenCount: reference(text) + 1 }], options],
    ["a chunk over budget", () => [span(0, text.length)], { maxTokens: 5, overlapTokens: 0 }],
    ["a cut inside an emoji sequence", () => [span(0, insideEmoji), span(insideEmoji, text.length)], options],
    ["leading whitespace", () => [span(0, space), span(space, text.length)], options],
    ["an uncovered word", () => [span(0, space)], options],
    ["too much overlap", () => [span(0, text.length - 1), span(6, text.length)], options],
    ["chunks out of order", () => [span(space + 1, text.length), span(0, space)], options],
    [
      "overlap where none is allowed",
      () => [span(0, text.length - 1), span(6, text.length)],
      { maxTokens: 64, overlapTokens: 0 },
    ],
    ["a rewritten chunk from a splitter that only slices", () => [{ ...span(0, text.length), text }], options],
  ] as const)("rejects %s", (_name, spans, budget) => {
    expect(() => checkSpans(text, spans(), budget)).toThrow();
  });

  it("holds a rewriting splitter to its slice and its headings", () => {
    const whole = { ...span(0, text.length), headings: [] };
    const rules = { ...options, rewrites: true, headings: true };
    const fenced = `\`\`\`\n${text}\n\`\`\``;
    expect(() => checkChunks(text, [{ ...whole, text: fenced, tokenCount: reference(fenced) }], rules)).not.toThrow();
    const dropped = text.slice(1);
    expect(() => checkChunks(text, [{ ...whole, text: dropped, tokenCount: reference(dropped) }], rules)).toThrow(
      /drops part of its slice/,
    );
    expect(() => checkChunks(text, [span(0, text.length)], rules)).toThrow(/no headings/);
  });
});
