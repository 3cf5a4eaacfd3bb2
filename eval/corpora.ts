import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { Config } from "@/lib/ground/config";
import type { Extracted } from "@/lib/extract/types";
import { extractDocument, loaded } from "@/lib/pipeline/chunk-result";
import { parseCsv } from "./csv";
import { LocateError, locateExcerpt, trimRange } from "./locate";
import type { Range } from "./metrics";

/** A document with annotated answer excerpts, located in its extracted text. */
export interface QaDocument {
  id: string;
  /** Corpus name, for the per-corpus table. */
  corpus: string;
  extracted: Extracted;
  excerpts: Range[];
  /** Each question with the excerpts that answer it (some of `excerpts`), for the retrieval measure. */
  questions: Question[];
}

export interface Question {
  question: string;
  excerpts: Range[];
}

type Limits = Config["limits"];

/** Bytes → extracted text through the same core the API uses. */
export function extractBytes(bytes: Uint8Array, filename: string, limits: Limits): Promise<Extracted> {
  // The evaluation reads no scans: OCR settings are the defaults.
  return extractDocument(loaded({ bytes, filename }), {
    limits,
    ocr: { languages: ["eng"], syncMaxPages: limits.maxPagesPerRequest, jobMaxPages: limits.maxPagesPerRequest },
  });
}

// ---------------------------------------------------------------------------
// chroma-dev: the Chroma report's corpora (read-only, from the shared folder)
// ---------------------------------------------------------------------------

const Reference = z.object({
  content: z.string().min(1),
  start_index: z.number().int().nonnegative(),
  end_index: z.number().int().nonnegative(),
});
const QuestionRow = z.object({
  question: z.string(),
  references: z.string().transform((s, ctx) => {
    try {
      return z.array(Reference).min(1).parse(JSON.parse(s));
    } catch (error) {
      ctx.addIssue({ code: "custom", message: `references is not a JSON list of excerpts: ${String(error)}` });
      return z.NEVER;
    }
  }),
  corpus_id: z.string().min(1),
});

/** The files of the chroma-dev data (kept outside the repository) that are not in `dir`. */
export function missingChromaFiles(dir: string): string[] {
  return ["wikitexts.md", "chatlogs.md", "questions.csv"].filter((file) => !fs.existsSync(path.join(dir, file)));
}

/**
 * `questions.csv` gives excerpts as offsets into the corpus files. Extraction
 * leaves Markdown text unchanged (newlines aside), so each is checked to be
 * at its offset and otherwise found by its text nearest to that offset.
 */
export async function loadChromaDev(dir: string, limits: Limits): Promise<QaDocument[]> {
  const questionsFile = path.join(dir, "questions.csv");
  if (!fs.existsSync(questionsFile))
    throw new Error(
      `chroma-dev data not found: ${questionsFile} is missing (expected the shared eval data at ${dir}; pass --chroma-dir)`,
    );
  const rows = parseCsv(fs.readFileSync(questionsFile, "utf8")).map((row, i) => {
    const parsed = QuestionRow.safeParse(row);
    if (!parsed.success) throw new Error(`${questionsFile} row ${i + 2}: ${parsed.error.message}`);
    return parsed.data;
  });
  const corpora = [...new Set(rows.map((r) => r.corpus_id))].sort();
  const documents: QaDocument[] = [];
  for (const corpus of corpora) {
    const file = path.join(dir, `${corpus}.md`);
    if (!fs.existsSync(file)) throw new Error(`chroma-dev corpus missing: ${file}`);
    const extracted = await extractBytes(new Uint8Array(fs.readFileSync(file)), `${corpus}.md`, limits);
    const questions: Question[] = rows
      .filter((r) => r.corpus_id === corpus)
      .map((row) => ({
        question: row.question,
        excerpts: row.references.map((ref) => {
          const atOffset = extracted.text.slice(ref.start_index, ref.end_index) === ref.content;
          const range = atOffset
            ? { start: ref.start_index, end: ref.end_index }
            : locateExcerpt(extracted.text, ref.content, ref.start_index);
          return trimRange(extracted.text, range);
        }),
      }));
    const excerpts = questions.flatMap((q) => q.excerpts);
    documents.push({ id: `chroma-dev/${corpus}`, corpus: `chroma ${corpus}`, extracted, excerpts, questions });
  }
  return documents;
}

// ---------------------------------------------------------------------------
// The project's own annotated documents (eval/corpora/)
// ---------------------------------------------------------------------------

const Annotation = z.object({
  question: z.string().min(1),
  /** Verbatim text of the document (whitespace may differ in PDFs); must occur once. */
  excerpt: z.string().min(1),
});
export const AnnotationFile = z.object({
  document: z.string().min(1),
  questions: z.array(Annotation).min(1),
});
export type Annotations = z.infer<typeof AnnotationFile>;

/** Excerpts of an annotation file, located in the extracted text; a missing or ambiguous excerpt is an error. */
export function locateAnnotations(id: string, extracted: Extracted, questions: z.infer<typeof Annotation>[]): Range[] {
  return questions.map((q) => {
    try {
      return trimRange(extracted.text, locateExcerpt(extracted.text, q.excerpt));
    } catch (error) {
      if (error instanceof LocateError)
        throw new Error(`${id}: question ${JSON.stringify(q.question)}: ${error.message}`);
      throw error;
    }
  });
}
