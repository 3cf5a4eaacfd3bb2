import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { OpenApiDocumentSchema } from "@/lib/api-schema";
import { loadConfig } from "@/lib/ground/config";
import { TAGS } from "@/lib/openapi";
import { TIERS, TIER_IDS, isPaid } from "@/lib/tiers";
import packageJson from "@/package.json";
import { ORIGIN, call } from "./helpers/api";
import {
  type Json,
  chain,
  documentFor,
  openApiSuite,
  root,
  served,
  collectRefs,
  resolvePointer,
  useServices,
} from "./helpers/openapi";

/**
 * The OpenAPI document (`GET /api/openapi.json`): valid OpenAPI 3.1, every $ref resolved, covering every route
 * with the methods it serves, the tier endpoints from the tier table, served with the API base the request reached.
 */

openApiSuite();

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
    // Batches take an idempotency key too (and answer its 409s), paid or free.
    for (const id of TIER_IDS) {
      const op = document.paths[`/batch/${id}`].post;
      const headers = (op.parameters ?? []).filter((p: Json) => p.in === "header").map((p: Json) => p.name);
      expect(headers).toEqual([...(isPaid(TIERS[id]) ? ["X-PAYMENT", "PAYMENT-SIGNATURE"] : []), "Idempotency-Key"]);
      expect(op.responses["409"].content["application/json"].schema.properties.code.enum).toEqual(
        expect.arrayContaining(["idempotency_key_reused", "idempotency_key_in_flight"]),
      );
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
});
