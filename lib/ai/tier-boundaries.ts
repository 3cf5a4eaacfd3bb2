import type { AiDetails } from "@/lib/api-schema";
import { findBoundaries } from "./boundary-windows";
import type { Tier } from "@/lib/tiers";
import { type ModelClients, requireModel } from "./model-client";

/** What the AI tiers' model steps use: side effects chosen at start-up, and a job's progress and cancellation. */
export interface ModelContext {
  /** The AI tiers' models; a tier whose model is absent is not configured. */
  models?: ModelClients;
  /** Model calls at once. */
  modelConcurrency?: number;
  progress?: ModelProgress;
  signal?: AbortSignal;
}

/** What an async job shows of the model calls made for it. */
export interface ModelProgress {
  /** A boundary window answered: windows done, windows in all. */
  boundaries: (done: number, total: number) => void;
  /** An enrichment call answered: chunks annotated, chunks in all, calls done, calls in all (the document summary's included). */
  summaries: (chunksDone: number, chunksTotal: number, callsDone: number, callsTotal: number) => void;
  /** The document summary's call is next. */
  documentSummary: () => void;
  /** `context=true`: a batch of chunks situated, batches in all. */
  contexts?: (callsDone: number, callsTotal: number) => void;
}

/** The network side of the AI tiers: the section starts their model finds, and what to report of it. */
export async function modelBoundaries(
  text: string,
  tier: Tier,
  context: ModelContext,
): Promise<{ sectionStarts: number[]; details: Omit<AiDetails, "unenriched"> }> {
  const model = requireModel(context.models, tier);
  const boundaries = await findBoundaries(text, model, {
    concurrency: context.modelConcurrency ?? 4,
    onProgress: context.progress && ((done, total) => context.progress!.boundaries(done, total)),
    signal: context.signal,
  });
  return {
    sectionStarts: boundaries.sectionStarts,
    details: {
      model: model.model,
      units: boundaries.units,
      windows: boundaries.windows,
      sections_found: boundaries.sectionStarts.length,
      fallback: boundaries.fallback,
    },
  };
}
