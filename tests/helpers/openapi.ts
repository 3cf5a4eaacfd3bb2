/**
 * What the OpenAPI suites share (tests/openapi-*.test.ts, tests/error-table.test.ts, tests/docs-examples.test.ts):
 * the route handlers in process on a memory store, paid on the project's local chain, the AI tiers on the local
 * stand-in model; and the readers that check a real answer against the served document.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Validator } from "@cfworker/json-schema";
import { afterEach, beforeAll, expect } from "vitest";
import type { z } from "zod";
import * as openapiRoute from "@/app/api/openapi.json/route";
import type { Config } from "@/lib/ground/config";
import type { LocalChain } from "@/localchain";
import { openApiDocument } from "@/lib/openapi";
import { type Services, getServices } from "@/lib/services";
import type { ModelStandin } from "@/standin/model-server";
import { ORIGIN } from "./api";
import type { Rpc } from "./chain";
import { type Harness, serviceHarness } from "./service-harness";

export const root = join(import.meta.dirname, "../..");
export const fixture = (name: string) => new Uint8Array(readFileSync(join(root, "tests/fixtures", name)));

export let chain: LocalChain;
export let rpc: Rpc;
export let model: ModelStandin;
let harness: Harness | undefined;

/** Services with these settings over the suite's, installed until the test ends. */
export function useServices(env: Record<string, string> = {}): Services {
  if (!harness) throw new Error("call openApiSuite() in the file first");
  return harness.use(env);
}

/** Starts the chain and the model stand-in for the calling file, and gives each test fresh services. */
export function openApiSuite(): void {
  const suite = serviceHarness({
    store: "memory",
    chain: true,
    feePayer: true,
    model: true,
    env: () => ({ AI_MAX_RETRIES: "0" }),
  });
  harness = suite;
  beforeAll(() => {
    ({ chain, rpc, model } = suite);
  });
  afterEach(async () => {
    await suite.drain();
    suite.use();
  });
}

export type Json = Record<string, any>;

export async function served(headers: Record<string, string> = {}): Promise<{ response: Response; document: Json }> {
  const response = await openapiRoute.GET(new Request(`${ORIGIN}/api/openapi.json`, { headers }));
  return { response, document: (await response.clone().json()) as Json };
}

export const documentFor = (config: Config, base = `${ORIGIN}/api`) =>
  JSON.parse(JSON.stringify(openApiDocument(config, base))) as Json;

/** The value a local `$ref` ("#/a/b") points at, or undefined. */
export function resolvePointer(document: Json, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  return ref
    .slice(2)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<unknown>((node, key) => (node && typeof node === "object" ? (node as Json)[key] : undefined), document);
}

export function collectRefs(node: unknown, found: string[] = []): string[] {
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
export function schemaValidator(document: Json, schema: Json) {
  const validator = new Validator({ ...schema, components: document.components }, "2020-12", false);
  return (value: unknown) => validator.validate(value);
}

/** The documented operation a concrete API path and method reach: an exact path first, else a template. */
export function operation(document: Json, method: string, apiPath: string): { path: string; op: Json } {
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
export const documentNow = () => documentFor(getServices().config);

/**
 * A real answer checked against the document: its status is documented for
 * the operation, its body is valid under the documented schema (which
 * refuses unknown fields), and it parses with the zod schema given.
 */
export async function expectDocumented<T extends z.ZodType>(
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
