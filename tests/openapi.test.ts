import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Validator } from "@cfworker/json-schema";
import { type TransactionSigner, generateKeyPairSigner, createSolanaRpc } from "@solana/kit";
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import * as openapiRoute from "@/app/api/openapi.json/route";
import * as quotaRoute from "@/app/api/quota/route";
import { ERRORS_PAGE, withErrorTable } from "@/scripts/docs-errors";
import type { apiInfo } from "@/lib/api-info";
import {
  ApiInfoSchema,
  ChunkMetadataSchema,
  ChunkOptionsSchema,
  ChunkingResultSchema,
  ErrorBodySchema,
  FaucetAnswerSchema,
  FreeQuotaSchema,
  HealthSchema,
  JobAcceptedSchema,
  JobStatusSchema,
  OpenApiDocumentSchema,
  PaymentRequiredSchema,
  type ChromaRecordSchema,
  type PineconeRecordSchema,
  type QdrantPointSchema,
  StoredResultSchema,
  StoredResultSummarySchema,
  UrlChunkRequestSchema,
  type WeaviateObjectSchema,
  ChunkMetadata,
} from "@/lib/api-schema";
import { type Config, loadConfig } from "@/lib/config";
import { ERROR_CODES, type ErrorCode, errorCatalogue, errorTableMarkdown } from "@/lib/error-codes";
import { ApiError } from "@/lib/errors";
import type { runFaucet } from "@/localchain/faucet-endpoint";
import type { ChromaRecord, PineconeRecord, QdrantPoint, WeaviateObject } from "@/lib/formats";
import type { checkHealth } from "@/lib/health";
import { PEER_HEADER } from "@/lib/http/client-address";
import { type LocalChain, startLocalChain } from "@/localchain";
import { TAGS, openApiDocument } from "@/lib/openapi";
import { associatedTokenAccount, memoInstruction } from "@/lib/payments/usdc-transfer";
import { type Services, createServices, getServices, setServices } from "@/lib/services";
import { MemoryStore } from "@/lib/store";
import { TIERS, TIER_IDS, isPaid } from "@/lib/tiers";
import packageJson from "@/package.json";
import { type ModelStandin, startModelStandin } from "@/standin/model-server";
import type * as web from "@/web/api-client";
import {
  agentExample,
  batchExample,
  mcpBatchExample,
  mcpExample,
  x402Example,
  x402V2Example,
} from "@/web/docs-examples";
import { ORIGIN, call, prose, upload } from "./helpers/api";
import { type Rpc, transferToken } from "./helpers/chain";

/**
 * The OpenAPI document (`GET /api/openapi.json`): valid OpenAPI 3.1, covering
 * every route, generated from the schemas the routes validate with, and
 * describing what the route handlers really answer. Route handlers in
 * process on a memory store, paid on the project's local chain, the AI tiers
 * on the local stand-in model.
 */

const root = join(import.meta.dirname, "..");
const fixture = (name: string) => new Uint8Array(readFileSync(join(root, "tests/fixtures", name)));

let chain: LocalChain;
let rpc: Rpc;
let model: ModelStandin;
const store = new MemoryStore();
/** Work scheduled after a response (ai-pro jobs), tracked so tests can wait for it. */
const background = new Set<Promise<void>>();

function useServices(env: Record<string, string> = {}): Services {
  const config = loadConfig({
    SOLANA_RPC_URL: chain.rpcUrl,
    PAY_TO_ADDRESS: chain.payTo,
    FEE_PAYER_SECRET_KEY: chain.feePayer.secretKey,
    PAYMENT_CONFIRM_TIMEOUT_MS: "1000",
    AI_BASE_URL: model.url,
    AI_MODEL: "standin-small",
    AI_PRO_MODEL: "standin-large",
    AI_MAX_RETRIES: "0",
    ...env,
  });
  const services = createServices(config, {
    store,
    schedule: (work) => {
      const running = work().finally(() => background.delete(running));
      background.add(running);
    },
  });
  setServices(services);
  return services;
}

beforeAll(async () => {
  chain = await startLocalChain({ port: 0 });
  rpc = createSolanaRpc(chain.rpcUrl);
  model = await startModelStandin({ port: 0 });
  useServices();
}, 30_000);

afterEach(async () => {
  await Promise.allSettled([...background]);
  model.reset();
  useServices();
});

afterAll(async () => {
  setServices(undefined);
  await model?.close();
  await chain?.close();
});

// ---------------------------------------------------------------------------
// Reading the document
// ---------------------------------------------------------------------------

type Json = Record<string, any>;

async function served(headers: Record<string, string> = {}): Promise<{ response: Response; document: Json }> {
  const response = await openapiRoute.GET(new Request(`${ORIGIN}/api/openapi.json`, { headers }));
  return { response, document: (await response.clone().json()) as Json };
}

const documentFor = (config: Config, base = `${ORIGIN}/api`) =>
  JSON.parse(JSON.stringify(openApiDocument(config, base))) as Json;

/** The value a local `$ref` ("#/a/b") points at, or undefined. */
function resolvePointer(document: Json, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  return ref
    .slice(2)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<unknown>((node, key) => (node && typeof node === "object" ? (node as Json)[key] : undefined), document);
}

function collectRefs(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item) => collectRefs(item, found));
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") found.push(value);
      else collectRefs(value, found);
    }
  }
  return found;
}

/** Validates against one of the document's schemas, its `#/components/...` references resolved within the document. */
function schemaValidator(document: Json, schema: Json) {
  const validator = new Validator({ ...schema, components: document.components }, "2020-12", false);
  return (value: unknown) => validator.validate(value);
}

/** The documented operation a concrete API path and method reach: an exact path first, else a template. */
function operation(document: Json, method: string, apiPath: string): { path: string; op: Json } {
  const path = new URL(apiPath, ORIGIN).pathname.replace(/^\/api/, "") || "/";
  const paths = Object.keys(document.paths);
  const match =
    paths.find((p) => p === path) ??
    paths.find((p) => p.includes("{") && new RegExp(`^${p.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path));
  const op = match ? document.paths[match][method.toLowerCase()] : undefined;
  if (!match || !op) throw new Error(`${method} ${path} is not documented`);
  return { path: match, op };
}

/** The document for the services in use, as the route would serve it to these tests. */
const documentNow = () => documentFor(getServices().config);

/**
 * A real answer checked against the document: its status is documented for
 * the operation, its body is valid under the documented schema (which
 * refuses unknown fields), and it parses with the zod schema given.
 */
async function expectDocumented<T extends z.ZodType>(
  response: Response,
  method: string,
  apiPath: string,
  schema: T,
  document: Json = documentNow(),
): Promise<z.infer<T>> {
  const body = (await response.json()) as unknown;
  const { path, op } = operation(document, method, apiPath);
  const documented = op.responses[String(response.status)];
  expect(
    documented,
    `${method} ${path} answered ${response.status} ${JSON.stringify(body).slice(0, 300)}, which is not documented`,
  ).toBeDefined();
  const check = schemaValidator(document, documented.content["application/json"].schema)(body);
  expect(check.errors.slice(0, 3), `${method} ${path} ${response.status}`).toEqual([]);
  expect(check.valid).toBe(true);
  for (const [name, header] of Object.entries((documented.headers ?? {}) as Record<string, Json>))
    if (header.required)
      expect(response.headers.get(name), `${method} ${path} ${response.status}: header ${name}`).not.toBeNull();
  return schema.parse(body);
}

// ---------------------------------------------------------------------------
// The document's structure
// ---------------------------------------------------------------------------

describe("the document", () => {
  it("is OpenAPI 3.1, valid under the official OAS 3.1 schema, versioned as the package", async () => {
    const { response, document } = await served();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info.version).toBe(packageJson.version);
    OpenApiDocumentSchema.parse(document);

    // tests/fixtures/openapi/: the schema published at spec.openapis.org/oas/3.1/schema/2022-10-07.
    const oas = JSON.parse(readFileSync(join(root, "tests/fixtures/openapi/oas-3.1-schema.json"), "utf8"));
    const validator = new Validator(oas, "2020-12", false);
    expect(validator.validate(document).errors).toEqual([]);
    // The validator does refuse what OpenAPI forbids.
    const broken = structuredClone(document);
    broken.paths["/chunk"].post.parameters = [{ name: "no_location" }];
    expect(validator.validate(broken).valid).toBe(false);
  });

  it("resolves every $ref, and names every operation once", async () => {
    const { document } = await served();
    const refs = collectRefs(document);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) expect(resolvePointer(document, ref), ref).toBeDefined();
    const ids = Object.values(document.paths).flatMap((item) =>
      Object.values(item as Json).map((op) => (op as Json).operationId),
    );
    expect(ids.every((id) => typeof id === "string")).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = new Set(document.tags.map((tag: Json) => tag.name));
    for (const item of Object.values(document.paths))
      for (const op of Object.values(item as Json))
        for (const tag of (op as Json).tags) expect(tags.has(tag)).toBe(true);
  });

  it("documents every route under app/api with the methods it serves; the others answer 405", async () => {
    const { document } = await served();
    const routeFiles: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(join(dir, entry.name));
        else if (entry.name === "route.ts") routeFiles.push(join(dir, entry.name));
      }
    };
    walk(join(root, "app/api"));
    expect(routeFiles.length).toBeGreaterThanOrEqual(11);

    for (const file of routeFiles) {
      const dir = relative(join(root, "app/api"), join(file, ".."));
      if (dir.startsWith("[...")) continue; // the catch-all: unknown paths answer 404 not_found
      if (dir === "jobs/step") continue; // QStash's signed deliveries of job slices: no client calls it
      const template = `/${dir}`.replace(/\/$/, "") || "/";
      const handlers = (await import(file)) as Record<string, unknown>;
      const served = ["GET", "POST", "PUT", "PATCH", "DELETE"].filter(
        (method) => typeof handlers[method] === "function",
      );
      // A dynamic segment stands for documented paths: `[endpoint]` for each tier endpoint, `[id]` for a templated id.
      const pattern = new RegExp(`^${template.replace(/\[[^\]]+\]/g, "(?:\\{[a-z_]+\\}|[a-z-]+)")}$`);
      const documented = Object.keys(document.paths).filter((path) => pattern.test(path));
      expect(documented, `${template} has no documented path`).not.toEqual([]);
      for (const path of documented) {
        const methods = Object.keys(document.paths[path]).map((m) => m.toUpperCase());
        expect(
          methods.every((m) => served.includes(m)),
          `${path}: documents ${methods.join(",")}, the route serves ${served.join(",")}`,
        ).toBe(true);
        for (const method of served.filter((m) => !methods.includes(m))) {
          const concrete = `/api${path.replace(/\{[^}]+\}/g, "standard_000000000000")}`;
          const answer = await call(method, concrete);
          expect(answer.status, `${method} ${concrete}`).toBe(405);
        }
      }
    }
  });

  it("lists every tier endpoint from the tier table, with the payment headers on the paid ones and a job on the async one", async () => {
    const { document } = await served();
    const tierPaths = Object.keys(document.paths).filter((path) => /^\/chunk\/[^/]+$/.test(path));
    expect(tierPaths.sort()).toEqual(TIER_IDS.flatMap((id) => TIERS[id].endpoints).sort());
    for (const id of TIER_IDS) {
      const tier = TIERS[id];
      for (const path of tier.endpoints) {
        const op = document.paths[path].post;
        expect(op["x-chunkwise-tier"]).toBe(id);
        expect(op.tags).toEqual([TAGS.chunking]);
        expect(Object.keys(op.requestBody.content)).toEqual(["multipart/form-data"]);
        expect(op.requestBody.content["multipart/form-data"].schema.oneOf).toEqual([
          { required: ["file"] },
          { required: ["upload_id"] },
        ]);
        // Nothing needs a key (`security: []` everywhere); payment is declared by x-payment-info and the headers.
        expect(op.security).toEqual([]);
        const headers = (op.parameters ?? []).filter((p: Json) => p.in === "header").map((p: Json) => p.name);
        if (isPaid(tier)) {
          expect(headers).toEqual(["X-PAYMENT", "PAYMENT-SIGNATURE", "Idempotency-Key"]);
          expect(op.responses["402"]).toBeDefined();
          expect(op.responses["429"].content["application/json"].schema.properties.code.enum).toEqual([
            "too_many_unpaid_requests",
            "payer_busy",
            "too_many_requests",
            "too_many_jobs",
          ]);
          expect(op.description).toContain(`$${tier.priceBaseUnits / 1e6} USDC`);
        } else {
          expect(headers).toEqual(["Idempotency-Key"]);
          expect(op.responses["402"]).toBeUndefined();
          expect(op.responses["429"].content["application/json"].schema.properties.code.enum).toEqual([
            "free_quota_exceeded",
            "too_many_requests",
            "too_many_jobs",
          ]);
        }
        const ok = JSON.stringify(op.responses["200"].content["application/json"].schema);
        if (tier.mode === "async") expect(ok).toBe(JSON.stringify({ $ref: "#/components/schemas/JobAccepted" }));
        else expect(ok).toContain("#/components/schemas/ChunkingResult");
        expect(op["x-codeSamples"][0].source).toContain(`${ORIGIN}/api${path}`);
      }
    }
    // The URL endpoint takes any tier, so payment is optional there.
    const url = document.paths["/chunk"].post;
    expect(url.security).toEqual([]);
    expect(url.parameters.map((p: Json) => p.name)).toEqual(["X-PAYMENT", "PAYMENT-SIGNATURE", "Idempotency-Key"]);
    expect(url.parameters[0].description).toMatch(/signature/);
    expect(document.components.securitySchemes).toBeUndefined();
    const unsecured = Object.values(document.paths)
      .flatMap((item) => Object.values(item as Json))
      .filter((op) => JSON.stringify((op as Json).security) !== "[]");
    expect(unsecured).toEqual([]);
  });

  it("serves with the API base the request reached, and the faucet only in local mode", async () => {
    expect((await served({ host: "chunks.example:8443" })).document.servers).toEqual([
      { url: "http://chunks.example:8443/api", description: "This server (solana-localnet)" },
    ]);
    useServices({ PUBLIC_BASE_URL: "https://chunkwise.example" });
    const { document: configured } = await served({ host: "ignored.example" });
    expect(configured.servers[0].url).toBe("https://chunkwise.example/api");
    expect(configured.paths["/chunk/free"].post["x-codeSamples"][0].source).toContain(
      "https://chunkwise.example/api/chunk/free",
    );
    expect(configured.paths["/dev/faucet"]).toBeDefined();

    const devnet = documentFor(loadConfig({ SOLANA_NETWORK: "solana-devnet", PAY_TO_ADDRESS: chain.payTo }));
    expect(devnet.paths["/dev/faucet"]).toBeUndefined();
    expect(devnet.tags.map((tag: Json) => tag.name)).not.toContain(TAGS.local);
    expect(devnet.servers[0].description).toContain("solana-devnet");
  });

  it("lists every code of the table under its status, each answered with somewhere, and docs/errors.md's table is the same", async () => {
    const { document } = await served();
    const catalogue = document["x-error-codes"] as Array<{ status: number; code: string; when: string }>;
    const listed = new Map(catalogue.map((entry) => [entry.code, entry.status]));
    expect(listed.size).toBe(catalogue.length);
    expect(Object.keys(ERROR_CODES).length).toBeGreaterThan(60);
    for (const [name, { status }] of Object.entries(ERROR_CODES))
      expect(listed.get(name), `${name} (${status}) is not documented`).toBe(status);
    expect(listed.size).toBe(Object.keys(ERROR_CODES).length);

    // Only a code of the table can be thrown: ApiError takes an ErrorCode and its status from the table.
    expectTypeOf<ConstructorParameters<typeof ApiError>[0]>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<"no_such_code">().not.toExtend<ErrorCode>();
    expect(new ApiError("ocr_too_many_pages", "").status).toBe(413);

    // A code nothing answers with does not stay in the table.
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(join(dir, entry.name));
        else if (/\.tsx?$/.test(entry.name) && entry.name !== "error-codes.ts")
          sources.push(readFileSync(join(dir, entry.name), "utf8"));
      }
    };
    for (const dir of ["lib", "app", "localchain"]) walk(join(root, dir));
    const code = sources.join("\n");
    for (const entry of catalogue)
      expect(code, `${entry.code} is in the table but nothing answers with it`).toContain(`"${entry.code}"`);

    const page = readFileSync(join(root, ERRORS_PAGE), "utf8");
    const table = errorTableMarkdown(errorCatalogue(loadConfig({})));
    expect(withErrorTable(page, table), `${ERRORS_PAGE}'s error table is stale: run npm run docs:errors`).toBe(page);

    // Each operation's error answers use listed codes, under their status.
    for (const item of Object.values(document.paths))
      for (const op of Object.values(item as Json))
        for (const [status, answer] of Object.entries((op as Json).responses as Record<string, Json>)) {
          const codes: string[] | undefined = answer.content?.["application/json"]?.schema?.properties?.code?.enum;
          if (Number(status) >= 400 && codes)
            for (const name of codes)
              expect(listed.get(name), `${(op as Json).operationId} ${status} ${name}`).toBe(Number(status));
        }
  });
});

// ---------------------------------------------------------------------------
// Requests: the document states what the routes accept
// ---------------------------------------------------------------------------

describe("request schemas", () => {
  it("are the zod schemas the routes validate with, with this server's size bounds", async () => {
    const { document } = await served();
    const { config } = getServices();
    const urlBody = document.paths["/chunk"].post.requestBody.content["application/json"].schema;
    const fromRoute = z.toJSONSchema(UrlChunkRequestSchema, { io: "input" }) as Json;
    for (const field of ["url", "tier", "output_format"])
      expect(urlBody.properties[field]).toEqual(fromRoute.properties[field]);
    expect(urlBody.required).toEqual(fromRoute.required);
    for (const field of ["max_tokens", "overlap_tokens"]) {
      expect(fromRoute.properties[field].type).toBe("integer");
      expect(urlBody.properties[field].type).toBe("integer");
      expect(urlBody.properties[field].description).toContain(fromRoute.properties[field].description);
    }
    // The bounds `resolveOptions` enforces after parsing, from the same config.
    expect(urlBody.properties.max_tokens).toMatchObject({
      minimum: config.chunking.minMaxTokens,
      maximum: config.chunking.maxMaxTokens,
      default: config.chunking.defaultMaxTokens,
    });
    expect(urlBody.properties.overlap_tokens).toMatchObject({
      minimum: 0,
      default: config.chunking.defaultOverlapTokens,
    });
    expect(urlBody.properties.tier.enum).toEqual([...TIER_IDS]);

    const uploadBody = document.paths["/chunk/free"].post.requestBody.content["multipart/form-data"].schema;
    expect(Object.keys(uploadBody.properties).sort()).toEqual(
      [...Object.keys(ChunkOptionsSchema.shape), "file", "upload_id"].sort(),
    );
    for (const field of Object.keys(ChunkOptionsSchema.shape))
      expect(uploadBody.properties[field]).toEqual(urlBody.properties[field]);
    expect(uploadBody.properties.file).toMatchObject({ type: "string", format: "binary" });

    const faucetBody = document.paths["/dev/faucet"].post.requestBody.content["application/json"].schema;
    expect(faucetBody.required).toEqual(["address"]);
    expect(faucetBody.properties.address.type).toBe("string");
  });

  // Bodies the route takes reach the payment gate (402 on a paid tier without payment: nothing is fetched or chunked); bodies it refuses answer 400.
  const cases: Array<[string, Json]> = [
    ["the smallest body", { url: "https://example.com/a.pdf" }],
    [
      "every field",
      {
        url: "https://example.com/a.pdf",
        tier: "semantic",
        max_tokens: 256,
        overlap_tokens: 32,
        output_format: "qdrant",
      },
    ],
    ["max_tokens at the lower bound", { url: "https://example.com/a.pdf", max_tokens: 32 }],
    ["max_tokens at the upper bound", { url: "https://example.com/a.pdf", max_tokens: 8192 }],
    ["max_tokens under the bound", { url: "https://example.com/a.pdf", max_tokens: 31 }],
    ["max_tokens over the bound", { url: "https://example.com/a.pdf", max_tokens: 8193 }],
    ["a fractional max_tokens", { url: "https://example.com/a.pdf", max_tokens: 64.5 }],
    ["a negative overlap", { url: "https://example.com/a.pdf", overlap_tokens: -1 }],
    ["no overlap", { url: "https://example.com/a.pdf", max_tokens: 64, overlap_tokens: 0 }],
    ["an unknown output format", { url: "https://example.com/a.pdf", output_format: "csv" }],
    ["an unknown tier", { url: "https://example.com/a.pdf", tier: "gold" }],
    ["an empty url", { url: "" }],
    ["no url", { tier: "structure" }],
    ["a url that is too long", { url: `https://example.com/${"a".repeat(4100)}` }],
  ];

  it("a JSON body the route accepts is valid under the document's schema, and one it refuses is not", async () => {
    const { document } = await served();
    const validate = schemaValidator(
      document,
      document.paths["/chunk"].post.requestBody.content["application/json"].schema,
    );
    let accepted = 0;
    for (const [name, body] of cases) {
      const paid = { ...body, tier: body.tier === undefined || body.tier === "free" ? "structure" : body.tier };
      const response = await call("POST", "/api/chunk", {
        body: JSON.stringify(paid),
        headers: { "content-type": "application/json" },
      });
      expect([400, 402], name).toContain(response.status);
      expect(validate(paid).valid, `${name}: the route answered ${response.status}`).toBe(response.status === 402);
      if (response.status === 402) accepted++;
    }
    expect(accepted).toBe(5);
  });

  it("a multipart body the route accepts is valid under the document's schema, and one it refuses is not", async () => {
    const { document } = await served();
    const validate = schemaValidator(
      document,
      document.paths["/chunk/structure"].post.requestBody.content["multipart/form-data"].schema,
    );
    let accepted = 0;
    for (const [name, { url: _url, tier: _tier, ...options }] of cases) {
      // Form fields travel as text; the document types them as the values they carry.
      const fields = Object.fromEntries(Object.entries(options).map(([key, value]) => [key, String(value)]));
      const response = await call("POST", "/api/chunk/structure", {
        body: upload(`# ${name}\n\n${prose(1)}`, "doc.md", fields),
      });
      expect([400, 402], name).toContain(response.status);
      expect(validate({ file: "<bytes>", ...options }).valid, `${name}: the route answered ${response.status}`).toBe(
        response.status === 402,
      );
      if (response.status === 402) accepted++;
    }
    expect(accepted).toBeGreaterThanOrEqual(8);
    const missingFile = await call("POST", "/api/chunk/structure", {
      body: (() => {
        const form = new FormData();
        form.set("max_tokens", "64");
        return form;
      })(),
    });
    expect(missingFile.status).toBe(400);
    expect(validate({ max_tokens: 64 }).valid).toBe(false);
  });
});

// ---------------------------------------------------------------------------
// Answers: what the routes say is what the document says
// ---------------------------------------------------------------------------

let clientCounter = 0;
const newClient = () => `203.0.113.${++clientCounter}`;

async function funded(): Promise<TransactionSigner> {
  const signer = await generateKeyPairSigner();
  const response = await call("POST", "/api/dev/faucet", {
    body: JSON.stringify({ address: signer.address }),
    headers: { "content-type": "application/json" },
  });
  const answer = await expectDocumented(response, "POST", "/api/dev/faucet", FaucetAnswerSchema);
  expect(answer.address).toBe(signer.address);
  return signer;
}

const post = (
  endpoint: string,
  document: string,
  headers: Record<string, string> = {},
  fields: Record<string, string> = {},
) =>
  call("POST", `/api/chunk/${endpoint}`, { body: upload(document, "notes.md", fields), headers, client: newClient() });

/** The spec's flow: ask, read the 402, pay with the reference in a Memo. */
async function payFor(endpoint: string, document: string, fields: Record<string, string> = {}): Promise<string> {
  const required = await expectDocumented(
    await post(endpoint, document, {}, fields),
    "POST",
    `/api/chunk/${endpoint}`,
    PaymentRequiredSchema,
  );
  expect(required.code).toBe("payment_required");
  const { maxAmountRequired, payTo, asset, extra } = required.paymentRequirements;
  return transferToken(rpc, await funded(), {
    owner: payTo,
    mint: asset,
    amount: BigInt(maxAmountRequired),
    memo: memoInstruction(extra.reference!),
  });
}

let documentCounter = 0;
const newDocument = () =>
  `# Notes ${++documentCounter}\n\nAbout the orchard: apple trees need pruning in late winter.\n\n## Invoices\n\nPayment is due within thirty days. ${prose(1, documentCounter)}`;

describe("answers match the documented schemas", () => {
  it("GET /api, /api/health, /api/quota and /api/openapi.json", async () => {
    const info = await expectDocumented(await call("GET", "/api"), "GET", "/api", ApiInfoSchema);
    expect(info.tiers.map((tier) => tier.id)).toEqual([...TIER_IDS]);
    const health = await expectDocumented(await call("GET", "/api/health"), "GET", "/api/health", HealthSchema);
    expect(health.status).toBe("healthy");
    const quota = await quotaRoute.GET(new Request(`${ORIGIN}/api/quota`, { headers: { [PEER_HEADER]: newClient() } }));
    expect((await expectDocumented(quota, "GET", "/api/quota", FreeQuotaSchema)).remaining).toBe(100);
    const { response } = await served();
    await expectDocumented(response, "GET", "/api/openapi.json", OpenApiDocumentSchema);
  });

  it("free tier: inline results in every output format, a PDF's pages, a stored result and its download", async () => {
    for (const format of ["raw", "pinecone", "weaviate", "chroma", "qdrant"]) {
      const result = await expectDocumented(
        await post("free", newDocument(), {}, { max_tokens: "64", output_format: format }),
        "POST",
        "/api/chunk/free",
        ChunkingResultSchema,
      );
      expect(result.metadata.output_format).toBe(format);
      expect(result.chunks.length).toBe(result.total_chunks);
    }
    const pdf = await call("POST", "/api/chunk/demo", {
      body: upload(fixture("multipage.pdf"), "multipage.pdf", { max_tokens: "64" }),
      client: newClient(),
    });
    const pages = await expectDocumented(pdf, "POST", "/api/chunk/demo", ChunkingResultSchema);
    expect(
      pages.chunks.some(
        (chunk) => ChunkMetadataSchema.safeParse((chunk as { metadata?: unknown }).metadata).data?.page_end === 4,
      ),
    ).toBe(true);

    const large = await call("POST", "/api/chunk/free", {
      body: upload(prose(8), "long.txt", { max_tokens: "32", overlap_tokens: "0" }),
      client: newClient(),
    });
    const summary = await expectDocumented(large, "POST", "/api/chunk/free", StoredResultSummarySchema);
    expect(summary.total_chunks).toBeGreaterThanOrEqual(100);
    expect(summary.download_url).toBe(`${ORIGIN}/api/results/${summary.result_id}`);
    const stored = await expectDocumented(
      await call("GET", summary.download_url),
      "GET",
      summary.download_url,
      StoredResultSchema,
    );
    expect(stored.chunks).toHaveLength(summary.total_chunks);
  });

  it("errors: 400, 404, 405-free paths, 413, 415, 429 and 503, each a documented code of its operation", async () => {
    const expectError = async (response: Response, method: string, path: string, code: string) =>
      expect((await expectDocumented(response, method, path, ErrorBodySchema)).code).toBe(code);

    await expectError(
      await post("free", newDocument(), {}, { max_tokens: "4" }),
      "POST",
      "/api/chunk/free",
      "invalid_options",
    );
    await expectError(
      await call("POST", "/api/chunk/free", { body: "plain", headers: { "content-type": "text/plain" } }),
      "POST",
      "/api/chunk/free",
      "expected_multipart",
    );
    await expectError(
      await call("POST", "/api/chunk/free", { body: upload(fixture("corrupted.pdf"), "x.pdf"), client: newClient() }),
      "POST",
      "/api/chunk/free",
      "corrupted_pdf",
    );
    await expectError(
      await call("POST", "/api/chunk/free", { body: upload(fixture("image.gif"), "x.gif"), client: newClient() }),
      "POST",
      "/api/chunk/free",
      "unsupported_type",
    );
    await expectError(
      await call("POST", "/api/chunk", { body: "{", headers: { "content-type": "application/json" } }),
      "POST",
      "/api/chunk",
      "invalid_json",
    );
    await expectError(
      await call("POST", "/api/chunk", {
        body: JSON.stringify({ url: "ftp://example.com/a", tier: "free" }),
        headers: { "content-type": "application/json" },
      }),
      "POST",
      "/api/chunk",
      "invalid_url",
    );
    await expectError(
      await call("POST", "/api/chunk", {
        body: JSON.stringify({ url: "http://127.0.0.1/a", tier: "free" }),
        headers: { "content-type": "application/json" },
      }),
      "POST",
      "/api/chunk",
      "url_forbidden",
    );
    await expectError(
      await call("GET", "/api/results/standard_000000000000"),
      "GET",
      "/api/results/standard_000000000000",
      "expired_or_unknown",
    );
    await expectError(
      await call("GET", "/api/job/ai-pro_000000000000/status"),
      "GET",
      "/api/job/ai-pro_000000000000/status",
      "expired_or_unknown",
    );
    await expectError(
      await call("GET", "/api/job/ai-pro_000000000000/result"),
      "GET",
      "/api/job/ai-pro_000000000000/result",
      "expired_or_unknown",
    );
    await expectError(
      await call("POST", "/api/dev/faucet", {
        body: JSON.stringify({ address: "nope" }),
        headers: { "content-type": "application/json" },
      }),
      "POST",
      "/api/dev/faucet",
      "invalid_request",
    );

    useServices({ MAX_UPLOAD_BYTES: "1024" });
    await expectError(await post("free", prose(1)), "POST", "/api/chunk/free", "file_too_large");
    useServices({ FREE_PAGES_PER_DAY: "1" });
    await expectError(await post("free", prose(2)), "POST", "/api/chunk/free", "free_quota_exceeded");
    useServices({ AI_MODEL: "", AI_PRO_MODEL: "" });
    await expectError(await post("ai", newDocument()), "POST", "/api/chunk/ai", "ai_not_configured");
  });

  it("paid tiers: the 402, then the paid result with its payment, for structure, semantic and ai", async () => {
    for (const [endpoint, method] of [
      ["standard", "structure"],
      ["semantic", "semantic"],
      ["ai", "ai-boundaries"],
    ] as const) {
      const document = newDocument();
      const signature = await payFor(endpoint, document);
      const result = await expectDocumented(
        await post(endpoint, document, { "X-PAYMENT": signature }),
        "POST",
        `/api/chunk/${endpoint}`,
        ChunkingResultSchema,
      );
      expect(result.metadata.method).toBe(method);
      expect(result.payment).toEqual({
        amount: TIERS[result.tier].priceBaseUnits,
        asset: "USDC",
        network: "solana-localnet",
        transaction: signature,
      });
      if (endpoint === "ai") expect(result.metadata.ai?.model).toBe("standin-small");
      if (endpoint === "semantic") expect(result.metadata.embedder).toBeTruthy();
      // The same payment for another request is refused with a documented code.
      const reused = await post(endpoint, newDocument(), { "X-PAYMENT": signature });
      expect((await expectDocumented(reused, "POST", `/api/chunk/${endpoint}`, PaymentRequiredSchema)).code).toMatch(
        /^payment_(already_used|reference_mismatch)$/,
      );
    }
    const url = await call("POST", "/api/chunk", {
      body: JSON.stringify({ url: "https://example.com/paper.pdf", tier: "ai-pro" }),
      headers: { "content-type": "application/json" },
    });
    const required = await expectDocumented(url, "POST", "/api/chunk", PaymentRequiredSchema);
    expect(required.accepts[0]!.network).toBe("solana-devnet");
    expect(required.paymentRequirements.extra.feePayer).toBe(chain.feePayer.address);
  });

  it("ai-pro: the job, its status while processing and when completed, and its enriched result", async () => {
    model.control({ delayMs: 150 });
    const document = `${newDocument()}\n\n## Volcanoes\n\nBasaltic lava flows far because it is hot and runny, said Maria Lopez in Reykjavik.`;
    const signature = await payFor("ai-pro", document, { max_tokens: "96" });
    const job = await expectDocumented(
      await post("ai-pro", document, { "X-PAYMENT": signature }, { max_tokens: "96" }),
      "POST",
      "/api/chunk/ai-pro",
      JobAcceptedSchema,
    );
    const statusPath = new URL(job.status_url).pathname;
    const resultPath = statusPath.replace(/status$/, "result");

    const early = await call("GET", resultPath);
    if (early.status === 409)
      expect((await expectDocumented(early, "GET", resultPath, ErrorBodySchema)).code).toBe("job_not_finished");
    const seen: string[] = [];
    const deadline = Date.now() + 20_000;
    let status = await expectDocumented(await call("GET", statusPath), "GET", statusPath, JobStatusSchema);
    while (status.status === "processing" && Date.now() < deadline) {
      seen.push(status.status);
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = await expectDocumented(await call("GET", statusPath), "GET", statusPath, JobStatusSchema);
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(status).toMatchObject({ status: "completed", progress: 100 });

    const result = await expectDocumented(await call("GET", resultPath), "GET", resultPath, StoredResultSchema);
    expect(result.job_id).toBe(job.job_id);
    const chunks = result.chunks.map((chunk) => ChunkMetadataSchema.parse((chunk as { metadata: unknown }).metadata));
    expect(chunks.every((metadata) => typeof metadata.summary === "string")).toBe(true);
    expect(result.document_summary).toBeTruthy();
    await expectDocumented(await call("GET", status.download_url!), "GET", status.download_url!, StoredResultSchema);
  });
});

// ---------------------------------------------------------------------------
// The docs page's TypeScript examples, run as a reader would run them
// ---------------------------------------------------------------------------

describe("the docs page's examples", () => {
  let server: Server;
  let base: string;
  let workdir: string;
  const PAPER = `# Field notes\n\n${prose(2, 7)}`;

  /** The route handlers over real HTTP, as the examples call them; `/paper.md` is the document the URL example fetches. */
  beforeAll(async () => {
    server = createServer(async (request, response) => {
      if (request.url === "/paper.md") {
        response.writeHead(200, { "content-type": "text/markdown" }).end(PAPER);
        return;
      }
      const parts: Buffer[] = [];
      for await (const part of request) parts.push(part as Buffer);
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(
          (entry): entry is [string, string] =>
            typeof entry[1] === "string" && !["content-length", "connection", "transfer-encoding"].includes(entry[0]),
        ),
      );
      const answer = await call(request.method!, request.url!, {
        body: parts.length ? Buffer.concat(parts) : undefined,
        headers,
      });
      response
        .writeHead(answer.status, Object.fromEntries(answer.headers))
        .end(Buffer.from(await answer.arrayBuffer()));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // A reader's project: the examples' packages resolvable, a report.pdf beside them.
    workdir = mkdtempSync(join(tmpdir(), "chunkwise-docs-"));
    symlinkSync(join(root, "node_modules"), join(workdir, "node_modules"), "dir");
    writeFileSync(join(workdir, "package.json"), JSON.stringify({ type: "module" }));
    copyFileSync(join(root, "tests/fixtures/multipage.pdf"), join(workdir, "report.pdf"));
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    if (workdir) rmSync(workdir, { recursive: true, force: true });
  });

  /** Runs an example as a file of the reader's project; asynchronously, since the service answers from this process. */
  function run(name: string, code: string): Promise<{ code: number; stdout: string; stderr: string }> {
    writeFileSync(join(workdir, name), code);
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", name],
        { cwd: workdir, timeout: 60_000, encoding: "utf8" },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  const usdcOf = async (owner: string) =>
    BigInt((await rpc.getTokenAccountBalance(await associatedTokenAccount(owner, chain.usdcMint)).send()).value.amount);

  it("the agent flow pays for a URL on the local chain and prints the chunks", async () => {
    useServices({ URL_FETCH_ALLOW_PRIVATE: "true" });
    const info = ApiInfoSchema.parse(
      await (await call("GET", "/api", { headers: { host: new URL(base).host } })).json(),
    );
    const example = agentExample({
      apiBase: `${base}/api`,
      rpcUrl: info.payment.rpc_url,
      faucetUrl: info.localnet?.faucet_url,
      documentUrl: `${base}/paper.md`,
    });
    expect(example.code).toContain(`${base}/api/dev/faucet`);
    const before = await usdcOf(chain.payTo);
    const result = await run("agent.mts", example.code);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^\d+ chunks, paid with [1-9A-HJ-NP-Za-km-z]{64,88}\n$/);
    expect((await usdcOf(chain.payTo)) - before).toBe(BigInt(TIERS.structure.priceBaseUnits));
  }, 90_000);

  it("x402-fetch pays for an upload and prints the settled transaction", async () => {
    const info = ApiInfoSchema.parse(
      await (await call("GET", "/api", { headers: { host: new URL(base).host } })).json(),
    );
    expect(info.payment.x402?.network).toBe("solana-devnet");
    const example = x402Example({
      apiBase: `${base}/api`,
      rpcUrl: info.payment.rpc_url,
      x402Network: info.payment.x402?.network,
      faucetUrl: info.localnet?.faucet_url,
    });
    const before = await usdcOf(chain.payTo);
    const result = await run("x402.mts", example.code);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^\d+ chunks, paid in [1-9A-HJ-NP-Za-km-z]{64,88}\n$/);
    expect((await usdcOf(chain.payTo)) - before).toBe(BigInt(TIERS.structure.priceBaseUnits));
  }, 90_000);

  it.each([
    ["@x402/fetch 2.x (v2 only) pays for an upload", x402V2Example, "v2.mts"],
    ["an MCP SDK client is offered the payment, pays it in _meta and gets the chunks", mcpExample, "mcp.mts"],
  ])(
    "%s, as the docs show it",
    async (_name, example, file) => {
      const info = ApiInfoSchema.parse(
        await (await call("GET", "/api", { headers: { host: new URL(base).host } })).json(),
      );
      const { code } = example({
        apiBase: `${base}/api`,
        rpcUrl: info.payment.rpc_url,
        faucetUrl: info.localnet?.faucet_url,
      });
      const before = await usdcOf(chain.payTo);
      const result = await run(file, code);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^\d+ chunks, paid in [1-9A-HJ-NP-Za-km-z]{64,88}\n$/);
      expect((await usdcOf(chain.payTo)) - before).toBe(BigInt(TIERS.structure.priceBaseUnits));
    },
    90_000,
  );

  it.each([
    ["a batch paid once with @x402/fetch 2.x", batchExample, "batch.mts", /^\d+ chunks of 2 documents, paid \d+\n$/],
    [
      "an MCP SDK client pays chunk_documents' offer once and gets every document's chunks",
      mcpBatchExample,
      "mcp-batch.mts",
      /^\d+ chunks of 2 documents\n$/,
    ],
  ])(
    "%s, as the docs show it",
    async (_name, example, file, printed) => {
      const info = ApiInfoSchema.parse(
        await (await call("GET", "/api", { headers: { host: new URL(base).host } })).json(),
      );
      const { code } = example({
        apiBase: `${base}/api`,
        rpcUrl: info.payment.rpc_url,
        faucetUrl: info.localnet?.faucet_url,
      });
      const before = await usdcOf(chain.payTo);
      const result = await run(file, code);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(printed);
      // Two documents pass the free check: the price of two.
      expect((await usdcOf(chain.payTo)) - before).toBe(2n * BigInt(TIERS.structure.priceBaseUnits));
    },
    120_000,
  );
});

// ---------------------------------------------------------------------------
// Types: the core's and the page's types agree with the schemas (checked by `tsc --noEmit`)
// ---------------------------------------------------------------------------

type Infer<T extends z.ZodType> = z.infer<T>;
expectTypeOf<ChunkMetadata>().toEqualTypeOf<Infer<typeof ChunkMetadataSchema>>();
expectTypeOf<PineconeRecord>().toExtend<Infer<typeof PineconeRecordSchema>>();
expectTypeOf<ChromaRecord>().toExtend<Infer<typeof ChromaRecordSchema>>();
expectTypeOf<WeaviateObject>().toExtend<Infer<typeof WeaviateObjectSchema>>();
expectTypeOf<QdrantPoint>().toExtend<Infer<typeof QdrantPointSchema>>();
expectTypeOf<ReturnType<typeof apiInfo>["tiers"]>().toExtend<Infer<typeof ApiInfoSchema>["tiers"]>();
expectTypeOf<Awaited<ReturnType<typeof checkHealth>>>().toExtend<Infer<typeof HealthSchema>>();
// The faucet's `success: true` is widened to boolean in lib/; the answer itself is parsed above.
expectTypeOf<Omit<Awaited<ReturnType<typeof runFaucet>>, "success">>().toExtend<
  Omit<Infer<typeof FaucetAnswerSchema>, "success">
>();
// What the API answers is what the page's client expects.
expectTypeOf<Infer<typeof ApiInfoSchema>>().toExtend<web.ApiInfo>();
expectTypeOf<Infer<typeof ChunkingResultSchema>>().toExtend<web.ResultAnswer>();
expectTypeOf<Infer<typeof StoredResultSummarySchema>>().toExtend<web.ResultAnswer>();
expectTypeOf<Infer<typeof StoredResultSchema>>().toExtend<web.ResultAnswer>();
expectTypeOf<Infer<typeof JobAcceptedSchema>>().toExtend<web.JobAccepted>();
expectTypeOf<Infer<typeof JobStatusSchema>>().toExtend<web.JobStatus>();
expectTypeOf<Infer<typeof PaymentRequiredSchema>>().toExtend<web.PaymentRequired>();
expectTypeOf<Infer<typeof ErrorBodySchema>>().toExtend<web.ErrorBody>();
expectTypeOf<Infer<typeof FreeQuotaSchema>>().toExtend<web.FreeQuota>();
expectTypeOf<Infer<typeof ChunkMetadataSchema>>().toExtend<web.Chunk["metadata"]>();
