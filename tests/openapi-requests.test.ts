import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TIER_IDS } from "@/lib/tiers";
import { ChunkOptionsSchema, UrlChunkRequestSchema } from "@/lib/api-schema";
import { getServices } from "@/lib/services";
import { call, prose, upload } from "./helpers/api";
import { type Json, openApiSuite, served, schemaValidator } from "./helpers/openapi";

/**
 * The OpenAPI document's request schemas are the zod schemas the routes validate with: a body the route accepts
 * is valid under the document, and one it refuses is not.
 */

openApiSuite();

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
