/**
 * Chunkwise model stand-in: a local OpenAI-compatible HTTP server that
 * answers the AI tiers' tasks (lib/ai/prompts.ts) with deterministic
 * heuristics. It is NOT a language model; it stands in for a hosted one at
 * the HTTP boundary, for tests, the benchmark and demos.
 *
 * Endpoints, under `http://HOST:PORT/v1`:
 * - `POST /chat/completions`: `response_format.json_schema.name` picks the
 *   task (`section_starts`, `chunk_enrichment`, `document_summary`,
 *   `chunk_context`); the
 *   last user message is read in the layout prompts.ts writes. Any model
 *   name is answered the same way (`standin-small` and `standin-large` are
 *   the names it lists). No `response_format`, an unknown schema name or
 *   `stream: true` is a 400.
 * - `POST /embeddings`: the project's HashedNgramEmbedder vectors (1024
 *   dimensions), as `float` arrays or `base64` (the openai SDK's default).
 * - `GET /models`: standin-small, standin-large, standin-embed.
 * Outside /v1: `GET /` describes the stand-in; `GET /control` shows settings
 * and counters; `POST /control` merges settings (see controls.ts) into the
 * current ones; `POST /control/reset` zeroes counters and queued faults.
 *
 * Faults on demand, for the paths a real provider takes:
 * - settings: `delayMs`, `down` (503 on all of /v1), and the queues
 *   `failNext` (500), `rateLimitNext` (429, `Retry-After: retryAfterSeconds`),
 *   `brokenJsonNext`, `schemaBreakNext` (200 with a bad reply), `hangNext`
 *   (no answer until the client gives up) for the next N completions;
 * - markers in the user message, the same fault on every request that
 *   carries them, so retries fail too: `STANDIN:BROKEN_JSON` (reply that is
 *   not JSON), `STANDIN:SCHEMA_BREAK` (JSON that breaks the schema, e.g.
 *   `{"starts": "three"}`), `STANDIN:FAIL_500` (HTTP 500).
 * A queued fault is served before a marker's. Every wait (delay, hang) ends
 * when the client disconnects, so no timer outlives its request.
 *
 * Errors have OpenAI's shape: `{error: {message, type, param, code}}`.
 *
 * One module over 300 lines on purpose: the HTTP side of the stand-in (routes,
 * body limits, fault injection, OpenAI's error shape) in one place; what it
 * answers is answers.ts, its controls controls.ts.
 */
import { randomUUID } from "node:crypto";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { HashedNgramEmbedder } from "@/lib/embeddings/hashed-ngrams";
import { countTokens } from "@/lib/tokens";
import { MARKERS, TASK_NAMES, answerContent, isKnownTask, markerFault } from "./answers";
import { StandinControls, type StandinCounters, StandinSettings, StandinSettingsUpdate } from "./controls";

export type { StandinCounters, StandinSettings } from "./controls";

export interface StandinOptions {
  /** 0 (the default) takes a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  delayMs?: number;
  retryAfterSeconds?: number;
}

export interface ModelStandin {
  /** The OpenAI base URL: `http://127.0.0.1:PORT/v1`. */
  url: string;
  port: number;
  control: (settings: Partial<StandinSettings>) => void;
  settings: () => StandinSettings;
  counters: () => StandinCounters;
  reset: () => void;
  close: () => Promise<void>;
}

export const SYSTEM_FINGERPRINT = "chunkwise-standin";
export const STANDIN_MODELS = ["standin-small", "standin-large", "standin-embed"] as const;
export const STANDIN_BANNER =
  "Chunkwise model stand-in — NOT a language model: deterministic heuristics for tests and demos";
/** Largest request body read; OpenAI's own limit is of this order. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** Past the limit the body is still read (so that the client sees the 413 rather than a reset) up to this much, then the connection is cut. */
const MAX_DRAIN_BYTES = 4 * MAX_BODY_BYTES;

// ---------------------------------------------------------------------------
// Wire shapes
// ---------------------------------------------------------------------------

const TextPart = z.object({ type: z.string(), text: z.string().optional() });

const ChatCompletionRequest = z.object({
  model: z.string().min(1),
  messages: z
    .array(
      z.object({
        role: z.enum(["system", "developer", "user", "assistant", "tool"]),
        content: z.union([z.string(), z.array(TextPart)]).nullish(),
      }),
    )
    .min(1),
  response_format: z
    .object({
      type: z.string(),
      json_schema: z
        .object({
          name: z.string().min(1),
          strict: z.boolean().nullish(),
          schema: z.record(z.string(), z.unknown()).optional(),
        })
        .optional(),
    })
    .optional(),
  temperature: z.number().min(0).max(2).nullish(),
  stream: z.boolean().nullish(),
  n: z.number().int().min(1).max(1).nullish(),
});
type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

const EmbeddingsRequest = z.object({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string()).min(1)]),
  encoding_format: z.enum(["float", "base64"]).optional(),
});

// ---------------------------------------------------------------------------
// HTTP plumbing
// ---------------------------------------------------------------------------

/** OpenAI's error `type` for each status the stand-in answers. */
function errorType(status: number): string {
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "x-request-id": `req_${randomUUID()}`,
    ...headers,
  });
  res.end(text);
}

/** An error the stand-in answers with, in OpenAI's shape: its own codes, not the service's table. */
class ModelApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly options: { headers?: Record<string, string> } = {},
  ) {
    super(message);
  }
  get headers() {
    return this.options.headers ?? {};
  }
}

function sendError(res: ServerResponse, error: ModelApiError): void {
  send(
    res,
    error.status,
    { error: { message: error.message, type: errorType(error.status), param: null, code: error.code } },
    error.headers,
  );
}

/** The body as text; a body over MAX_BODY_BYTES is a 413, counted while it streams in rather than trusted from Content-Length. */
async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_DRAIN_BYTES) {
      req.destroy();
      break;
    }
    if (size <= MAX_BODY_BYTES) parts.push(part);
  }
  if (size > MAX_BODY_BYTES)
    throw new ModelApiError(413, "request_too_large", `The request body is larger than ${MAX_BODY_BYTES} bytes.`, {
      headers: { connection: "close" },
    });
  return Buffer.concat(parts).toString("utf8");
}

async function readJson<T>(req: IncomingMessage, schema: z.ZodType<T>): Promise<T> {
  const text = await readBody(req);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ModelApiError(400, "invalid_json", "The request body is not valid JSON.");
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    throw new ModelApiError(
      400,
      "invalid_request",
      parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "),
    );
  return parsed.data;
}

/** Resolves when the client goes away before its answer was sent. */
function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

const untilAborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });

function textOf(content: ChatCompletionRequest["messages"][number]["content"]): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => part.text ?? "").join("");
}

// ---------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------

class StandinServer {
  private readonly embedder = new HashedNgramEmbedder();
  private completionsServed = 0;

  constructor(readonly controls: StandinControls) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://standin").pathname.replace(/\/+$/, "") || "/";
    try {
      if (path.startsWith("/v1/") || path === "/v1") return await this.handleV1(path.slice(3), req, res);
      if (path === "/" && req.method === "GET") return send(res, 200, this.describe());
      if (path === "/control") {
        if (req.method === "GET") return send(res, 200, this.state());
        if (req.method === "POST") {
          this.controls.update(await readJson(req, StandinSettingsUpdate));
          return send(res, 200, this.state());
        }
        throw new ModelApiError(405, "method_not_allowed", "Use GET or POST on /control.");
      }
      if (path === "/control/reset" && req.method === "POST") {
        this.controls.reset();
        return send(res, 200, this.state());
      }
      throw new ModelApiError(404, "not_found", `Nothing at ${req.method} ${path}.`);
    } catch (error) {
      if (res.headersSent || res.destroyed) return;
      if (error instanceof ModelApiError) {
        if (error.status < 429) this.controls.countBadRequest();
        return sendError(res, error);
      }
      sendError(
        res,
        new ModelApiError(
          500,
          "internal_error",
          `The stand-in failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    }
  }

  private async handleV1(route: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const done = this.controls.countRequest();
    try {
      await this.answerV1(route, req, res);
    } finally {
      done();
    }
  }

  private async answerV1(route: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.controls.settings().down) {
      this.controls.countFault("down");
      req.resume();
      throw new ModelApiError(503, "service_unavailable", "The stand-in is down (fault injected with `down`).");
    }
    const method = req.method ?? "GET";
    if (route === "/chat/completions" && method === "POST") return this.completion(req, res);
    if (route === "/embeddings" && method === "POST") return this.embeddings(req, res);
    if (route === "/models" && method === "GET") {
      return send(res, 200, {
        object: "list",
        data: STANDIN_MODELS.map((id) => ({ id, object: "model", created: 0, owned_by: "chunkwise-standin" })),
      });
    }
    if (["/chat/completions", "/embeddings", "/models"].includes(route))
      throw new ModelApiError(405, "method_not_allowed", `${method} is not allowed on /v1${route}.`);
    throw new ModelApiError(404, "unknown_url", `Unknown request URL: ${method} /v1${route}.`);
  }

  private async completion(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const gone = clientGone(res);
    const request = await readJson(req, ChatCompletionRequest);
    if (request.stream)
      throw new ModelApiError(400, "stream_unsupported", "The stand-in does not stream; leave `stream` unset.");
    const schema = request.response_format?.json_schema;
    if (request.response_format?.type !== "json_schema" || !schema) {
      throw new ModelApiError(
        400,
        "response_format_required",
        `The stand-in answers only structured tasks: send response_format {type: "json_schema", json_schema: {name: ${TASK_NAMES.join(" | ")}}}.`,
      );
    }
    if (!isKnownTask(schema.name))
      throw new ModelApiError(
        400,
        "unknown_schema",
        `Unknown json_schema.name "${schema.name}"; the stand-in knows ${TASK_NAMES.join(", ")}.`,
      );
    const userMessage = textOf(request.messages.findLast((m) => m.role === "user")?.content);

    this.controls.countCompletion(schema.name, request.model);
    const fault = this.controls.takeQueuedFault() ?? markerFault(userMessage);
    if (fault) this.controls.countFault(fault);
    if (fault === "hang") {
      await untilAborted(gone);
      this.controls.countAborted();
      return;
    }
    const { retryAfterSeconds } = this.controls.settings();
    if (!(await this.delayed(gone))) return;
    if (fault === "server_error")
      throw new ModelApiError(500, "server_error", "The stand-in failed on purpose (fault injected).");
    if (fault === "rate_limit") {
      throw new ModelApiError(429, "rate_limit_exceeded", "Rate limit reached (fault injected).", {
        headers: { "retry-after": String(retryAfterSeconds) },
      });
    }
    const content = answerContent(schema.name, userMessage, fault);
    const promptTokens = request.messages.reduce((n, m) => n + countTokens(textOf(m.content)), 0);
    const completionTokens = countTokens(content);
    send(res, 200, {
      id: `chatcmpl-standin-${++this.completionsServed}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      system_fingerprint: SYSTEM_FINGERPRINT,
      choices: [
        { index: 0, message: { role: "assistant", content, refusal: null }, logprobs: null, finish_reason: "stop" },
      ],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    });
  }

  /** A slow provider: waits the configured delay; false (counted) if the client went away meanwhile. */
  private async delayed(gone: AbortSignal): Promise<boolean> {
    const { delayMs } = this.controls.settings();
    if (delayMs <= 0) return true;
    try {
      await sleep(delayMs, undefined, { signal: gone });
      return true;
    } catch {
      this.controls.countAborted();
      return false;
    }
  }

  private async embeddings(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const gone = clientGone(res);
    const request = await readJson(req, EmbeddingsRequest);
    const inputs = typeof request.input === "string" ? [request.input] : request.input;
    this.controls.countEmbeddings(request.model);
    if (!(await this.delayed(gone))) return;
    const data = inputs.map((text, index) => {
      const vector = this.embedder.embedOne(text);
      // base64 is the float32 array's little-endian bytes, as OpenAI sends it.
      const embedding =
        request.encoding_format === "base64"
          ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64")
          : Array.from(vector);
      return { object: "embedding", index, embedding };
    });
    const tokens = inputs.reduce((n, text) => n + countTokens(text), 0);
    send(res, 200, {
      object: "list",
      data,
      model: request.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  private state() {
    return { settings: this.controls.settings(), counters: this.controls.counters() };
  }

  private describe() {
    return {
      name: "chunkwise-model-standin",
      language_model: false,
      description: `${STANDIN_BANNER}. An OpenAI-compatible stand-in for hosted models: answers Chunkwise's AI tasks by rules, never by a model.`,
      base_path: "/v1",
      endpoints: [
        "POST /v1/chat/completions",
        "POST /v1/embeddings",
        "GET /v1/models",
        "GET /control",
        "POST /control",
        "POST /control/reset",
      ],
      tasks: TASK_NAMES,
      models: STANDIN_MODELS,
      markers: Object.keys(MARKERS),
      settings: Object.keys(this.controls.settings()),
    };
  }
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

export async function startModelStandin(options: StandinOptions = {}): Promise<ModelStandin> {
  const host = options.host ?? "127.0.0.1";
  const initial: StandinSettings = {
    delayMs: options.delayMs ?? 0,
    down: false,
    failNext: 0,
    rateLimitNext: 0,
    retryAfterSeconds: options.retryAfterSeconds ?? 0,
    brokenJsonNext: 0,
    schemaBreakNext: 0,
    hangNext: 0,
  };
  const controls = new StandinControls(StandinSettings.parse(initial));
  const standin = new StandinServer(controls);
  const server = createServer((req, res) => void standin.handle(req, res));
  const address = await listen(server, options.port ?? 0, host);
  const hostInUrl = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${hostInUrl}:${address.port}/v1`,
    port: address.port,
    control: (settings) => void controls.update(settings),
    settings: () => controls.settings(),
    counters: () => controls.counters(),
    reset: () => controls.reset(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Hanging and keep-alive connections would hold close() open until they time out.
        server.closeAllConnections();
      }),
  };
}
