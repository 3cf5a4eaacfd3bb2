/**
 * What the built-in sentence encoder (English) does with other languages,
 * measured on parallel text: GnuPG's online help, ~40 short entries on
 * different topics, in English and translated (Debian's gnupg package,
 * /usr/share/gnupg/help*.txt; not shipped with this repository).
 *
 * For each language, every pair of entries gets a similarity; how well those
 * similarities correlate (Pearson r over all pairs) with the English ones
 * says how much of the topical relations between the entries the vectors
 * still see in that language. Shown for the model, for the hashed word and
 * n-gram vectors the semantic tier mixes in, and for the two mixed as the
 * tier mixes them.
 *
 *   npx tsx scripts/measure-languages.ts [--dir /usr/share/gnupg]
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_TUNING } from "@/lib/chunking/semantic";
import { cosine } from "@/lib/chunking/semantic/topic-shifts";
import { HashedNgramEmbedder } from "@/lib/embeddings/hashed-ngrams";
import { SentenceEncoderEmbedder } from "@/lib/embeddings/sentence-encoder";

const LANGUAGES = ["de", "fr", "es", "it", "ru", "zh_CN", "ja"];

/** Entries of a GnuPG help file by key: a line ".key", the text, a line ".". */
function entries(file: string): Map<string, string> {
  const out = new Map<string, string>();
  let key: string | undefined;
  let lines: string[] = [];
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("#")) continue;
    if (line === ".") {
      const text = lines.join(" ").replace(/\s+/g, " ").trim();
      if (key && text) out.set(key, text);
      key = undefined;
    } else if (line.startsWith(".")) {
      key = line.slice(1);
      lines = [];
    } else if (key) lines.push(line);
  }
  return out;
}

function pairSimilarities(vectors: Float32Array[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < vectors.length; i++)
    for (let j = i + 1; j < vectors.length; j++) out.push(cosine(vectors[i]!, vectors[j]!));
  return out;
}

function pearson(x: number[], y: number[]): number {
  const mx = x.reduce((a, b) => a + b, 0) / x.length;
  const my = y.reduce((a, b) => a + b, 0) / y.length;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  x.forEach((xi, i) => {
    sxy += (xi - mx) * (y[i]! - my);
    sxx += (xi - mx) ** 2;
    syy += (y[i]! - my) ** 2;
  });
  return sxy / Math.sqrt(sxx * syy);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { dir: { type: "string", default: "/usr/share/gnupg" } } });
  const english = path.join(values.dir, "help.txt");
  if (!fs.existsSync(english)) {
    console.log(`Skipped: no ${english} (Debian's gnupg package).`);
    return;
  }
  const model = new SentenceEncoderEmbedder();
  const lexical = new HashedNgramEmbedder();
  const w = DEFAULT_TUNING.lexicalWeight;
  const reference = entries(english);
  const rows: string[] = [
    "| language | entries | model r | word overlap r | mixed r | model: mean similarity of two entries |",
    "|---|---|---|---|---|---|",
  ];
  for (const language of ["en", ...LANGUAGES]) {
    const file = path.join(values.dir, language === "en" ? "help.txt" : `help.${language}.txt`);
    if (!fs.existsSync(file)) continue;
    const translated = entries(file);
    const keys = [...reference.keys()].filter((k) => translated.has(k));
    const en = keys.map((k) => reference.get(k)!);
    const texts = keys.map((k) => translated.get(k)!);
    const [enModel, model2] = [await model.embed(en), await model.embed(texts)];
    const [enWords, words2] = [en.map((t) => lexical.embedOne(t)), texts.map((t) => lexical.embedOne(t))];
    const sims = {
      enModel: pairSimilarities(enModel),
      model: pairSimilarities(model2),
      enWords: pairSimilarities(enWords),
      words: pairSimilarities(words2),
    };
    const mixed = (m: number[], l: number[]) => m.map((x, i) => (1 - w) * x + w * l[i]!);
    const r = (x: number[], y: number[]) => pearson(x, y).toFixed(2);
    const mean = sims.model.reduce((a, b) => a + b, 0) / sims.model.length;
    rows.push(
      `| ${language} | ${keys.length} | ${r(sims.model, sims.enModel)} | ${r(sims.words, sims.enWords)} | ${r(mixed(sims.model, sims.words), mixed(sims.enModel, sims.enWords))} | ${mean.toFixed(2)} |`,
    );
  }
  console.log(
    "Correlation with English of the similarities between GnuPG help entries (1 = the same relations seen):\n",
  );
  console.log(rows.join("\n"));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
