/**
 * Two classic topic segmenters, as baselines for the semantic tier in the
 * evaluation only (never in the service): TextTiling (Hearst 1997) and C99
 * (Choi 2000). Both read words, not meaning, and know no token budget: their
 * segments are as long as the topics they find. Each returns the character
 * offsets where a segment other than the first starts.
 *
 * Shared reading: words are runs of letters and digits, lower-cased, with
 * English stop words dropped (both papers do; neither is given a stemmer
 * here). Segment boundaries fall at line starts: in the evaluation's samples
 * every paragraph, or in the Choi-style set every sentence, is a line.
 */
import { sentenceSpans } from "@/lib/chunking/text/line-sentences";

const STOP_WORDS = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below between both but by " +
    "can could did do does doing down during each few for from further had has have having he her here hers herself him " +
    "himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other " +
    "our ours ourselves out over own same she should so some such than that the their theirs them themselves then there " +
    "these they this those through to too under until up very was we were what when where which while who whom why will " +
    "with would you your yours yourself yourselves s t don"
  ).split(" "),
);

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w));
}

type Counts = Map<string, number>;

function countsOf(tokens: readonly string[]): Counts {
  const counts: Counts = new Map();
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

function cosine(a: Counts, b: Counts): number {
  let dot = 0;
  for (const [w, n] of a) dot += n * (b.get(w) ?? 0);
  if (dot === 0) return 0;
  let na = 0;
  let nb = 0;
  for (const n of a.values()) na += n * n;
  for (const n of b.values()) nb += n * n;
  return dot / Math.sqrt(na * nb);
}

/** Offsets where a line starts (after "\n", not counting the text's start), ascending. */
function lineStarts(text: string): number[] {
  const starts: number[] = [];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1))
    if (i + 1 < text.length && text[i + 1] !== "\n") starts.push(i + 1);
  return starts;
}

function nearest(sorted: readonly number[], at: number): number | undefined {
  let best: number | undefined;
  for (const x of sorted) if (best === undefined || Math.abs(x - at) < Math.abs(best - at)) best = x;
  return best;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const sd = (xs: readonly number[]) => {
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
};

// ---------------------------------------------------------------------------
// TextTiling
// ---------------------------------------------------------------------------

export interface TextTilingOptions {
  /** Words per pseudo-sentence (Hearst: 20). */
  w: number;
  /** Pseudo-sentences per block compared at a gap (Hearst: 6-10; NLTK: 10). */
  k: number;
}

/**
 * Hearst's block comparison, as NLTK's TextTilingTokenizer runs it by
 * default: pseudo-sentences of w words, blocks of k on either side of each
 * gap, cosine of word counts, one round of moving-average smoothing (width
 * 2), depth scores, boundaries where depth > mean - sd / 2 (at least 4
 * pseudo-sentences apart), each moved to the nearest line start.
 */
export function textTiling(text: string, options: TextTilingOptions = { w: 20, k: 10 }): number[] {
  const { w, k } = options;
  const found: { word: string; at: number }[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = m[0].toLowerCase();
    if (!STOP_WORDS.has(word)) found.push({ word, at: m.index });
  }
  const pseudo: string[][] = [];
  const pseudoStart: number[] = [];
  for (let i = 0; i < found.length; i += w) {
    pseudo.push(found.slice(i, i + w).map((f) => f.word));
    pseudoStart.push(found[i]!.at);
  }
  const gaps = pseudo.length - 1;
  if (gaps < 1) return [];
  const raw: number[] = [];
  for (let g = 1; g <= gaps; g++) {
    const left = countsOf(pseudo.slice(Math.max(0, g - k), g).flat());
    const right = countsOf(pseudo.slice(g, g + k).flat());
    raw.push(cosine(left, right));
  }
  const scores = raw.map((_, i) => (raw[Math.max(0, i - 1)]! + raw[i]! + raw[Math.min(raw.length - 1, i + 1)]!) / 3);
  const depth = scores.map((s, i) => {
    let left = s;
    for (let j = i - 1; j >= 0 && scores[j]! >= left; j--) left = scores[j]!;
    let right = s;
    for (let j = i + 1; j < scores.length && scores[j]! >= right; j++) right = scores[j]!;
    return left - s + (right - s);
  });
  const cutoff = mean(depth) - sd(depth) / 2;
  const chosen: number[] = [];
  for (const i of depth.map((_, i) => i).sort((a, b) => depth[b]! - depth[a]!)) {
    if (depth[i]! <= cutoff) break;
    if (chosen.some((c) => Math.abs(c - i) < 4)) continue;
    chosen.push(i);
  }
  const starts = lineStarts(text);
  const out = new Set<number>();
  for (const i of chosen) {
    const at = nearest(starts, pseudoStart[i + 1]!);
    if (at !== undefined) out.add(at);
  }
  return [...out].sort((a, b) => a - b);
}

// ---------------------------------------------------------------------------
// C99
// ---------------------------------------------------------------------------

/** Sentences of each line (a line break always ends one: in the samples every line is a paragraph or a sentence). */
function sentencesByLine(text: string): { start: number; end: number }[] {
  const units: { start: number; end: number }[] = [];
  let from = 0;
  for (const line of text.split("\n")) {
    for (const s of sentenceSpans(line)) if (s.end > s.start) units.push({ start: from + s.start, end: from + s.end });
    from += line.length + 1;
  }
  return units;
}

/**
 * Choi's C99: a sentence similarity matrix (cosine of word counts), turned
 * into ranks within an 11 x 11 neighbourhood, then divisive clustering that
 * each time adds the boundary raising the inside density most; the number of
 * segments is where the density's gain falls below mean + 1.2 sd of the
 * gains. Boundaries are moved to the nearest line start.
 */
export function c99(text: string, mask = 11): number[] {
  const units = sentencesByLine(text);
  const n = units.length;
  if (n < 3) return [];
  const vectors = units.map((u) => countsOf(words(text.slice(u.start, u.end))));
  const sim = Array.from({ length: n }, () => new Float64Array(n));
  for (let i = 0; i < n; i++)
    for (let j = i; j < n; j++) {
      const s = i === j ? 1 : cosine(vectors[i]!, vectors[j]!);
      sim[i]![j] = s;
      sim[j]![i] = s;
    }
  const half = Math.floor(mask / 2);
  const rank = Array.from({ length: n }, () => new Float64Array(n));
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let lower = 0;
      let total = 0;
      for (let a = Math.max(0, i - half); a <= Math.min(n - 1, i + half); a++)
        for (let b = Math.max(0, j - half); b <= Math.min(n - 1, j + half); b++) {
          if (a === i && b === j) continue;
          total++;
          if (sim[a]![b]! < sim[i]![j]!) lower++;
        }
      rank[i]![j] = total > 0 ? lower / total : 0;
    }
  // prefix[i][j]: sum of rank[0..i) x [0..j).
  const prefix = Array.from({ length: n + 1 }, () => new Float64Array(n + 1));
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      prefix[i + 1]![j + 1] = rank[i]![j]! + prefix[i]![j + 1]! + prefix[i + 1]![j]! - prefix[i]![j]!;
  const inside = (a: number, b: number) => prefix[b]![b]! - prefix[a]![b]! - prefix[b]![a]! + prefix[a]![a]!;

  // Segments as sorted cut points [0, ..., n]; greedily add the cut maximising D = sum inside / sum area.
  const cuts = [0, n];
  const order: number[] = [];
  const densities: number[] = [inside(0, n) / (n * n)];
  let sum = inside(0, n);
  let area = n * n;
  while (cuts.length - 1 < n) {
    let best = -1;
    let bestD = -Infinity;
    let bestSum = 0;
    let bestArea = 0;
    for (let s = 0; s + 1 < cuts.length; s++) {
      const a = cuts[s]!;
      const b = cuts[s + 1]!;
      const whole = inside(a, b);
      for (let c = a + 1; c < b; c++) {
        const newSum = sum - whole + inside(a, c) + inside(c, b);
        const newArea = area - (b - a) ** 2 + (c - a) ** 2 + (b - c) ** 2;
        const d = newSum / newArea;
        if (d > bestD) {
          bestD = d;
          best = c;
          bestSum = newSum;
          bestArea = newArea;
        }
      }
    }
    if (best < 0) break;
    cuts.push(best);
    cuts.sort((x, y) => x - y);
    order.push(best);
    densities.push(bestD);
    sum = bestSum;
    area = bestArea;
  }
  const gains = densities.slice(1).map((d, i) => d - densities[i]!);
  if (gains.length === 0) return [];
  const threshold = mean(gains) + 1.2 * sd(gains);
  let segments = 0;
  while (segments < gains.length && gains[segments]! > threshold) segments++;
  const kept = order.slice(0, segments);
  const starts = lineStarts(text);
  const out = new Set<number>();
  for (const c of kept) {
    const at = nearest(starts, units[c]!.start);
    if (at !== undefined) out.add(at);
  }
  return [...out].sort((a, b) => a - b);
}
