/**
 * Embeddings from any OpenAI-compatible endpoint: `POST {baseUrl}/embeddings`
 * with `{ model, input: string[], encoding_format: "float" }` (OpenAI, Azure
 * OpenAI's v1 API, vLLM, Ollama, LM Studio, text-embeddings-inference, ...),
 * through the `openai` SDK as the AI tiers' chat calls are.
 *
 * Texts go out in batches of `batchSize`, at most `concurrency` requests at a
 * time, each with its own timeout. A request that fails on the provider's
 * side (429, 408, 5xx, a network error or a timeout) is tried again after a
 * backoff, or after the provider's `Retry-After`, a bounded number of times.
 * Answers are parsed, not trusted: one vector per input, of one dimension,
 * put in input order by their `index`.
 *
 * Every failure becomes ApiError 503 `embeddings_unavailable`: the caller's
 * request was fine, the provider is not. Messages carry the status, never
 * the key or the provider's body (which may echo the key).
 */
import OpenAI from "openai";
import pLimit, { type LimitFunction } from "p-limit";
import { z } from "zod";
import type { Config } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";
import { type RetryPolicy, isRetryableStatus, parseRetryAfter, retryDelay } from "./retry";
import type { Embedder } from "./types";

/** The endpoint's settings as lib/ground/config.ts reads them (`baseUrl` without a trailing slash), and more. */
export type OpenAIEmbedderOptions = Omit<Extract<Config["embeddings"], { kind: "openai" }>, "kind"> & {
  retry?: Partial<RetryPolicy>;
  /** The process-wide cap on model calls, shared with the AI tiers' chat calls; each HTTP request takes a place. */
  modelCalls?: LimitFunction;
};

/** The id of the embedder for `model`, as `GET /api` and results show it. */
export const openAIEmbedderId = (model: string) => `openai:${model}`;

const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 20_000 };

const EmbeddingsResponse = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()).min(1) })),
});

const unavailable = (message: string, cause?: unknown) =>
  new ApiError("embeddings_unavailable", `The embedding provider is unavailable: ${message}. Try again later.`, {
    cause,
  });

/** One failed try: whether another may help, and when the provider asked for it. */
class AttemptFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** What one SDK call's failure means for the retry loop; an answer that is not JSON is not worth another try. */
function attemptFailure(error: unknown, timeoutMs: number): AttemptFailure {
  if (error instanceof OpenAI.APIConnectionTimeoutError)
    return new AttemptFailure(`no answer within ${timeoutMs} ms`, true);
  if (error instanceof OpenAI.APIUserAbortError) return new AttemptFailure("the request was given up", false);
  if (error instanceof OpenAI.APIConnectionError) return new AttemptFailure("it could not be reached", true);
  if (error instanceof OpenAI.APIError) {
    // The SDK's error class leaves both generic; an HTTP answer has a status and headers.
    const status = error.status as number | undefined;
    const headers = error.headers as Headers | undefined;
    if (status !== undefined)
      return new AttemptFailure(
        `it answered HTTP ${status}`,
        isRetryableStatus(status),
        parseRetryAfter(headers?.get("retry-after") ?? null),
      );
  }
  return new AttemptFailure("it answered with malformed JSON", false);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  private readonly client: OpenAI;
  private readonly retry: RetryPolicy;

  constructor(private readonly options: OpenAIEmbedderOptions) {
    this.id = openAIEmbedderId(options.model);
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      // The SDK insists on a key; local servers take none, and are sent no Authorization header.
      apiKey: options.apiKey ?? "none",
      ...(options.apiKey ? {} : { defaultHeaders: { authorization: null } }),
      // Retries are this module's (a Retry-After longer than the policy allows ends them), not the SDK's.
      maxRetries: 0,
      fetchOptions: { redirect: "error" },
    });
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const batches: string[][] = [];
    for (let i = 0; i < texts.length; i += this.options.batchSize)
      batches.push(texts.slice(i, i + this.options.batchSize));
    const limit = pLimit(this.options.concurrency);
    // After one batch has failed for good, the others are of no use: stop them.
    const givenUp = new AbortController();
    let results: Float32Array[][];
    try {
      results = await Promise.all(batches.map((batch) => limit(() => this.embedBatch(batch, givenUp.signal))));
    } catch (error) {
      limit.clearQueue();
      givenUp.abort();
      throw error;
    }
    const vectors = results.flat();
    const dimensions = vectors[0]!.length;
    if (vectors.some((v) => v.length !== dimensions)) throw unavailable("it returned vectors of different dimensions");
    return vectors;
  }

  private async embedBatch(batch: string[], givenUp: AbortSignal): Promise<Float32Array[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { modelCalls } = this.options;
        return await (modelCalls ? modelCalls(() => this.request(batch, givenUp)) : this.request(batch, givenUp));
      } catch (error) {
        if (!(error instanceof AttemptFailure)) throw error;
        const delay =
          error.retryable && !givenUp.aborted ? retryDelay(this.retry, attempt, error.retryAfterMs) : undefined;
        if (delay === undefined)
          throw unavailable(attempt > 1 ? `${error.message} (after ${attempt} attempts)` : error.message);
        await sleep(delay);
      }
    }
  }

  private async request(batch: string[], givenUp: AbortSignal): Promise<Float32Array[]> {
    let body: unknown;
    try {
      body = await this.client.embeddings.create(
        { model: this.options.model, input: batch, encoding_format: "float" },
        // A signal of its own per call, as the chat client does: the SDK leaves a listener on the one it is given.
        { signal: AbortSignal.any([givenUp]), timeout: this.options.timeoutMs },
      );
    } catch (error) {
      throw attemptFailure(error, this.options.timeoutMs);
    }
    return this.vectorsFrom(body, batch.length);
  }

  /** The answer's vectors in input order, or a failure when they do not match the inputs one to one. */
  private vectorsFrom(body: unknown, count: number): Float32Array[] {
    const parsed = EmbeddingsResponse.safeParse(body);
    if (!parsed.success) throw new AttemptFailure("its answer is not an embeddings response", false);
    const { data } = parsed.data;
    const vectors = new Array<Float32Array>(count);
    for (const item of data) {
      if (item.index >= count || vectors[item.index])
        throw new AttemptFailure("its answer does not match the inputs one to one", false);
      vectors[item.index] = Float32Array.from(item.embedding);
    }
    if (data.length !== count)
      throw new AttemptFailure(`it returned ${data.length} vectors for ${count} inputs`, false);
    return vectors;
  }
}
