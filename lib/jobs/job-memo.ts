import { createHash } from "node:crypto";
import { deserialize, serialize } from "node:v8";
import { gunzipSync, gzipSync } from "node:zlib";
import type { ModelClient } from "@/lib/ai/model-client";
import type { Task } from "@/lib/ai/prompts";
import type { OcrPage, PdfPageItems } from "@/lib/extract/page-items";
import type { PageMemo, TextLayerMemo } from "@/lib/extract/steps";
import type { Store } from "@/lib/store/types";
import type { SliceClock } from "./slice-clock";

/**
 * The largest value kept (base64 characters). Stored values are fetched 16 at once, which @upstash/redis pipelines
 * into one request: 16 of these stay under Upstash's 10 MB a request. A page past it is done again instead.
 */
const MAX_KEPT_VALUE_CHARS = 512 * 1024;

/**
 * A job's expensive outputs kept in the store under its own keys, expiring with it, so a slice (or a worker taking
 * the job over) never does them again: each PDF page as pdf.js parsed it (`jobtext:`), each page read by OCR
 * (`jobpage:`, its text items, boxes and confidences) and each model answer (`jobcall:`). One key a page and one a
 * call keep every request small (a dense page is tens of kB gzipped; Upstash takes 10 MB a request).
 *
 * Values are Node's structured-clone serialisation (it keeps OCR's typed arrays), gzipped, in base64: the store
 * takes strings. A value that cannot be read back (another Node version's) is a miss and is done again.
 */
export class JobMemo {
  constructor(
    private readonly store: Store,
    private readonly jobId: string,
    /** When the job expires (epoch ms): its keys go with it. */
    private readonly expiresAt: number,
    /** A killed slice writes nothing more. */
    private readonly killed: AbortSignal,
  ) {}

  /** A batch's document's own memo: its pages and model answers never mix with another document's. */
  member(input: number): JobMemo {
    return new JobMemo(this.store, `${this.jobId}:${input}`, this.expiresAt, this.killed);
  }

  readonly pages: PageMemo = {
    get: (k) => this.#get<OcrPage>(`jobpage:${this.jobId}:${k}`),
    put: (k, page) => this.#put(`jobpage:${this.jobId}:${k}`, page),
  };

  readonly textLayer: TextLayerMemo = {
    get: (n) => this.#get<PdfPageItems>(`jobtext:${this.jobId}:${n}`),
    put: (n, page) => this.#put(`jobtext:${this.jobId}:${n}`, page),
  };

  /** `model` answering from the memo, and storing each new answer before it is used; calls timed by `clock`. */
  model(model: ModelClient, clock: SliceClock): ModelClient {
    return {
      model: model.model,
      ask: async <T>(task: Task<T>, message: string, signal?: AbortSignal): Promise<T> => {
        const key = `jobcall:${this.jobId}:${createHash("sha256").update(`${model.model}\n${task.name}\n${message}`).digest("base64url")}`;
        const stored = await this.#get<T>(key);
        if (stored !== null) return stored;
        return clock.unit(async () => {
          const answer = await model.ask(task, message, signal);
          await this.#put(key, answer);
          return answer;
        });
      },
    };
  }

  async #get<T>(key: string): Promise<T | null> {
    const stored = await this.store.get(key);
    if (stored === null) return null;
    try {
      return deserialize(gunzipSync(Buffer.from(stored, "base64"))) as T;
    } catch {
      return null;
    }
  }

  async #put(key: string, value: unknown): Promise<void> {
    if (this.killed.aborted) return;
    const ttlMs = this.expiresAt - Date.now();
    if (ttlMs <= 0) return;
    const encoded = gzipSync(serialize(value)).toString("base64");
    // Never one request past the store's limit (Upstash's free plan: 1 MB); such a value is done again when needed.
    if (encoded.length > MAX_KEPT_VALUE_CHARS) return;
    await this.store.set(key, encoded, { ttlMs });
  }
}
