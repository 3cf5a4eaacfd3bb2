import { createHash } from "node:crypto";
import pLimit from "p-limit";
import { deserialize, serialize } from "node:v8";
import { gunzipSync, gzipSync } from "node:zlib";
import type { ModelClient } from "@/lib/ai/model-client";
import type { Task } from "@/lib/ai/prompts";
import type { OcrPage, PdfPageItems } from "@/lib/extract/page-items";
import type { PageMemo, TextLayerMemo } from "@/lib/extract/steps";
import type { Store } from "@/lib/store/types";
import type { SliceClock } from "./slice-clock";

/**
 * Requests to the store at once when fetching or keeping many values: not one round trip after another (each is one
 * on Upstash's REST API), and few enough that @upstash/redis, which pipelines one tick's commands into one request,
 * never joins more than this many.
 */
const STORE_REQUESTS_AT_ONCE = 16;

/**
 * The largest value kept (base64 characters): STORE_REQUESTS_AT_ONCE of these stay under Upstash's 10 MB a request.
 * A page past it is done again instead.
 */
const MAX_KEPT_VALUE_CHARS = 512 * 1024;

/**
 * What one job keeps at most, all its values together (base64 characters): a 300-page scan's OCR'd pages are a few
 * MB, a long text PDF's parsed pages tens of MB. Past it a job's outputs are done again when needed instead of kept,
 * so no document can grow the store without bound.
 */
const MAX_KEPT_PER_JOB_CHARS = 64 * 1024 * 1024;

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
  /** The job's own keys are named by it; a batch's document adds its number. */
  private readonly jobId: string;
  /** The counter of what the job (a batch's documents together) has kept, in base64 characters. */
  private readonly keptKey: string;
  /** The job's share is used: nothing more is encoded or counted by this memo. */
  #full = false;

  constructor(
    private readonly store: Store,
    private readonly job: {
      id: string;
      /** When the job expires (epoch ms): its keys go with it. */
      expiresAt: number;
      /** A killed slice writes nothing more. */
      killed: AbortSignal;
      /** What the job keeps at most, all its values together (base64 characters). */
      maxKeptChars?: number;
    },
    member?: number,
  ) {
    this.jobId = member === undefined ? job.id : `${job.id}:${member}`;
    this.keptKey = `jobkept:${job.id}`;
  }

  /** A batch's document's own memo: its pages and model answers never mix with another document's. */
  member(input: number): JobMemo {
    return new JobMemo(this.store, this.job, input);
  }

  readonly pages: PageMemo = this.#numbered<OcrPage>("jobpage");

  readonly textLayer: TextLayerMemo = this.#numbered<PdfPageItems>("jobtext");

  /** Values by a number under `{prefix}:{job}:{n}`, fetched and kept STORE_REQUESTS_AT_ONCE requests at a time. */
  #numbered<T>(prefix: string) {
    const key = (n: number) => `${prefix}:${this.jobId}:${n}`;
    const limit = pLimit(STORE_REQUESTS_AT_ONCE);
    return {
      getMany: (ns: number[]) => Promise.all(ns.map((n) => limit(() => this.#get<T>(key(n))))),
      put: (n: number, value: T) => this.#put(key(n), value),
      putMany: async (entries: [number, T][]) => {
        await Promise.all(entries.map(([n, value]) => limit(() => this.#put(key(n), value))));
      },
    };
  }

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
    if (this.job.killed.aborted || this.#full) return;
    const ttlMs = this.job.expiresAt - Date.now();
    if (ttlMs <= 0) return;
    const encoded = gzipSync(serialize(value)).toString("base64");
    // A value too large for one request, or one past the job's share of the store, is done again when needed.
    if (encoded.length > MAX_KEPT_VALUE_CHARS) return;
    const kept = await this.store.incrBy(this.keptKey, encoded.length, { ttlMs });
    // Once past it, this slice stops encoding what it would not keep (a later slice learns it from its first count).
    if (kept > (this.job.maxKeptChars ?? MAX_KEPT_PER_JOB_CHARS)) {
      this.#full = true;
      return;
    }
    await this.store.set(key, encoded, { ttlMs });
  }
}
