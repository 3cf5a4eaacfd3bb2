/**
 * The page's only way to the service: the public API under `/api`, like any
 * other client. Every call resolves to an `ApiOutcome` (never throws on an
 * HTTP status), so the UI can show each answer for what it is: a result, a
 * job, a 402 to pay, or an error body with its code and message.
 */

// Type-only: the wire shapes are the server's zod schemas (lib/api-schema.ts); no zod reaches the page.
import type { ChunkMetadataBody, ErrorBody, JobAccepted, JobStatus, PaymentRequiredBody } from "@/lib/api-schema";
import type { OpenApiDoc } from "@/web/openapi-reference";

export type { JobAccepted, JobStatus };
export type ApiErrorBody = ErrorBody;
export type PaymentRequired = PaymentRequiredBody;
export type PaymentRequirement = PaymentRequired["paymentRequirements"];
export interface RawChunk {
  text: string;
  metadata: ChunkMetadataBody;
}

export type TierId = "free" | "structure" | "semantic" | "ai" | "ai-pro";

export interface TierInfo {
  id: TierId;
  price_usd: string;
  price_base_units: number;
  endpoints: string[];
  method: string;
  good_for: string;
  mode: "sync" | "async";
  available: boolean;
  reason?: string;
  model?: string;
  running_method: string;
  embedder?: string;
}

export interface ApiInfo {
  name: string;
  version: string;
  network: string;
  asset: { symbol: string; mint: string; decimals: number };
  payTo: string;
  tiers: TierInfo[];
  payment: {
    x402: { network: string; fee_payer: string } | null;
    max_payment_age_seconds: number;
    reference_required: boolean;
    /** The Solana RPC for the browser's wallet flow. */ rpc_url: string;
  };
  localnet?: { rpc_url: string; ws_url: string; faucet_url: string };
  defaults: { max_tokens: number; overlap_tokens: number; output_format: OutputFormat };
  limits: {
    max_upload_bytes: number;
    max_tokens_range: [number, number];
    free_pages_per_day: number;
    inline_chunk_limit: number;
  };
  output_formats: OutputFormat[];
}

export type OutputFormat = "raw" | "pinecone" | "weaviate" | "chroma" | "qdrant";

export interface ChunkOptions {
  max_tokens?: number;
  overlap_tokens?: number;
  output_format?: OutputFormat;
  /** Run as a job (a scan with more pages to OCR than a request reads). */
  async?: boolean;
}

/** What to chunk: a file from the user's disk, or a URL the service fetches. */
export type DocumentSource = { kind: "file"; file: File } | { kind: "url"; url: string };

export interface ChunkingResult {
  success: true;
  tier: TierId;
  total_chunks: number;
  metadata: Record<string, unknown> & {
    filename: string;
    content_type: string;
    estimated_pages: number;
    /** Pages read by OCR; sent by services that read scans. */
    ocr_pages?: number[];
    method: string;
    output_format: OutputFormat;
  };
  /** Inline results only; a stored one has `download_url` instead. */
  chunks?: unknown[];
  document_summary?: string | null;
  result_id?: string;
  download_url?: string;
  expires_in?: string;
  payment: { amount: number; asset: "USDC"; network: string; transaction: string | null };
}

export interface RateLimit {
  limit: number;
  remaining: number;
  /** Epoch seconds. */
  reset: number;
}

export type ApiOutcome<T> =
  | { kind: "ok"; status: number; body: T; rateLimit?: RateLimit; headers: Headers }
  | { kind: "payment_required"; status: 402; body: PaymentRequired }
  | { kind: "error"; status: number; body: ApiErrorBody; retryAfter?: number; rateLimit?: RateLimit };

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
  return { kind: "error", status: response.status, body: body as ApiErrorBody, retryAfter, rateLimit };
}

export const getApiInfo = () => request<ApiInfo>("/api");

/**
 * One chunking request: a file goes as multipart to the tier's endpoint, a
 * URL as JSON to `/api/chunk`. `payment` is the `X-PAYMENT` header value.
 */
export function postChunk(
  tier: TierInfo,
  source: DocumentSource,
  options: ChunkOptions,
  payment?: string,
): Promise<ApiOutcome<ChunkingResult | JobAccepted>> {
  const headers: Record<string, string> = payment ? { "x-payment": payment } : {};
  if (source.kind === "url") {
    return request("/api/chunk", {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ url: source.url, tier: tier.id, ...options }),
    });
  }
  const form = new FormData();
  form.set("file", source.file, source.file.name);
  for (const [key, value] of Object.entries(options)) if (value !== undefined) form.set(key, String(value));
  // The tier's canonical endpoint, as a path on this origin.
  return request(new URL(tier.endpoints[0]!).pathname, { method: "POST", headers, body: form });
}

export const getJobStatus = (jobId: string) => request<JobStatus>(`/api/job/${encodeURIComponent(jobId)}/status`);
export const getJobResult = (jobId: string) => request<ChunkingResult>(`/api/job/${encodeURIComponent(jobId)}/result`);
/** A stored result, by the path of its `download_url`. */
export const getStoredResult = (downloadUrl: string) =>
  request<ChunkingResult>(new URL(downloadUrl, window.location.origin).pathname);

/** Local mode only: SOL and test USDC for a new wallet. */
export const requestFaucet = (address: string) =>
  request<{ success: true; address: string; sol: number; usdc: number; token_account: string }>("/api/dev/faucet", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ address }),
  });

/** The free tier's pages left today for this client (`GET /api/quota`, read-only). */
export interface FreeQuotaStatus {
  limit: number;
  remaining: number;
  /** Epoch seconds: the next UTC midnight. */
  reset: number;
}

export const getFreeQuota = () => request<FreeQuotaStatus>("/api/quota");

/** The OpenAPI 3.1 document of this server's API (the docs page renders it). */
export const getOpenApiDocument = () => request<OpenApiDoc>("/api/openapi.json");
