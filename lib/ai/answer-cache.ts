import { createHash } from "node:crypto";
import type { Config } from "@/lib/ground/config";
import type { Store } from "@/lib/store/types";
import type { ModelClient } from "./model-client";
import type { Task } from "./prompts";

/**
 * Model answers kept across requests, keyed by the SHA-256 of the model, the task and the whole message: the same
 * document asked again (the message holds the document and the chunks) is answered without a call. Entries expire
 * after `ttlMs`; each is one batch's answer, a few kB.
 */
export class AnswerCache {
  constructor(
    private readonly store: Store,
    private readonly ttlMs: number,
  ) {}

  /** The answer, from the cache when an earlier request stored it (`cached`), else from `model` and stored. */
  async ask<T>(
    model: ModelClient,
    task: Task<T>,
    message: string,
    signal?: AbortSignal,
  ): Promise<{ answer: T; cached: boolean }> {
    const key = `aianswer:${createHash("sha256").update(`${model.model}\n${task.name}\n${message}`).digest("base64url")}`;
    const stored = await this.store.get(key);
    if (stored !== null) {
      // A stored value that no longer fits the task's schema (an older version's) is a miss.
      const parsed = task.schema.safeParse(safeJson(stored));
      if (parsed.success) return { answer: parsed.data, cached: true };
    }
    const answer = await model.ask(task, message, signal);
    await this.store.set(key, JSON.stringify(answer), { ttlMs: this.ttlMs });
    return { answer, cached: false };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The cache of the contexts (`context=true`): the same document asked again is answered from the store, until AI_CONTEXT_CACHE_TTL_SECONDS. */
export const answerCache = (services: { store: Store; config: Pick<Config, "ai"> }) =>
  new AnswerCache(services.store, services.config.ai.context.cacheTtlSeconds * 1000);
