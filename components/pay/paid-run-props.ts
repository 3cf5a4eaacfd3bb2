import type { ApiInfo, ChunkOptions, ResultAnswer, DocumentSource, JobAccepted, TierInfo } from "@/web/api-client";

/**
 * What the home page hands the paid flow (`PaidRun`, loaded only when a paid
 * tier is chosen, so the wallet code stays out of the free tier's first load).
 */
export interface PaidRunProps {
  api: ApiInfo;
  tier: TierInfo;
  source: DocumentSource;
  options: ChunkOptions;
  /** A synchronous tier's result, paid and served. */
  onResult: (result: ResultAnswer) => void;
  /** ai-pro: the accepted job; the page moves to the job's own URL. */
  onJob: (job: JobAccepted) => void;
  /** Back to choosing (the user cancelled before paying). */
  onCancel: () => void;
}
