import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as root from "@/app/api/route";
import * as health from "@/app/api/health/route";
import * as chunkUrl from "@/app/api/chunk/route";
import * as chunkUpload from "@/app/api/chunk/[endpoint]/route";
import * as batch from "@/app/api/batch/[tier]/route";
import * as results from "@/app/api/results/[id]/route";
import * as fallback from "@/app/api/[...path]/route";
import * as faucet from "@/app/api/dev/faucet/route";
import * as jobStatus from "@/app/api/job/[id]/status/route";
import * as jobResult from "@/app/api/job/[id]/result/route";
import * as mcp from "@/app/api/mcp/route";
import * as quota from "@/app/api/quota/route";
import * as openApi from "@/app/api/openapi.json/route";
import * as rootOpenApi from "@/app/openapi.json/route";
import * as uploads from "@/app/api/uploads/route";
import * as uploadBytes from "@/app/api/uploads/[id]/route";
import * as uploadBlob from "@/app/api/uploads/blob/route";
import * as metrics from "@/app/api/metrics/route";
import { beforeEach, expect } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type TransactionSigner, generateKeyPairSigner } from "@solana/kit";
import { PEER_HEADER } from "@/lib/http/client-address";
import { memoInstruction } from "@/lib/payments/usdc-transfer";
import { type Rpc, transferToken } from "./chain";

export const ORIGIN = "http://chunkwise.test";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** A response's JSON body, for reading its fields. */
export const json = async (response: Response): Promise<Record<string, any>> =>
  (await response.json()) as Record<string, any>;

let clients = 0;
/** A client address of its own (TEST-NET-3) for each call: free pages, references and slots are counted per client. */
export const newClient = (): string => `203.0.113.${++clients}`;

/**
 * Gives each test of the calling file a client address of its own (a `beforeEach`), and a `call` that sends from
 * it: per-client counts (free pages, unpaid references, keys) then start afresh in every test.
 */
export function clientPerTest(): { readonly address: string; call: typeof call } {
  let address = "";
  beforeEach(() => {
    address = newClient();
  });
  return {
    get address() {
      return address;
    },
    call: (method, path, init = {}) => call(method, path, { client: address, ...init }),
  };
}

/** Dispatches a request to the App Router handlers the way Next.js does for these paths. */
export async function call(
  method: string,
  path: string,
  init: { body?: BodyInit; headers?: Record<string, string>; client?: string } = {},
): Promise<Response> {
  const request = new Request(`${ORIGIN}${path}`, {
    method,
    body: init.body,
    headers: { [PEER_HEADER]: init.client ?? "198.51.100.7", ...init.headers },
    // Node's fetch types want this for streamed bodies.
    ...(init.body ? { duplex: "half" } : {}),
  });
  return dispatch(request);
}

/** The App Router handler of the request's path and method, called as Next.js calls it. */
export function dispatch(request: Request): Promise<Response> {
  const route = resolve(new URL(request.url).pathname);
  const handler = (route.module as unknown as Record<string, Handler | undefined>)[request.method];
  if (!handler) return Promise.resolve(new Response(null, { status: 405 }));
  return handler(request, { params: Promise.resolve(route.params) });
}

function resolve(path: string): { module: object; params: Record<string, string> } {
  const segments = new URL(path, ORIGIN).pathname.split("/").filter(Boolean);
  const [api, first, second, ...rest] = segments;
  if (api === "openapi.json" && !first) return { module: rootOpenApi, params: {} };
  if (api !== "api") throw new Error(`not an API path: ${path}`);
  if (!first) return { module: root, params: {} };
  if (first === "health" && !second) return { module: health, params: {} };
  if (first === "mcp" && !second) return { module: mcp, params: {} };
  if (first === "quota" && !second) return { module: quota, params: {} };
  if (first === "openapi.json" && !second) return { module: openApi, params: {} };
  if (first === "metrics" && !second) return { module: metrics, params: {} };
  if (first === "chunk" && !second) return { module: chunkUrl, params: {} };
  if (first === "chunk" && second && rest.length === 0) return { module: chunkUpload, params: { endpoint: second } };
  if (first === "batch" && second && rest.length === 0) return { module: batch, params: { tier: second } };
  if (first === "results" && second && rest.length === 0) return { module: results, params: { id: second } };
  if (first === "uploads" && !second) return { module: uploads, params: {} };
  if (first === "uploads" && second === "blob" && rest.length === 0) return { module: uploadBlob, params: {} };
  if (first === "uploads" && second && rest.length === 0) return { module: uploadBytes, params: { id: second } };
  if (first === "dev" && second === "faucet" && rest.length === 0) return { module: faucet, params: {} };
  if (first === "job" && second && rest.length === 1 && rest[0] === "status")
    return { module: jobStatus, params: { id: second } };
  if (first === "job" && second && rest.length === 1 && rest[0] === "result")
    return { module: jobResult, params: { id: second } };
  return { module: fallback, params: {} };
}

/**
 * A `fetch` that dispatches to the route handlers in process, from `client`: what the x402 client libraries and
 * the MCP SDK are given. They call it with a Request or with (url, init).
 */
export function inProcessFetch(client?: string): typeof fetch {
  return async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request?.url ?? (input as string | URL));
    const headers = Object.fromEntries(new Headers(init?.headers ?? request?.headers).entries());
    return call(init?.method ?? request?.method ?? "GET", url.pathname, {
      body: init?.body ?? (request ? await request.blob() : undefined),
      headers,
      ...(client ? { client } : {}),
    });
  };
}

/** An MCP SDK client connected to /api/mcp in process, its requests coming from `client`. */
export async function connectMcp(client?: string, name = "chunkwise-test"): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${ORIGIN}/api/mcp`), { fetch: inProcessFetch(client) });
  const sdk = new Client({ name, version: "1.0.0" });
  await sdk.connect(transport);
  return sdk;
}

/**
 * Sends `ask` (a request without payment), pays exactly what its 402 asks to the local chain's payee with the
 * 402's reference in a Memo, from a newly funded wallet, and returns the signature for X-PAYMENT.
 */
export async function payFor402(
  rpc: Rpc,
  chain: { payTo: string; usdcMint: string },
  ask: () => Promise<Response>,
): Promise<string> {
  const required = await ask();
  expect(required.status).toBe(402);
  const { paymentRequirements } = (await required.json()) as Record<string, any>;
  return transferToken(rpc, await funded(), {
    owner: chain.payTo,
    mint: chain.usdcMint,
    amount: BigInt(paymentRequirements.maxAmountRequired),
    memo: memoInstruction(paymentRequirements.extra.reference),
  });
}

/** Polls a job's status (bounded) until it leaves `processing`, returning every status seen. */
export async function pollUntilDone(jobId: string, deadlineMs = 20_000): Promise<Array<Record<string, any>>> {
  const seen: Array<Record<string, any>> = [];
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    const response = await call("GET", `/api/job/${jobId}/status`);
    expect(response.status).toBe(200);
    const status = (await response.json()) as Record<string, any>;
    seen.push(status);
    if (status.status !== "processing") return seen;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`job ${jobId} still processing after ${deadlineMs} ms: ${JSON.stringify(seen.at(-1))}`);
}

export function upload(
  bytes: Uint8Array | string,
  filename: string,
  fields: Record<string, string> = {},
  contentType = "application/octet-stream",
): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  form.set("file", new Blob([data as BlobPart], { type: contentType }), filename);
  return form;
}

/** Plain prose of roughly `pages` pages (3000 characters each), varied so the tokenizer sees real text. */
export function prose(pages: number, seed = 1): string {
  const words = [
    "retrieval",
    "chunk",
    "document",
    "model",
    "context",
    "window",
    "answer",
    "question",
    "vector",
    "index",
    "paragraph",
    "section",
    "summary",
    "token",
    "search",
    "result",
  ];
  const parts: string[] = [];
  let state = seed;
  let length = 0;
  while (length < pages * 3000 - 200) {
    const sentence: string[] = [];
    const n = 8 + (state % 9);
    for (let i = 0; i < n; i++) {
      state = (state * 1103515245 + 12345) % 2147483648;
      sentence.push(words[state % words.length]!);
    }
    const text = `${sentence.join(" ")}.`;
    parts.push(text[0]!.toUpperCase() + text.slice(1));
    length += text.length + 1;
    if (parts.length % 6 === 0) parts.push("\n\n");
  }
  return parts.join(" ").slice(0, pages * 3000 - 10);
}

/** A signer (a fresh one unless given) holding 1 SOL and 10 test USDC from the local faucet, through the route handler. */
export async function funded(signer?: TransactionSigner): Promise<TransactionSigner> {
  signer ??= await generateKeyPairSigner();
  const response = await call("POST", "/api/dev/faucet", {
    body: JSON.stringify({ address: signer.address }),
    headers: { "content-type": "application/json" },
  });
  if (response.status !== 200) throw new Error(`faucet answered ${response.status}: ${await response.text()}`);
  return signer;
}

/**
 * The route handlers on a real loopback port, as a crawler or client reaches them: each request dispatched with
 * the URL it came to, so the answers name this server.
 */
export async function serveApi(): Promise<{ base: string; close: () => Promise<void> }> {
  const server = createServer(async (incoming, outgoing) => {
    const parts: Buffer[] = [];
    for await (const part of incoming) parts.push(part as Buffer);
    const headers = Object.entries(incoming.headers).filter(
      (entry): entry is [string, string] =>
        typeof entry[1] === "string" && !["content-length", "connection", "transfer-encoding"].includes(entry[0]),
    );
    const body = parts.length ? Buffer.concat(parts) : undefined;
    const answer = await dispatch(
      new Request(`http://${incoming.headers.host}${incoming.url}`, {
        method: incoming.method,
        headers: [...headers, [PEER_HEADER, "198.51.100.7"]],
        body,
      }),
    );
    outgoing.writeHead(answer.status, Object.fromEntries(answer.headers)).end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
