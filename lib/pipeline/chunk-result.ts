import { countPages } from "@/lib/observability/metrics";
import { sha256Hex } from "@/lib/ground/sha256";
import type { AnswerCache } from "@/lib/ai/answer-cache";
import { situateChunks } from "@/lib/ai/context";
import { enrichChunks } from "@/lib/ai/enrich";
import { requireModel } from "@/lib/ai/model-client";
import { type ModelContext, modelBoundaries } from "@/lib/ai/tier-boundaries";
import type { ChunkOptions, ChunkingResult } from "@/lib/api-schema";
import { splitDocument } from "@/lib/chunking";
import type { Chunk, SplitOptions } from "@/lib/chunking/types";
import type { Embedder } from "@/lib/embeddings/types";
import type { Config } from "@/lib/ground/config";
import { type CpuRunner, chunkOnCpu, inThisThread, extractStepsOnCpu } from "@/lib/cpu/pool";
import { ApiError } from "@/lib/ground/errors";
import { DEFAULT_READING, extract, type ReadingOptions } from "@/lib/extract";
import type { ExtractSteps } from "@/lib/extract/steps";
import { stepsHere } from "@/lib/extract/steps-here";
import type { Detected } from "@/lib/extract/detect";
import type { Extracted } from "@/lib/extract/types";
import type { OutputFormat } from "@/lib/formats";
import { documentTitle, pageUnit } from "@/lib/formats/embed-text";
import { TIERS, TIER_IDS, type Tier, type TierId } from "@/lib/tiers";
import { DEFAULT_TOKENIZER, type TokenizerName } from "@/lib/tokens/names";
import { installedLanguages } from "@/lib/ground/ocr-language-data";

/**
 * A document's chunking result without HTTP, quota or payment: options
 * resolved, the document loaded and extracted, chunked, enriched (ai-pro) and
 * formatted. Shared by the request pipeline, async jobs and the command line.
 */

/** What a tier's method may use besides the text: side effects arrive here, chosen at start-up. */
export interface MethodContext extends ModelContext {
  embedder: Embedder;
  /** `context=true`: the bounds of its model calls, and where answers are kept across requests (the request fails without the bounds). */
  situating?: Config["ai"]["context"] & { cache?: AnswerCache };
}

export interface ResolvedOptions {
  maxTokens: number;
  overlapTokens: number;
  outputFormat: OutputFormat;
  /** Slide decks: speaker notes under "## Notes" (request option `include_notes`, default true). */
  includeNotes: boolean;
  /** Absent: o200k_base. */
  tokenizer?: TokenizerName;
  /** Tesseract's codes for this request's scanned pages; absent: the server's OCR_LANGUAGES. */
  ocrLanguages?: string[];
  /** AI tiers: a model-written context per chunk (request option `context`); absent: none. */
  context?: true;
}

/** The tiers whose model can write each chunk's context (`context=true`). */
const SITUATING_TIERS = TIER_IDS.filter((id) => TIERS[id].situates);

/** `context=true` on a tier with no model to write the context: refused, single requests and batches alike. */
export function refuseContextWithoutModel(tier: Tier, options: ResolvedOptions): void {
  if (options.context && !tier.situates)
    throw new ApiError(
      "invalid_options",
      `context=true is for the ${SITUATING_TIERS.join(" and ")} tiers, whose model writes each chunk's context; the ${tier.id} tier has no model. Every tier's embed_text already starts with the document, section and page.`,
    );
}

/**
 * The request's options checked against this server's bounds and installed
 * OCR languages (`installed`, read from node_modules unless a caller says).
 */
export function resolveOptions(
  input: ChunkOptions,
  chunking: Config["chunking"],
  installed: () => readonly string[] = installedLanguages,
): ResolvedOptions {
  const maxTokens = input.max_tokens ?? chunking.defaultMaxTokens;
  if (maxTokens < chunking.minMaxTokens || maxTokens > chunking.maxMaxTokens)
    throw new ApiError(
      "invalid_options",
      `max_tokens must be between ${chunking.minMaxTokens} and ${chunking.maxMaxTokens}.`,
    );
  const overlapTokens = input.overlap_tokens ?? Math.min(chunking.defaultOverlapTokens, Math.floor(maxTokens / 2));
  if (overlapTokens < 0 || overlapTokens * 2 > maxTokens)
    throw new ApiError("invalid_options", "overlap_tokens must be between 0 and half of max_tokens.");
  const resolved: ResolvedOptions = {
    maxTokens,
    overlapTokens,
    outputFormat: input.output_format ?? "raw",
    includeNotes: input.include_notes ?? true,
  };
  // The default is left out, so a paid request's key (options included) is what it was before tokenizers were an option.
  if (input.tokenizer && input.tokenizer !== DEFAULT_TOKENIZER) resolved.tokenizer = input.tokenizer;
  // Left out when false, like the tokenizer: a paid request's key stays what it was before the option existed.
  if (input.context === true) resolved.context = true;
  if (input.ocr_languages !== undefined) resolved.ocrLanguages = ocrLanguages(input.ocr_languages, installed());
  return resolved;
}

/** `eng+deu` as Tesseract's codes, each installed, none twice; otherwise a 400 naming the installed ones. */
function ocrLanguages(value: string, installed: readonly string[]): string[] {
  const codes = [...new Set(value.split("+").map((code) => code.trim()))];
  const unknown = codes.filter((code) => !installed.includes(code));
  if (unknown.length > 0 || codes.length === 0)
    throw new ApiError(
      "invalid_options",
      `ocr_languages: ${unknown.map((code) => JSON.stringify(code)).join(", ") || "empty"} not installed here; installed: ${installed.join(", ")} (several joined by "+").`,
    );
  return codes;
}

export interface Loaded {
  bytes: Uint8Array;
  filename: string;
  contentType?: string;
  documentId: string;
  /** What the bytes are, when already found (a request's upload is detected before payment): not decoded twice. */
  detected?: Detected;
}

/** A document ready for extraction, with a stable id from its bytes (record ids in the vector-store formats derive from it). */
export function loaded(
  source: { bytes: Uint8Array; filename?: string; contentType?: string },
  known: { detected?: Detected } = {},
): Loaded {
  return {
    bytes: source.bytes,
    // A display name only: never used as a key or a path.
    filename: source.filename?.slice(0, 255) || "document",
    contentType: source.contentType,
    documentId: sha256Hex(source.bytes).slice(0, 32),
    detected: known.detected,
  };
}

/** The settings extraction reads, with the request's OCR languages in place of the server's when it gave some. */
export function withOcrLanguages<C extends Pick<Config, "ocr">>(config: C, options: ResolvedOptions): C {
  return options.ocrLanguages ? { ...config, ocr: { ...config.ocr, languages: options.ocrLanguages } } : config;
}

/**
 * `cpu`: where a PDF's layout and OCR run (the service's pool); this thread without it. `job`: an async job's
 * extraction, with a job's OCR page and time limits, telling `onPageRead` of each page OCR reads, its OCR'd pages
 * kept in (and taken from) `pages` and its PDF's parsed pages in `textLayer`, timed by its slice's clock.
 */
export function extractDocument(
  doc: Loaded,
  config: Pick<Config, "limits" | "ocr">,
  cpu?: CpuRunner,
  job?: Pick<ExtractSteps, "pages" | "textLayer" | "slice"> & { onPageRead: (done: number, total: number) => void },
  reading: ReadingOptions = DEFAULT_READING,
): Promise<Extracted> {
  const { limits, ocr } = config;
  const steps = cpu ? extractStepsOnCpu(cpu, ocr.languages) : stepsHere(ocr.languages);
  return extract(
    doc.bytes,
    { filename: doc.filename, contentType: doc.contentType },
    {
      maxUnpackedBytes: limits.maxUnpackedBytes,
      markup: limits.markup,
      maxEmailDepth: limits.maxEmailDepth,
      maxSheetCells: limits.maxSheetCells,
      maxChars: limits.maxCharsPerRequest,
      maxPages: limits.maxPagesPerRequest,
      maxOcrPages: job ? ocr.jobMaxPages : ocr.syncMaxPages,
      timeoutMs: job ? limits.jobExtractTimeoutMs : limits.extractTimeoutMs,
      ...(job ? {} : { maxOcrPagesAsync: ocr.jobMaxPages }),
    },
    job ? { ...steps, ...job } : steps,
    doc.detected,
    reading,
  ).then((extracted) => {
    const ocr = extracted.ocrPages?.length ?? 0;
    countPages(extracted.pageCount - ocr, ocr);
    return extracted;
  });
}

/** A result with its chunks' records still as the JSON the worker made of them (a large result is never parsed again). */
export interface BuiltResult extends Omit<ChunkingResult, "chunks" | "payment"> {
  chunksJson: string;
}

/** The JSON of `fields` (an object with at least one field) with `chunks` appended from their JSON, without parsing it. */
export const resultJson = (fields: object, chunksJson: string) =>
  `${JSON.stringify(fields).slice(0, -1)},"chunks":${chunksJson}}`;

/**
 * Chunking, enrichment (ai-pro) and formatting without HTTP, quota or payment: shared by the pipeline, jobs and
 * the command-line entry. The model calls run here; the CPU work on `context.cpu` (this thread without it).
 */
export async function buildResult(
  doc: Loaded,
  extracted: Extracted,
  tier: TierId,
  options: ResolvedOptions,
  context: MethodContext & { cpu?: CpuRunner },
): Promise<BuiltResult> {
  const cpu = context.cpu ?? inThisThread;
  const split: SplitOptions = {
    maxTokens: options.maxTokens,
    overlapTokens: options.overlapTokens,
    tokenizer: options.tokenizer ?? DEFAULT_TOKENIZER,
  };
  const record = TIERS[tier];
  const found = record.model ? await modelBoundaries(extracted.text, record, context) : undefined;
  const format = {
    format: options.outputFormat,
    ref: {
      documentId: doc.documentId,
      filename: doc.filename,
      tier,
      maxTokens: split.maxTokens,
      overlapTokens: split.overlapTokens,
      title: documentTitle(doc.filename),
      pageUnit: pageUnit(extracted.kind),
      tokenizer: split.tokenizer,
    },
  };
  let count: number;
  let chunksJson: string;
  let enrichment: Awaited<ReturnType<typeof enrich>> | undefined;
  let situated: Awaited<ReturnType<typeof situate>> | undefined;
  const withContext = options.context === true && record.situates;
  if (record.enrich || withContext) {
    // The model annotates or situates the chunks between splitting and formatting.
    const { chunks = [] } = await chunkOnCpu(cpu, extracted, tier, split, context.embedder, {
      sectionStarts: found?.sectionStarts,
    });
    if (chunks.length === 0) throw emptyDocument();
    if (record.enrich) enrichment = await enrich(chunks, record, context);
    if (withContext) situated = await situate(chunks, extracted.text, record, context, enrichment?.documentSummary);
    count = chunks.length;
    chunksJson = (await cpu.run({ op: "format", chunks, ...format })).json;
  } else {
    const chunked = await chunkOnCpu(cpu, extracted, tier, split, context.embedder, {
      sectionStarts: found?.sectionStarts,
      format,
    });
    count = chunked.count;
    chunksJson = chunked.json ?? "[]";
  }
  if (count === 0) throw emptyDocument();
  return {
    success: true,
    tier,
    total_chunks: count,
    metadata: {
      filename: doc.filename,
      content_type: extracted.mediaType,
      size_bytes: doc.bytes.length,
      estimated_pages: extracted.pageCount,
      ocr_pages: extracted.ocrPages ?? [],
      method: record.runningMethod,
      ...(record.embedder ? { embedder: context.embedder.id } : {}),
      ...(found
        ? {
            ai: {
              ...found.details,
              ...(enrichment ? { unenriched: enrichment.unenriched } : {}),
              ...(situated ? { context: situated } : {}),
            },
          }
        : {}),
      max_tokens: options.maxTokens,
      overlap_tokens: options.overlapTokens,
      output_format: options.outputFormat,
      tokenizer: split.tokenizer,
      ...(options.ocrLanguages ? { ocr_languages: options.ocrLanguages } : {}),
    },
    ...(enrichment ? { document_summary: enrichment.documentSummary } : {}),
    chunksJson,
  };
}

const emptyDocument = () => new ApiError("empty_document", "The document contains no text to chunk.");

/** A tier that enriches (ai-pro): each chunk's summary and entities into its metadata; the document's summary returned. */
async function enrich(chunks: Chunk[], tier: Tier, context: MethodContext) {
  const enrichment = await enrichChunks(chunks, requireModel(context.models, tier), {
    concurrency: context.modelConcurrency ?? 4,
    progress: context.progress,
    signal: context.signal,
  });
  enrichment.annotations.forEach((annotation, i) => {
    if (annotation) Object.assign(chunks[i]!.metadata, annotation);
  });
  return enrichment;
}

/** `context=true`: each chunk's situating context into its metadata (and so into its `embed_text`); what it took. */
async function situate(
  chunks: Chunk[],
  documentText: string,
  tier: Tier,
  context: MethodContext,
  summary: string | null | undefined,
) {
  if (!context.situating) throw new Error("context=true needs the context settings in the method context");
  const { cache, maxCalls, documentTokens } = context.situating;
  const progress = context.progress?.contexts;
  const situated = await situateChunks(chunks, documentText, requireModel(context.models, tier), {
    concurrency: context.modelConcurrency ?? 4,
    maxCalls,
    documentTokens,
    summary,
    cache,
    progress,
    signal: context.signal,
  });
  situated.contexts.forEach((text, i) => {
    if (text) chunks[i]!.metadata.context = text;
  });
  return { chunks: situated.contexts.filter(Boolean).length, calls: situated.calls, fallback: situated.fallback };
}

/** A tier's whole method in this thread: the model's boundaries (AI tiers), then the split. */
export async function chunkExtracted(
  extracted: Extracted,
  tier: TierId,
  options: SplitOptions,
  context: MethodContext,
): Promise<{ chunks: Chunk[]; details?: Record<string, unknown> }> {
  const record = TIERS[tier];
  const found = record.model ? await modelBoundaries(extracted.text, record, context) : undefined;
  const chunks = await splitDocument(extracted, tier, options, {
    embedder: context.embedder,
    sectionStarts: found?.sectionStarts,
  });
  return { chunks, details: found?.details };
}
