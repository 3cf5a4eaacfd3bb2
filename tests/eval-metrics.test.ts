/**
 * The evaluation harness's metrics and helpers, on hand-made cases whose
 * answers are worked out in the comments: containment, minimal cover, IoU,
 * structural damage from a real Markdown parse, size statistics, Pk and
 * WindowDiff, excerpt and chunk location, the fixed-size baseline, the token
 * scale and the segmentation set's boundaries.
 */
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/ground/config";
import { parseCsv } from "@/eval/csv";
import { LocateError, locateExcerpt, locateSequential, trimRange } from "@/eval/locate";
import { markdownElements } from "@/eval/markdown-elements";
import { fixedSizeRanges, utf8ToUtf16Offsets } from "@/eval/methods";
import {
  containedWhole,
  coverIoU,
  cutElements,
  defaultWindow,
  minimalCover,
  pk,
  scoreExcerpts,
  sizeStats,
  windowDiff,
} from "@/eval/metrics";
import {
  buildChoiSet,
  buildSegmentationSet,
  chatConversations,
  concatenatedSample,
  wikitextArticles,
} from "@/eval/segmentation";
import { alignWords, wordAccuracy } from "@/eval/ocr-accuracy";
import { c99, textTiling } from "@/eval/topic-baselines";
import { CachedEmbedder } from "@/eval/cached-embedder";
import { tokenScale } from "@/eval/token-scale";

const r = (start: number, end: number) => ({ start, end });

describe("excerpt containment and IoU", () => {
  const chunks = [r(0, 10), r(10, 20), r(20, 30)];

  it("counts an excerpt whole only when one chunk holds all of it", () => {
    expect(containedWhole(r(2, 8), chunks)).toBe(true);
    expect(containedWhole(r(10, 20), chunks)).toBe(true); // edges included
    expect(containedWhole(r(8, 12), chunks)).toBe(false);
    expect(scoreExcerpts([r(2, 8), r(8, 12)], chunks).whole).toBe(0.5);
  });

  it("covers with the fewest chunks, also when chunks overlap", () => {
    const overlapping = [r(0, 10), r(5, 25), r(8, 12), r(20, 30)];
    // [5,25) alone covers [9,24); the greedy cover must not take [0,10) and [8,12) too.
    expect(minimalCover(r(9, 24), overlapping)).toEqual([r(5, 25)]);
    expect(minimalCover(r(2, 28), overlapping)).toEqual([r(0, 10), r(5, 25), r(20, 30)]);
  });

  it("skips gaps no chunk covers", () => {
    // A method that dropped [10,15): the excerpt is covered by the chunks on both sides.
    expect(minimalCover(r(8, 18), [r(0, 10), r(15, 30)])).toEqual([r(0, 10), r(15, 30)]);
  });

  it("computes IoU against the union of the covering chunks", () => {
    expect(coverIoU(r(2, 8), chunks)).toBeCloseTo(6 / 10); // excerpt 6 of chunk 10
    expect(coverIoU(r(8, 12), chunks)).toBeCloseTo(4 / 20); // two chunks, 20 long
    expect(coverIoU(r(0, 10), chunks)).toBe(1);
    // Gap [10,15) uncovered: intersection 2 + 3 = 5, union = 10 + 15 (chunks) + 10 (excerpt) - 5 = 30.
    expect(coverIoU(r(8, 18), [r(0, 10), r(15, 30)])).toBeCloseTo(5 / 30);
  });

  it("measures in the unit the scale gives", () => {
    // Characters 0..9 weigh 1, 10..29 weigh 3: chunk [0,10) = 10, excerpt [5,15) = 5 + 15 = 20.
    const scale = (o: number) => (o <= 10 ? o : 10 + (o - 10) * 3);
    // Cover [0,20) = 10 + 30 = 40; intersection = the excerpt, 20; union 40.
    expect(coverIoU(r(5, 15), chunks, scale)).toBeCloseTo(20 / 40);
  });
});

describe("structural damage", () => {
  it("counts an element cut only when a chunk edge falls strictly inside it", () => {
    const elements = [r(5, 15), r(20, 25), r(30, 40)];
    const chunks = [r(0, 10), r(10, 20), r(20, 40)];
    // 10 is inside [5,15); 20 is the edge of [20,25), not inside; nothing falls in [30,40).
    expect(cutElements(elements, chunks)).toEqual([r(5, 15)]);
    // A chunk that starts inside an element cuts it too, even with a gap before it.
    expect(cutElements([r(30, 40)], [r(0, 28), r(33, 50)])).toEqual([r(30, 40)]);
  });

  it("finds fences, table rows and list items, nested ones included, from a Markdown parse", () => {
    const text = [
      "# Title",
      "",
      "```js",
      "const a = 1;",
      "```",
      "",
      "    indented code is not a fence",
      "",
      "| a | b |",
      "| - | - |",
      "| 1 | 2 |",
      "| 3 | 4 |",
      "",
      "- one",
      "  - one.one",
      "  - one.two",
      "- two",
      "",
      "~~~",
      "tilde fence",
      "~~~",
      "",
      "Not a list: - dash in prose.",
    ].join("\n");
    const found = markdownElements(text).map((e) => [e.kind, text.slice(e.start, e.end)]);
    expect(found.filter(([k]) => k === "fence")).toEqual([
      ["fence", "```js\nconst a = 1;\n```"],
      ["fence", "~~~\ntilde fence\n~~~"],
    ]);
    expect(found.filter(([k]) => k === "row").map(([, t]) => t)).toEqual(["| a | b |", "| 1 | 2 |", "| 3 | 4 |"]);
    expect(found.filter(([k]) => k === "item").map(([, t]) => t)).toEqual([
      "- one\n  - one.one\n  - one.two",
      "- one.one",
      "- one.two",
      "- two",
    ]);
  });
});

describe("chunk sizes", () => {
  it("gives the mean and the population standard deviation", () => {
    const s = sizeStats([1, 2, 3, 4]);
    expect(s.mean).toBe(2.5);
    expect(s.std).toBeCloseTo(Math.sqrt(1.25));
    expect(sizeStats([]).count).toBe(0);
  });
});

describe("Pk and WindowDiff", () => {
  // Ten units, one true boundary before unit 5: two segments of 5, k = round(2.5) = 3.
  // Windows i = 0..6 (7 of them) span units i and i+3; the reference has a boundary in windows 2, 3, 4.
  const reference = { length: 10, boundaries: [5] };

  it("uses half the mean true segment length as k", () => {
    expect(defaultWindow(reference)).toBe(3);
    expect(defaultWindow({ length: 100, boundaries: [10, 30, 60] })).toBe(13); // 4 segments of 25 → 12.5 → 13
  });

  it("is 0 for a perfect segmentation", () => {
    expect(pk(reference, reference)).toBe(0);
    expect(windowDiff(reference, reference)).toBe(0);
  });

  it("counts the windows a missing boundary makes wrong", () => {
    const none = { length: 10, boundaries: [] };
    expect(pk(reference, none)).toBeCloseTo(3 / 7);
    expect(windowDiff(reference, none)).toBeCloseTo(3 / 7);
  });

  it("penalises a near miss less than a miss", () => {
    // Hypothesis at 6: its windows are 3, 4, 5; they disagree with the reference at 2 and 5.
    const near = { length: 10, boundaries: [6] };
    expect(pk(reference, near)).toBeCloseTo(2 / 7);
    expect(windowDiff(reference, near)).toBeCloseTo(2 / 7);
  });

  it("tells Pk from WindowDiff when there are extra boundaries", () => {
    // Hypothesis 3, 5, 7: every window holds a boundary (Pk wrong in windows 0, 1, 5, 6 → 4/7);
    // counts per window are 1,1,2,1,2,1,1 against 0,0,1,1,1,0,0 → differ in 6 of 7.
    const extra = { length: 10, boundaries: [3, 5, 7] };
    expect(pk(reference, extra)).toBeCloseTo(4 / 7);
    expect(windowDiff(reference, extra)).toBeCloseTo(6 / 7);
  });

  it("refuses segmentations of different lengths", () => {
    expect(() => pk(reference, { length: 11, boundaries: [5] })).toThrow(/different lengths/);
  });
});

describe("OCR word accuracy", () => {
  it("counts substituted, missing and extra words against the words expected, ignoring case and punctuation", () => {
    expect(wordAccuracy("Hello, World!", "hello world")).toBe(1);
    expect(wordAccuracy("# Tide tables\n\n- the cat sat", "Tide tab1es the cat")).toBe(1 - 2 / 5);
    expect(wordAccuracy("a b", "a b c d")).toBe(0);
    expect(wordAccuracy("a b c d", "")).toBe(0);
  });

  it("lines each word of a copy up with the original's, an inserted word with the next original word", () => {
    expect(alignWords(["a", "b", "c"], ["a", "x", "b", "c"])).toEqual([0, 1, 1, 2]);
    expect(alignWords(["a", "b", "c", "d"], ["a", "c", "d"])).toEqual([0, 2, 3]);
    expect(alignWords(["a", "b"], ["a", "q"])).toEqual([0, 1]);
  });
});

describe("locating excerpts and chunks", () => {
  const text = "Alpha beta.\nGamma delta epsilon.\n\nAlpha beta again.";

  it("finds an excerpt exactly, then with whitespace differences", () => {
    expect(locateExcerpt(text, "Gamma delta")).toEqual(r(12, 23));
    // Line-wrapped differently, as in a PDF.
    expect(locateExcerpt(text, "beta. Gamma\ndelta")).toEqual(r(6, 23));
  });

  it("refuses an ambiguous or missing excerpt, and picks the nearest occurrence when told where", () => {
    expect(() => locateExcerpt(text, "Alpha beta")).toThrow(LocateError);
    expect(() => locateExcerpt(text, "Zeta")).toThrow(/not found/);
    expect(locateExcerpt(text, "Alpha beta", 30)).toEqual(r(34, 44));
  });

  it("trims whitespace at the edges of a range", () => {
    expect(trimRange("  ab c \n", r(0, 8))).toEqual(r(2, 6));
  });

  it("places returned chunk texts in order, repeated passages included", () => {
    const source = "la la la. la la la.";
    expect(locateSequential(source, ["la la la.", "la la la."])).toEqual([r(0, 9), r(10, 19)]);
    expect(() => locateSequential(source, ["la la la.", "missing"])).toThrow(LocateError);
  });
});

describe("baselines and scales", () => {
  const text = "The quick brown fox jumps over the lazy dog. ".repeat(40) + "Ünïcödé 日本語のテキスト 🙂 done.";

  it("cuts fixed-size windows that tile the text within the budget", () => {
    const ranges = fixedSizeRanges(text, 25);
    expect(ranges[0]!.start).toBe(0);
    expect(ranges[ranges.length - 1]!.end).toBe(text.length);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]!.start).toBe(ranges[i - 1]!.end);
    for (const range of ranges) expect(encode(text.slice(range.start, range.end)).length).toBeLessThanOrEqual(25);
    // Full windows, not a trickle of tiny ones.
    expect(ranges.length).toBeLessThanOrEqual(Math.ceil(encode(text).length / 20));
  });

  it("maps UTF-8 byte offsets (Chonkie's) back to string indices", () => {
    // a = 1 byte, é = 2, 日 = 3, 🙂 = 4 (two UTF-16 units), b = 1: 11 bytes, 6 code units.
    const map = utf8ToUtf16Offsets("aé日🙂b");
    expect([...map]).toEqual([0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 5, 6]);
  });

  it("maps offsets to token positions that agree with the tokenizer at word edges", () => {
    const { scale, total } = tokenScale(text);
    expect(total).toBe(encode(text).length);
    expect(scale(0)).toBe(0);
    expect(scale(text.length)).toBe(total);
    // " quick" starts at 3; the text before it is one token, "The".
    expect(scale(3)).toBe(1);
    let previous = 0;
    for (let o = 0; o <= text.length; o += 7) {
      expect(scale(o)).toBeGreaterThanOrEqual(previous);
      previous = scale(o);
    }
  });
});

describe("corpus readers", () => {
  it("parses RFC 4180 CSV with quotes, doubled quotes and newlines in fields", () => {
    expect(parseCsv('a,b\n"x, ""y""","line1\nline2"\nplain,2\n')).toEqual([
      { a: 'x, "y"', b: "line1\nline2" },
      { a: "plain", b: "2" },
    ]);
    expect(() => parseCsv('a,b\n"open,1\n')).toThrow(/unterminated/);
  });

  it("reads WikiText articles and chat turns", () => {
    const wiki = ` = Topic One = \n ${"First article sentence. ".repeat(200)}\n = = Section = = \n More text here .\n = Topic Two = \n ${"Second article words. ".repeat(200)}\n`;
    const articles = wikitextArticles(wiki, "w");
    expect(articles.map((a) => a.id)).toEqual(["w:Topic One", "w:Topic Two"]);
    expect(articles[0]!.paragraphs).toHaveLength(2); // the section heading is dropped
    const chat = `[{'content': "Hi, it's me.\\nSecond line", 'role': 'user'}, {'content': 'Hello there', 'role': 'assistant'}]\n`;
    expect(chatConversations(chat, "c")[0]!.paragraphs).toEqual(["Hi, it's me. Second line", "Hello there"]);
  });
});

describe("segmentation set", () => {
  it("puts the true boundaries exactly where the source document changes", async () => {
    const words = ["apple", "river", "copper", "violin", "glacier"];
    const sources = words.map((w) => ({
      id: w,
      genre: w === "apple" || w === "river" ? "a" : "b",
      paragraphs: Array.from({ length: 12 }, (_, p) =>
        Array.from({ length: 4 }, (_, s) => `The ${w} sentence ${p}-${s} is here.`).join(" "),
      ),
    }));
    const samples = await buildSegmentationSet(
      sources,
      {
        samples: 6,
        seed: 7,
        sections: [3, 5],
        lengthBands: [
          [20, 60],
          [60, 150],
        ],
      },
      loadConfig().limits,
    );
    expect(samples).toHaveLength(6);
    for (const sample of samples) {
      const text = sample.extracted.text;
      const edges = [0, ...sample.boundaries, text.length + 2];
      expect(edges.length - 1).toBe(sample.sources.length);
      for (let i = 0; i + 1 < edges.length; i++) {
        const section = text.slice(edges[i], edges[i + 1]! - 2);
        // Each section holds sentences of its own source only, and neighbours differ.
        const present = words.filter((w) => section.includes(` ${w} `));
        expect(present).toEqual([sample.sources[i]]);
        if (i > 0) expect(sample.sources[i]).not.toBe(sample.sources[i - 1]);
      }
    }
  });
});

describe("Choi-style set and topic baselines", () => {
  const words = ["alpha", "bravo", "charlie", "delta", "echo"];
  const sources = words.map((w) => ({
    id: w,
    genre: w === "alpha" || w === "bravo" ? "first" : "second",
    paragraphs: Array.from({ length: 4 }, (_, p) =>
      Array.from({ length: 5 }, (_, s) => `The ${w} sentence ${p}-${s} is here.`).join(" "),
    ),
  }));

  it("builds samples of whole sentences, one a line, in the ranges taking turns", async () => {
    const options = {
      samples: 4,
      seed: 3,
      segments: 5,
      sentenceRanges: [[3, 5] as [number, number], [9, 11] as [number, number]],
    };
    const samples = await buildChoiSet(sources, options, loadConfig().limits);
    expect(samples.map((s) => s.id)).toEqual(["choi-3-5-1", "choi-9-11-2", "choi-3-5-3", "choi-9-11-4"]);
    for (const [n, sample] of samples.entries()) {
      const [lo, hi] = options.sentenceRanges[n % 2]!;
      const text = sample.extracted.text;
      const edges = [0, ...sample.boundaries, text.length + 1];
      expect(edges.length - 1).toBe(5);
      for (let i = 0; i + 1 < edges.length; i++) {
        const lines = text.slice(edges[i], edges[i + 1]! - 1).split("\n");
        expect(lines.length).toBeGreaterThanOrEqual(lo);
        expect(lines.length).toBeLessThanOrEqual(hi);
        for (const line of lines)
          expect(line).toMatch(new RegExp(`^The ${sample.sources[i]} sentence \\d-\\d is here\\.$`));
        if (i > 0) expect(sample.sources[i]).not.toBe(sample.sources[i - 1]);
      }
    }
  });

  it("joins a set's samples into one long document with every section boundary kept", async () => {
    const limits = loadConfig().limits;
    const options = { samples: 3, seed: 5, segments: 4, sentenceRanges: [[3, 5] as [number, number]] };
    const samples = await buildChoiSet(sources, options, limits);
    const long = await concatenatedSample("long", samples, "\n", limits);
    expect(long.extracted.text).toBe(samples.map((s) => s.extracted.text).join("\n"));
    expect(long.sources).toEqual(samples.flatMap((s) => s.sources));
    const expected: number[] = [];
    let offset = 0;
    for (const [n, sample] of samples.entries()) {
      if (n > 0) expected.push(offset);
      expected.push(...sample.boundaries.map((b) => b + offset));
      offset += sample.extracted.text.length + 1;
    }
    expect(long.boundaries).toEqual(expected);
    expect(long.boundaries).toHaveLength(11);
  });

  // Two topics with no word in common besides stop words, one sentence a line: the change is at line 13.
  const topic = (vocabulary: string[], n: number) =>
    Array.from(
      { length: n },
      (_, i) => Array.from({ length: 9 }, (_, j) => vocabulary[(i * 3 + j * 5) % vocabulary.length]).join(" ") + ".",
    );
  const ocean = "whale tide coral reef current salt wave kelp shore squid".split(" ");
  const engine = "piston valve crank torque fuel spark gear shaft clutch diesel".split(" ");
  const lines = [...topic(ocean, 12), ...topic(engine, 12)];
  const text = lines.join("\n");
  const change = lines.slice(0, 12).join("\n").length + 1;

  it("TextTiling and C99 find where the vocabulary changes", () => {
    expect(c99(text)).toEqual([change]);
    expect(textTiling(text, { w: 10, k: 4 })).toContain(change);
  });

  it("C99 finds nothing to cut in one topic", () => {
    expect(c99(topic(ocean, 24).join("\n"))).toEqual([]);
  });
});

describe("cached embedder", () => {
  it("asks the inner embedder once per distinct text and answers in order", async () => {
    const asked: string[][] = [];
    const inner = {
      id: "inner",
      charsPerDocument: 99,
      embed: async (texts: string[]) => {
        asked.push(texts);
        return texts.map((t) => Float32Array.of(t.length));
      },
    };
    const cached = new CachedEmbedder(inner);
    expect([cached.id, cached.charsPerDocument]).toEqual(["inner", 99]);
    expect((await cached.embed(["ab", "c", "ab"])).map((v) => v[0])).toEqual([2, 1, 2]);
    expect((await cached.embed(["c", "defg"])).map((v) => v[0])).toEqual([1, 4]);
    expect(asked).toEqual([["ab", "c"], ["defg"]]);
  });
});
