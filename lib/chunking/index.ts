import type { Embedder } from "@/lib/embeddings/types";
import type { DocumentPart, Extracted } from "@/lib/extract/types";
import { detectLanguage, loadLanguageDetector } from "@/lib/language/detect";
import { loadTokenizer } from "@/lib/tokens";
import { type SplitterKey, TIERS, type TierId } from "@/lib/tiers";
import { provenance } from "./provenance";
import { splitRecursive } from "./recursive";
import { splitSemantic } from "./semantic";
import { splitStructure, structureFlavor } from "./structure";
import type { Chunk, Span, SplitOptions } from "./types";

type Split = (source: Extracted, options: SplitOptions, context: SplitContext) => Span[] | Promise<Span[]>;

/** The CPU side's inputs beside the text: the semantic tier's embedder, and the section starts a model found (AI tiers). */
interface SplitContext {
  embedder: Embedder;
  sectionStarts?: number[];
}

/**
 * The AI tiers' method: a model finds section boundaries (lib/ai/boundary-windows.ts),
 * the structure splitter cuts along them and the headings, within `maxTokens`.
 * Where the model's answers were unusable, the structure splitter alone decides.
 */
const alongSections: Split = (source, options, context) =>
  splitStructure(source.text, {
    ...options,
    flavor: structureFlavor(source),
    sectionStarts: context.sectionStarts ?? [],
  });

/** The splitters a tier's record names by key (lib/tiers stays free of this code: the page imports it). */
const SPLITTERS: Record<SplitterKey, Split> = {
  recursive: (source, options) => splitRecursive(source.text, options),
  structure: (source, options) => splitStructure(source.text, { ...options, flavor: structureFlavor(source) }),
  semantic: (source, options, context) =>
    splitSemantic(source.text, { ...options, flavor: structureFlavor(source) }, context.embedder),
  alongSections,
};

const splitterOf = (tier: TierId) => SPLITTERS[TIERS[tier].splitter];

/** `char_count` counts Unicode code points (what "characters" means to most clients); `start`/`end` are UTF-16 offsets, JavaScript string indices. */
function countCodePoints(text: string): number {
  let surrogates = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) surrogates++;
  }
  return text.length - surrogates;
}

/** The CPU side of every tier: the document's chunks, with their metadata. Runs in a worker thread in the service (lib/cpu). */
export async function splitDocument(
  source: Extracted,
  tier: TierId,
  options: SplitOptions,
  context: SplitContext,
): Promise<Chunk[]> {
  await Promise.all([loadTokenizer(options.tokenizer), loadLanguageDetector()]);
  const spans = source.parts?.length
    ? await splitParts(source, source.parts, tier, options, context)
    : await splitterOf(tier)(source, options, context);
  return spans.map((span, index) => {
    const text = span.text ?? source.text.slice(span.start, span.end);
    const chunk: Chunk = {
      text,
      metadata: {
        chunk_index: index,
        char_count: countCodePoints(text),
        start: span.start,
        end: span.end,
        token_count: span.tokenCount,
      },
    };
    const language = detectLanguage(text);
    if (language) chunk.metadata.language = language;
    if (span.headings) chunk.metadata.headings = span.headings;
    Object.assign(chunk.metadata, provenance(source, span.start, span.end));
    return chunk;
  });
}

/**
 * An e-mail's body and attachments, each chunked as a document of its own (no chunk spans two), their spans
 * shifted back into the whole text. A part's text is `source.text.slice(start, end)`, so offsets hold.
 */
async function splitParts(
  source: Extracted,
  parts: DocumentPart[],
  tier: TierId,
  options: SplitOptions,
  context: SplitContext,
): Promise<Span[]> {
  const spans: Span[] = [];
  for (const part of parts) {
    const text = source.text.slice(part.start, part.end);
    const sectionStarts = context.sectionStarts
      ?.filter((at) => at >= part.start && at < part.end)
      .map((at) => at - part.start);
    const alone: Extracted = { kind: source.kind, mediaType: source.mediaType, text, pageCount: source.pageCount };
    const found = await splitterOf(tier)(alone, options, { ...context, sectionStarts });
    for (const span of found) spans.push({ ...span, start: span.start + part.start, end: span.end + part.start });
  }
  return spans;
}
