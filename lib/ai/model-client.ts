/**
 * The AI tiers' one way to a model: any OpenAI-compatible chat-completions
 * endpoint, through the official `openai` SDK, answering JSON that a schema
 * checks (`response_format: json_schema`, strict).
 *
 * Two kinds of failure, handled apart:
 * - the provider fails (429, 5xx, timeout, unreachable, or refuses us with
 *   4xx): the SDK retries with backoff (honouring `Retry-After`) up to
 *   `maxRetries`, then it is ApiError 503 `ai_unavailable`: the caller's
 *   request was fine, and a paid one is released for a retry;
 * - the provider answers, but not with JSON that fits the schema: asked again
 *   up to `badReplyRetries` times, then `BadReplyError`, which callers turn
 *   into a fallback for that part of the work rather than a failed request.
 */
import OpenAI from "openai";
import type { LimitFunction } from "p-limit";
import { z } from "zod";
import type { Config } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";
import { TIERS, TIER_IDS, type Tier, type TierModel } from "@/lib/tiers";
import type { Task } from "./prompts";

export interface ModelClient {
  readonly model: string;
  /** The task's answer to `message`; throws ApiError 503 when the provider fails, BadReplyError when its answers never fit. */
  ask: <T>(task: Task<T>, message: string, signal?: AbortSignal) => Promise<T>;
}

export class BadReplyError extends Error {
  constructor(
    readonly task: string,
    readonly reason: string,
    readonly attempts: number,
  ) {
    super(`the model's answer to ${task} ${reason} (${attempts} ${attempts === 1 ? "try" : "tries"})`);
  }
}

const aiUnavailable = (reason: string, cause?: unknown) =>
  new ApiError(
    "ai_unavailable",
    `The AI provider is unavailable: ${reason}. Try again later; a paid request's payment stays valid for the retry.`,
    {
      cause,
      headers: { "Retry-After": "10" },
    },
  );

const aiNotConfigured = (tier: string, setting: string) =>
  new ApiError(
    "ai_not_configured",
    `The ${tier} tier has no model on this server (${setting} is not set), so it is not available; no payment was asked for. GET /api lists the tiers available.`,
  );

/** One JSON schema per task, made once: zod 4 writes strict-mode schemas (every property required, no additional ones). */
const jsonSchemas = new WeakMap<Task<unknown>, Record<string, unknown>>();
function jsonSchemaOf(task: Task<unknown>): Record<string, unknown> {
  let schema = jsonSchemas.get(task);
  if (!schema) {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(task.schema) as Record<string, unknown>;
    jsonSchemas.set(task, (schema = rest));
  }
  return schema;
}

/** Why an answer is unusable, or its parsed value. */
function readAnswer<T>(task: Task<T>, completion: OpenAI.Chat.ChatCompletion): { value: T } | { problem: string } {
  const choice = completion.choices?.[0];
  if (!choice) return { problem: "had no choices" };
  if (choice.finish_reason === "length") return { problem: "was cut off at the length limit" };
  const content = choice.message?.content;
  if (!content) return { problem: choice.message?.refusal ? "was a refusal" : "was empty" };
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    return { problem: "was not valid JSON" };
  }
  const parsed = task.schema.safeParse(json);
  return parsed.success ? { value: parsed.data } : { problem: "did not match the schema" };
}

function describeFailure(error: unknown): string {
  if (error instanceof OpenAI.APIConnectionTimeoutError) return "no answer in time";
  if (error instanceof OpenAI.APIConnectionError) return "it could not be reached";
  if (error instanceof OpenAI.APIError) return `it answered HTTP ${error.status ?? "error"}`;
  return "the call failed";
}

export class OpenAIModelClient implements ModelClient {
  readonly #client: OpenAI;
  readonly #badReplyRetries: number;
  readonly #modelCalls: LimitFunction | undefined;

  /** `modelCalls`: the process-wide cap on model calls (AI_MAX_INFLIGHT); each call, its SDK retries included, takes a place. */
  constructor(
    config: Config["ai"],
    readonly model: string,
    modelCalls?: LimitFunction,
  ) {
    this.#modelCalls = modelCalls;
    this.#client = new OpenAI({
      baseURL: config.baseUrl,
      // Local OpenAI-compatible servers take no key; the SDK insists on one.
      apiKey: config.apiKey ?? "none",
      timeout: config.timeoutMs,
      maxRetries: config.maxRetries,
    });
    this.#badReplyRetries = config.badReplyRetries;
  }

  async ask<T>(task: Task<T>, message: string, signal?: AbortSignal): Promise<T> {
    let problem = "";
    for (let attempt = 1; attempt <= this.#badReplyRetries + 1; attempt++) {
      let completion: OpenAI.Chat.ChatCompletion;
      try {
        const call = () =>
          this.#client.chat.completions.create(
            {
              model: this.model,
              messages: [
                { role: "system", content: task.system },
                { role: "user", content: message },
              ],
              response_format: {
                type: "json_schema",
                json_schema: { name: task.name, strict: true, schema: jsonSchemaOf(task) },
              },
            },
            // A signal of its own per call: the SDK leaves a listener on the one it is given, and a job's calls share theirs.
            { signal: signal && AbortSignal.any([signal]) },
          );
        completion = await (this.#modelCalls ? this.#modelCalls(call) : call());
      } catch (error) {
        if (error instanceof OpenAI.APIUserAbortError) throw error;
        throw aiUnavailable(describeFailure(error), error);
      }
      const answer = readAnswer(task, completion);
      if ("value" in answer) return answer.value;
      problem = answer.problem;
    }
    throw new BadReplyError(task.name, problem, this.#badReplyRetries + 1);
  }
}

/** The clients of the AI tiers, chosen once from the config, under the key a tier's record names; a tier whose model is not set has none. */
export type ModelClients = { [Client in TierModel["client"]]?: ModelClient };

/** The model a tier is configured with (undefined: none), and the setting that names it; undefined for a tier without a model. */
export const tierModel = (config: Config["ai"], tier: Tier) =>
  tier.model && { model: config[tier.model.config], setting: tier.model.setting };

/** Model calls at once for one of the tier's requests; a tier without a model makes none, and gets the first setting. */
export const modelConcurrency = (config: Config["ai"], tier: Tier) => config[tier.model?.concurrency ?? "concurrency"];

/** The tier's model; 503 `ai_not_configured` when this server has none for it. */
export function requireModel(models: ModelClients | undefined, tier: Tier): ModelClient {
  // Asking a tier without a model for one is the caller's fault, not the request's.
  if (!tier.model) throw new Error(`The ${tier.id} tier has no model.`);
  const model = models?.[tier.model.client];
  if (!model) throw aiNotConfigured(tier.id, tier.model.setting);
  return model;
}

export function createModelClients(config: Config["ai"], modelCalls?: LimitFunction): ModelClients {
  const clients: ModelClients = {};
  for (const id of TIER_IDS) {
    const wanted = TIERS[id].model;
    const name = wanted && config[wanted.config];
    if (wanted && name) clients[wanted.client] = new OpenAIModelClient(config, name, modelCalls);
  }
  return clients;
}

/** Each client as `wrap` makes it (a job's clients keep their answers). */
export function wrapModelClients(models: ModelClients, wrap: (model: ModelClient) => ModelClient): ModelClients {
  return Object.fromEntries(Object.entries(models).map(([client, model]) => [client, model && wrap(model)]));
}
