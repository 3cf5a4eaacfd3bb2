import { z } from "zod";
import { ENTITY_TYPES, Entity } from "@/lib/api-schema";

/**
 * What the AI tiers ask a model and the answers they accept: one schema and
 * one message layout per task. The model answers JSON checked against the
 * schema (`response_format: json_schema`, strict); anything else is a bad
 * reply. The local stand-in model (standin/) reads the same layouts.
 */

/** Which of the numbered units start a new section. */
export const SectionStarts = z.object({
  starts: z.array(z.number().int().nonnegative()),
});
export type SectionStarts = z.infer<typeof SectionStarts>;

/** A summary and the named entities of each chunk shown. */
export const ChunkEnrichment = z.object({
  chunks: z.array(z.object({ index: z.number().int().nonnegative(), summary: z.string(), entities: z.array(Entity) })),
});
export type ChunkEnrichment = z.infer<typeof ChunkEnrichment>;

/** The whole document in a few sentences, from its chunks' summaries. */
export const DocumentSummary = z.object({ summary: z.string() });
export type DocumentSummary = z.infer<typeof DocumentSummary>;

/** A short context situating each chunk shown within its document (contextual retrieval). */
export const ChunkContexts = z.object({
  contexts: z.array(z.object({ index: z.number().int().nonnegative(), context: z.string() })),
});
export type ChunkContexts = z.infer<typeof ChunkContexts>;

export interface Task<T> {
  /** The `json_schema.name` sent with the request; the stand-in answers by it. */
  name: string;
  schema: z.ZodType<T>;
  system: string;
}

export const SECTION_STARTS_TASK: Task<SectionStarts> = {
  name: "section_starts",
  schema: SectionStarts,
  system: [
    "You segment documents into sections for a retrieval system.",
    "You see a run of numbered units (paragraphs, or sentences of long paragraphs) from one document.",
    "A unit starts a new section when it begins a new topic, part, message, clause or speaker turn that a reader would want retrieved on its own.",
    "Headings start sections. Keep a heading with the text it introduces, and keep lead-ins with what they introduce.",
    'Answer with {"starts": [...]}: the numbers, as shown in brackets, of the units that start a new section. Include the first unit only if it starts a new section itself.',
  ].join("\n"),
};

export const CHUNK_ENRICHMENT_TASK: Task<ChunkEnrichment> = {
  name: "chunk_enrichment",
  schema: ChunkEnrichment,
  system: [
    "You annotate chunks of a document for a retrieval system.",
    "For every chunk shown, write a one- or two-sentence summary of what it says (not what it is), and list the named entities it mentions.",
    `Entity types: ${ENTITY_TYPES.join(", ")}. Use the entity's text as written in the chunk; list each entity once per chunk.`,
    'Answer with {"chunks": [{"index": <the chunk\'s index as shown>, "summary": "...", "entities": [{"text": "...", "type": "..."}]}]}, one entry per chunk shown.',
  ].join("\n"),
};

export const DOCUMENT_SUMMARY_TASK: Task<DocumentSummary> = {
  name: "document_summary",
  schema: DocumentSummary,
  system: [
    "You summarise documents for a retrieval system.",
    "You see the summaries of a document's sections, in order. Write a summary of the whole document in three to five sentences.",
    'Answer with {"summary": "..."}.',
  ].join("\n"),
};

/** Anthropic's contextual-retrieval prompt, asked for several chunks at once. */
export const CHUNK_CONTEXT_TASK: Task<ChunkContexts> = {
  name: "chunk_context",
  schema: ChunkContexts,
  system: [
    "You situate chunks of a document for a search retrieval system.",
    "You see the document (or, when it is long, its summary and the text around the chunks), then several chunks of it.",
    "For every chunk, give a short succinct context, one or two sentences, to situate this chunk within the overall document for the purposes of improving search retrieval of the chunk: what the document is and where this chunk sits in it. Do not repeat the chunk.",
    'Answer with {"contexts": [{"index": <the chunk\'s index as shown>, "context": "..."}]}, one entry per chunk shown.',
  ].join("\n"),
};

/** A unit as the model sees it: long ones keep their head and tail, enough to judge where topics change. */
const SHOWN_CHARS = 600;

export function showUnit(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= SHOWN_CHARS) return flat;
  return `${flat.slice(0, SHOWN_CHARS * 0.7)} … ${flat.slice(flat.length - SHOWN_CHARS * 0.25)}`;
}

/** `[12] text` lines, one per unit as `showUnit` shows it, numbered from `first`. */
export function sectionStartsMessage(shownUnits: readonly string[], first: number): string {
  const lines = shownUnits.map((unit, k) => `[${first + k}] ${unit}`);
  return `Units ${first} to ${first + shownUnits.length - 1}:\n${lines.join("\n")}`;
}

/** Each chunk in a `<chunk index="N">` element. */
export function chunkEnrichmentMessage(chunks: ReadonlyArray<{ index: number; text: string }>): string {
  return chunks.map((c) => `<chunk index="${c.index}">\n${c.text}\n</chunk>`).join("\n\n");
}

/** Section summaries as a numbered list. */
export function documentSummaryMessage(summaries: readonly string[]): string {
  return `Section summaries:\n${summaries.map((s, k) => `${k + 1}. ${s}`).join("\n")}`;
}

/**
 * The document (or its summary and the batch's surroundings), then the chunks. The document comes first so that
 * every call of a document starts with the same text: providers that cache prompt prefixes bill it once.
 */
export function chunkContextMessage(
  document: { whole: string } | { summary: string; before: string; after: string },
  chunks: ReadonlyArray<{ index: number; text: string }>,
): string {
  const head =
    "whole" in document
      ? `<document>\n${document.whole}\n</document>`
      : `<document_summary>\n${document.summary}\n</document_summary>\n\n<text_before_chunks>\n${document.before}\n</text_before_chunks>\n\n<text_after_chunks>\n${document.after}\n</text_after_chunks>`;
  return `${head}\n\nHere are the chunks we want to situate within the whole document:\n\n${chunkEnrichmentMessage(chunks)}`;
}
