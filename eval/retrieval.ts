import type { Embedder } from "@/lib/embeddings/types";
import { splitDocument } from "@/lib/chunking";
import { cosine } from "@/lib/chunking/semantic/topic-shifts";
import { documentTitle, embedText, pageUnit } from "@/lib/formats/embed-text";
import type { DocumentRef } from "@/lib/formats";
import type { TierId } from "@/lib/tiers";
import type { QaDocument } from "./corpora";
import { type Range, union } from "./metrics";

/**
 * Retrieval with a chunk's `text` against its `embed_text`: each question embedded with the built-in encoder,
 * the document's chunks ranked by cosine, and recall at k the share of the question's reference characters
 * that the top k chunks cover (Chroma's token-level recall, in characters). The same chunks, the same
 * embedder: only what is embedded differs.
 */

export const RETRIEVAL_K = 5;

export interface RetrievalScores {
  tier: TierId;
  corpus: string;
  questions: number;
  text: number;
  embedText: number;
}

const length = (ranges: readonly Range[]) => ranges.reduce((n, r) => n + r.end - r.start, 0);

/** The share of `reference` that `found` covers. */
export function coveredShare(reference: readonly Range[], found: readonly Range[]): number {
  const wanted = union(reference);
  const got = union(found);
  let covered = 0;
  for (const w of wanted)
    for (const g of got) covered += Math.max(0, Math.min(w.end, g.end) - Math.max(w.start, g.start));
  return length(wanted) ? covered / length(wanted) : Number.NaN;
}

/** The top-k chunks' ranges for a question vector. */
function topK(question: Float32Array, chunks: { range: Range; vector: Float32Array }[], k: number): Range[] {
  return chunks
    .map((chunk) => ({ range: chunk.range, score: cosine(question, chunk.vector) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map((chunk) => chunk.range);
}

export async function retrievalScores(
  documents: QaDocument[],
  tiers: TierId[],
  maxTokens: number,
  embedder: Embedder,
): Promise<RetrievalScores[]> {
  const scores: RetrievalScores[] = [];
  for (const tier of tiers) {
    const byCorpus = new Map<string, { questions: number; text: number; embedText: number }>();
    for (const doc of documents) {
      if (doc.questions.length === 0) continue;
      const chunks = await splitDocument(doc.extracted, tier, { maxTokens, overlapTokens: 0 }, { embedder });
      const ref: DocumentRef = {
        documentId: doc.id,
        filename: doc.id,
        tier,
        maxTokens,
        overlapTokens: 0,
        title: documentTitle(doc.id.split("/").pop()!),
        pageUnit: pageUnit(doc.extracted.kind),
      };
      const ranges = chunks.map((c) => ({ start: c.metadata.start, end: c.metadata.end }));
      const [textVectors, embedVectors, questionVectors] = await Promise.all([
        embedder.embed(chunks.map((c) => c.text)),
        embedder.embed(chunks.map((c) => embedText(c, ref))),
        embedder.embed(doc.questions.map((q) => q.question)),
      ]);
      const corpus = byCorpus.get(doc.corpus) ?? { questions: 0, text: 0, embedText: 0 };
      doc.questions.forEach((q, i) => {
        const asked = questionVectors[i]!;
        const withText = topK(
          asked,
          ranges.map((range, c) => ({ range, vector: textVectors[c]! })),
          RETRIEVAL_K,
        );
        const withPrefix = topK(
          asked,
          ranges.map((range, c) => ({ range, vector: embedVectors[c]! })),
          RETRIEVAL_K,
        );
        corpus.questions++;
        corpus.text += coveredShare(q.excerpts, withText);
        corpus.embedText += coveredShare(q.excerpts, withPrefix);
      });
      byCorpus.set(doc.corpus, corpus);
    }
    for (const [corpus, c] of byCorpus)
      scores.push({
        tier,
        corpus,
        questions: c.questions,
        text: c.text / c.questions,
        embedText: c.embedText / c.questions,
      });
  }
  return scores;
}

/** The report's section: one row per tier and corpus, recall@k with `text` and with `embed_text`. */
export function retrievalSection(scores: RetrievalScores[], maxTokens: number, embedderId: string): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const rows = scores.map(
    (s) =>
      `| ${s.tier} | ${s.corpus} | ${s.questions} | ${pct(s.text)} | ${pct(s.embedText)} | ${s.embedText >= s.text ? "+" : ""}${((s.embedText - s.text) * 100).toFixed(1)} |`,
  );
  return [
    `### Retrieval: embedding \`text\` or \`embed_text\` (recall@${RETRIEVAL_K}, ${maxTokens} tokens)`,
    "",
    `Each question embedded with ${embedderId}; the document's chunks ranked by cosine; recall@${RETRIEVAL_K} is the share of the question's reference characters the top ${RETRIEVAL_K} chunks cover. The same chunks both times; only what is embedded differs. \`embed_text\` is the deterministic prefix (document, section path, page) and the text; nothing was tuned on these questions.`,
    "",
    "| tier | corpus | questions | text | embed_text | points |",
    "|---|---|---:|---:|---:|---:|",
    ...rows,
    "",
  ].join("\n");
}
