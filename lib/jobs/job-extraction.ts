import type { Extracted } from "@/lib/extract/types";
import { type Loaded, type ResolvedOptions, extractDocument, withOcrLanguages } from "@/lib/pipeline/chunk-result";
import type { Services } from "@/lib/services/types";
import type { JobMemo } from "./job-memo";
import type { SliceClock } from "./slice-clock";

/**
 * A job's document read as a slice reads it: on the threads kept for jobs, its OCR'd pages and its parsed text
 * layer taken from what earlier slices stored, no page started that would not fit in the slice.
 */
export function extractForJob(
  services: Pick<Services, "config" | "cpu">,
  doc: Loaded,
  options: ResolvedOptions,
  memo: JobMemo,
  clock: SliceClock,
  onPageRead: (done: number, total: number) => void,
): Promise<Extracted> {
  return services.cpu.jobExtraction(() =>
    extractDocument(
      doc,
      withOcrLanguages(services.config, options),
      services.cpu.forJobs,
      { onPageRead, pages: memo.pages, textLayer: memo.textLayer, slice: clock },
      options,
    ),
  );
}
