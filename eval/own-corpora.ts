import fs from "node:fs";
import path from "node:path";
import type { Config } from "@/lib/ground/config";
import { AnnotationFile, type Annotations, type QaDocument, extractBytes, locateAnnotations } from "./corpora";
import { renderPdf } from "./pdf-fixture";
import type { Range } from "./metrics";
import { type SourceDocument, chatConversations, markdownProse, plainProse, wikitextArticles } from "./segmentation";

/**
 * The project's own documents under eval/corpora/ (origins and licences in
 * eval/corpora/ORIGIN.md):
 *   markdown/NAME.md + NAME.questions.json   technical docs with code, tables, nested lists
 *   pdf/NAME.md + NAME.questions.json        rendered to a PDF with pdf-lib at run time
 *   segmentation/*.txt                        extra prose genres for the segmentation set
 */
export const CORPORA_DIR = path.resolve(import.meta.dirname, "corpora");

function annotated(dir: string): Array<{ name: string; source: string; questions: Annotations }> {
  if (!fs.existsSync(dir)) throw new Error(`corpus folder missing: ${dir}`);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".questions.json"))
    .sort()
    .map((f) => {
      const questions = AnnotationFile.parse(JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")));
      const source = path.join(dir, questions.document);
      if (!fs.existsSync(source)) throw new Error(`${f}: document ${questions.document} missing`);
      return { name: f.replace(/\.questions\.json$/, ""), source, questions };
    });
}

/** An annotation file's excerpts, and each question with its one excerpt. */
const withQuestions = (excerpts: Range[], annotations: Annotations) => ({
  excerpts,
  questions: annotations.questions.map((q, i) => ({ question: q.question, excerpts: [excerpts[i]!] })),
});

export async function loadOwnCorpora(
  limits: Config["limits"],
  which: { markdown: boolean; pdf: boolean },
): Promise<QaDocument[]> {
  const documents: QaDocument[] = [];
  if (which.markdown) {
    for (const { name, source, questions } of annotated(path.join(CORPORA_DIR, "markdown"))) {
      const extracted = await extractBytes(new Uint8Array(fs.readFileSync(source)), path.basename(source), limits);
      documents.push({
        id: `markdown/${name}`,
        corpus: "markdown",
        extracted,
        ...withQuestions(locateAnnotations(`markdown/${name}`, extracted, questions.questions), questions),
      });
    }
  }
  if (which.pdf) {
    for (const { name, source, questions } of annotated(path.join(CORPORA_DIR, "pdf"))) {
      const bytes = await renderPdf(fs.readFileSync(source, "utf8"));
      const extracted = await extractBytes(bytes, `${name}.pdf`, limits);
      documents.push({
        id: `pdf/${name}`,
        corpus: "pdf",
        extracted,
        ...withQuestions(locateAnnotations(`pdf/${name}`, extracted, questions.questions), questions),
      });
    }
  }
  return documents;
}

/**
 * Prose for the segmentation set: the chroma-dev articles and chats (when
 * `chromaDir` is given), and the project's own documents of other genres.
 */
export function segmentationSources(chromaDir: string | null): SourceDocument[] {
  const read = (file: string) => {
    if (!fs.existsSync(file)) throw new Error(`segmentation source missing: ${file}`);
    return fs.readFileSync(file, "utf8");
  };
  const sources: SourceDocument[] = chromaDir
    ? [
        ...wikitextArticles(read(path.join(chromaDir, "wikitexts.md")), "wikitexts"),
        ...chatConversations(read(path.join(chromaDir, "chatlogs.md")), "chatlogs"),
      ]
    : [];
  for (const [dir, genre] of [
    ["markdown", "software docs"],
    ["pdf", "handbook"],
  ] as const) {
    const full = path.join(CORPORA_DIR, dir);
    for (const f of fs
      .readdirSync(full)
      .filter((x) => x.endsWith(".md"))
      .sort())
      sources.push(markdownProse(read(path.join(full, f)), `${dir}/${f}`, genre));
  }
  const extra = path.join(CORPORA_DIR, "segmentation");
  for (const f of fs
    .readdirSync(extra)
    .filter((x) => x.endsWith(".txt"))
    .sort()) {
    // File names are GENRE--NAME.txt.
    const genre = f.split("--")[0]!;
    sources.push(plainProse(read(path.join(extra, f)), `segmentation/${f}`, genre));
  }
  return sources;
}

/**
 * Text PDFs to make scans of: the PDF corpus rendered as its documents are,
 * and the tests' two PDF fixtures with running headers and lists
 * (tests/fixtures/README.md), whose origin and words are the project's own.
 */
export async function scanSources(): Promise<Array<{ name: string; pdf: Uint8Array }>> {
  const corpus = await Promise.all(
    annotated(path.join(CORPORA_DIR, "pdf")).map(async ({ name, source }) => ({
      name: `pdf/${name}`,
      pdf: await renderPdf(fs.readFileSync(source, "utf8")),
    })),
  );
  const fixtures = ["structured.pdf", "multipage.pdf"].map((name) => ({
    name: `tests/fixtures/${name}`,
    pdf: new Uint8Array(fs.readFileSync(path.resolve(CORPORA_DIR, "../../tests/fixtures", name))),
  }));
  return [...corpus, ...fixtures];
}
