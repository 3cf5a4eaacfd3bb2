/**
 * The page's only way to the service: the public API under `/api`, like any
 * other client. Every call resolves to an `ApiOutcome` (never throws on an
 * HTTP status), so the UI can show each answer for what it is: a result, a
 * job, a 402 to pay, or an error body with its code and message.
 */

// Type-only: the wire shapes are the server's zod schemas (lib/api-schema/); no zod reaches the page.
import type {
  ApiInfo,
  Chunk,
  ChunkOptions,
  ChunkingResult,
  ErrorBody,
  FaucetAnswer,
  FreeQuota,
  JobAccepted,
  JobStatus,
  PaymentRequired,
  StoredResult,
  StoredResultSummary,
  TierInfo,
} from "@/lib/api-schema";
import type { OpenApiDoc } from "@/web/openapi-reference";
import { TWO_STEP_UPLOAD_BYTES, type UploadProgress, uploadOnce } from "@/web/two-step-upload";

export type { ApiInfo, Chunk, ChunkOptions, ErrorBody, FreeQuota, JobAccepted, JobStatus, PaymentRequired, TierInfo };
export type TierId = TierInfo["id"];
export type OutputFormat = ApiInfo["output_formats"][number];
type ResultMetadata = ChunkingResult["metadata"];
/**
 * Any answer with a result: chunks inline, a stored result's summary (`download_url` instead of `chunks`), or a
 * stored result. The schemas' types, loosened to the metadata the page reads, so it shows what any version sends.
 */
export type ResultAnswer = Omit<ChunkingResult, "chunks" | "metadata"> & {
  metadata: Pick<ResultMetadata, "filename" | "content_type" | "estimated_pages" | "method" | "output_format"> &
    Partial<ResultMetadata>;
  chunks?: ChunkingResult["chunks"];
} & Partial<Pick<StoredResult & StoredResultSummary, "result_id" | "download_url" | "expires_in" | "job_id">>;

/** What to chunk: a file from the user's disk, or a URL the service fetches. */
export type DocumentSource = { kind: "file"; file: File } | { kind: "url"; url: string };

/** Whether a chunking answer is a job accepted (ai-pro, or `async=true`) rather than a result. */
export const isJob = (body: ResultAnswer | JobAccepted): body is JobAccepted => "async" in body && body.async === true;

export interface RateLimit {
  limit: number;
  remaining: number;
  /** Epoch seconds. */
  reset: number;
}

export type ApiOutcome<T> =
  | { kind: "ok"; status: number; body: T; rateLimit?: RateLimit; headers: Headers }
  | { kind: "payment_required"; status: 402; body: PaymentRequired }
  | { kind: "error"; status: number; body: ErrorBody; retryAfter?: number; rateLimit?: RateLimit };

/** A network failure: no answer at all (offline, server down). */
export class ApiUnreachable extends Error {}

function rateLimitOf(headers: Headers): RateLimit | undefined {
  const limit = headers.get("x-ratelimit-limit");
  const remaining = headers.get("x-ratelimit-remaining");
  const reset = headers.get("x-ratelimit-reset");
  return limit && remaining && reset
    ? { limit: Number(limit), remaining: Number(remaining), reset: Number(reset) }
    : undefined;
}

async function request<T>(path: string, init: RequestInit = {}): Promise<ApiOutcome<T>> {
  let response: Response;
  try {
    response = await fetch(path, { ...init, headers: { accept: "application/json", ...init.headers } });
  } catch (error) {
    throw new ApiUnreachable(error instanceof Error ? error.message : "the service could not be reached");
  }
  const rateLimit = rateLimitOf(response.headers);
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = {
      success: false,
      error: response.statusText,
      code: "unreadable_answer",
      message: `The service answered HTTP ${response.status} without a JSON body.`,
    };
  }
  if (response.ok)
    return { kind: "ok", status: response.status, body: body as T, rateLimit, headers: response.headers };
  if (response.status === 402) return { kind: "payment_required", status: 402, body: body as PaymentRequired };
  const retryAfter = Number(response.headers.get("retry-after")) || undefined;
  return { kind: "error", status: response.status, body: body as ErrorBody, retryAfter, rateLimit };
}

export const getApiInfo = () => request<ApiInfo>("/api");

/**
 * One chunking request: a file goes as multipart to the tier's endpoint, a
 * URL as JSON to `/api/chunk`. `payment` is the `X-PAYMENT` header value.
 * A file over 4 MB is uploaded first (web/two-step-upload.ts, reporting to
 * `onUploadProgress`) and named by its `upload_id`.
 */
export async function postChunk(
  tier: TierInfo,
  source: DocumentSource,
  options: ChunkOptions,
  payment?: string,
  onUploadProgress?: UploadProgress,
): Promise<ApiOutcome<ResultAnswer | JobAccepted>> {
  const headers: Record<string, string> = payment ? { "x-payment": payment } : {};
  if (source.kind === "url") {
    return request("/api/chunk", {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ url: source.url, tier: tier.id, ...options }),
    });
  }
  const form = new FormData();
  if (source.file.size > TWO_STEP_UPLOAD_BYTES) {
    let upload;
    try {
      upload = await uploadOnce(source.file, onUploadProgress);
    } catch (error) {
      throw new ApiUnreachable(error instanceof Error ? error.message : "the upload could not reach the service");
    }
    if (upload.kind === "error") return upload;
    form.set("upload_id", upload.uploadId);
  } else form.set("file", source.file, source.file.name);
  for (const [key, value] of Object.entries(options)) if (value !== undefined) form.set(key, String(value));
  // The tier's canonical endpoint, as a path on this origin.
  return request(new URL(tier.endpoints[0]!).pathname, { method: "POST", headers, body: form });
}

export const getJobStatus = (jobId: string) => request<JobStatus>(`/api/job/${encodeURIComponent(jobId)}/status`);
export const getJobResult = (jobId: string) => request<ResultAnswer>(`/api/job/${encodeURIComponent(jobId)}/result`);
/** A stored result, by the path of its `download_url`. */
export const getStoredResult = (downloadUrl: string) =>
  request<ResultAnswer>(new URL(downloadUrl, window.location.origin).pathname);

/** Local mode only: SOL and test USDC for a new wallet. */
export const requestFaucet = (address: string) =>
  request<FaucetAnswer>("/api/dev/faucet", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ address }),
  });

/** The free tier's pages left today for this client (`GET /api/quota`, read-only). */

export const getFreeQuota = () => request<FreeQuota>("/api/quota");

/** The OpenAPI 3.1 document of this server's API (the docs page renders it). */
export const getOpenApiDocument = () => request<OpenApiDoc>("/api/openapi.json");
