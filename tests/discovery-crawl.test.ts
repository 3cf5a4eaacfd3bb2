import {
  GuidanceMode,
  checkEndpointSchema,
  discoverOriginSchema,
  getOpenAPI,
  getWarningsForOpenAPI,
  validatePaymentRequiredDetailed,
} from "@agentcash/discovery";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TIER_IDS, TIERS, isPaid } from "@/lib/tiers";
import { call, serveApi } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";

/**
 * The service as x402scan registers it: `@agentcash/discovery` is the discovery runtime x402scan runs (its
 * docs/DISCOVERY.md): the OpenAPI document at `/openapi.json`, each operation classified by `security` and
 * `x-payment-info`, and each paid route probed with a bodiless POST that must answer 402 with a parseable
 * challenge carrying a bazaar input schema; otherwise the route is "skipped" or "failed".
 */

const PAY_TO = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const paid = TIER_IDS.map((id) => TIERS[id]).filter(isPaid);
const paidPaths = paid.flatMap((tier) => tier.endpoints.map((path) => ({ tier, path })));
const batchPaths = paid.map((tier) => ({ tier, path: `/batch/${tier.id}` }));

let api: Awaited<ReturnType<typeof serveApi>>;
serviceHarness({
  store: "memory",
  env: () => ({
    SOLANA_NETWORK: "solana-devnet",
    PAY_TO_ADDRESS: PAY_TO,
    SOLANA_RPC_URL: "http://127.0.0.1:9",
    CONTACT_EMAIL: "operator@chunkwise.example",
  }),
});
beforeAll(async () => {
  api = await serveApi();
});
afterAll(() => api?.close());

describe("discovery as x402scan runs it", () => {
  it("finds the OpenAPI document at the origin, with guidance and a contact, and no error-level warning", async () => {
    const found = await discoverOriginSchema({ target: api.base, guidance: GuidanceMode.Always });
    expect(found.found).toBe(true);
    if (!found.found) return;
    expect(found.source).toBe("openapi");
    expect(found.info?.contactEmail).toBe("operator@chunkwise.example");
    expect(found.guidanceAvailable).toBe(true);
    expect(found.guidance).toContain("402");

    const document = await getOpenAPI(api.base);
    expect(document.isOk()).toBe(true);
    const warnings = getWarningsForOpenAPI(document.isOk() ? document.value : null);
    expect(warnings.filter((warning) => warning.severity === "error")).toEqual([]);
  });

  it("classifies the paid routes as paid at their price, every other one as free, none as needing a key", async () => {
    const found = await discoverOriginSchema({ target: api.base });
    if (!found.found) throw new Error(`not found: ${found.cause}`);
    const byKey = new Map(found.endpoints.map((endpoint) => [`${endpoint.method} ${endpoint.path}`, endpoint]));
    for (const { tier, path } of paidPaths) {
      const endpoint = byKey.get(`POST /api${path}`);
      expect(endpoint, path).toMatchObject({ authMode: "paid", pricingMode: "fixed" });
      expect(endpoint!.price).toBe(`${(tier.priceBaseUnits / 1e6).toFixed(6)} USD`);
      expect(endpoint!.protocols).toEqual(["x402"]);
    }
    expect(byKey.get("POST /api/chunk")).toMatchObject({ authMode: "paid", pricingMode: "dynamic" });
    // A batch costs its accepted documents times the tier's price.
    for (const { path } of batchPaths)
      expect(byKey.get(`POST /api${path}`), path).toMatchObject({ authMode: "paid", pricingMode: "dynamic" });
    expect(byKey.get("POST /api/batch/free")).toMatchObject({ authMode: "unprotected" });
    const paidKeys = new Set(
      [...paidPaths, ...batchPaths].map(({ path }) => `POST /api${path}`).concat("POST /api/chunk"),
    );
    const others = found.endpoints.filter((endpoint) => !paidKeys.has(`${endpoint.method} ${endpoint.path}`));
    expect(others.length).toBeGreaterThan(5);
    for (const endpoint of others) expect(endpoint.authMode, endpoint.path).toBe("unprotected");
  });

  it("answers every paid route's bodiless probe with a valid 402 carrying the bazaar input schema", async () => {
    for (const path of [...paidPaths.map(({ path }) => path), ...batchPaths.map(({ path }) => path), "/chunk"]) {
      const checked = await checkEndpointSchema({ url: `${api.base}/api${path}`, probe: true });
      expect(checked.found, path).toBe(true);
      if (!checked.found) continue;
      const post = checked.advisories.find((advisory) => advisory.method === "POST");
      expect(post, path).toMatchObject({ authMode: "paid" });
      expect(post!.paymentOptions?.length, path).toBeGreaterThan(0);
      const validation = validatePaymentRequiredDetailed(post!.paymentRequiredBody);
      expect(
        validation.issues.filter((issue) => issue.severity === "error"),
        path,
      ).toEqual([]);
      const bazaar = (post!.paymentRequiredBody as { extensions?: { bazaar?: { info?: unknown; schema?: unknown } } })
        .extensions?.bazaar;
      expect(bazaar?.info, path).toBeDefined();
      expect(bazaar?.schema, path).toBeDefined();
    }
  });

  it("offers each paid tier on the URL route's probe, in token atomic units", async () => {
    const probe = await fetch(`${api.base}/api/chunk`, { method: "POST" });
    expect(probe.status).toBe(402);
    const required = decodePaymentRequiredHeader(probe.headers.get("payment-required")!);
    expect(required.accepts.map((offer) => offer.amount).sort()).toEqual(
      paid.map((tier) => String(tier.priceBaseUnits)).sort(),
    );
    const body = (await probe.json()) as { accepts: { maxAmountRequired: string; extra: { tier: string } }[] };
    expect(body.accepts.map((offer) => offer.extra.tier).sort()).toEqual(paid.map((tier) => tier.id).sort());
  });

  it("still refuses a free route's bodiless POST and a paid route's malformed body with 400", async () => {
    expect((await fetch(`${api.base}/api/chunk/free`, { method: "POST" })).status).toBe(400);
    expect((await fetch(`${api.base}/api/batch/free`, { method: "POST" })).status).toBe(400);
    const malformed = await fetch(`${api.base}/api/chunk/structure`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "not a form",
    });
    expect(malformed.status).toBe(400);
  });

  it("puts the bazaar input schema in the MCP tool's payment-required result", async () => {
    const answer = await call("POST", "/api/mcp", {
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "chunk_document", arguments: { text: "# A\n\nSome text.", tier: "structure" } },
      }),
    });
    const text = await answer.text();
    const message = JSON.parse(text.startsWith("{") ? text : text.replace(/^[\s\S]*?data: /, "")) as {
      result: { isError: boolean; structuredContent: { x402Version: number; extensions?: Record<string, any> } };
    };
    expect(message.result.isError).toBe(true);
    expect(message.result.structuredContent.x402Version).toBe(2);
    const bazaar = message.result.structuredContent.extensions?.bazaar;
    expect(bazaar?.info?.input).toMatchObject({ type: "mcp", toolName: "chunk_document" });
    expect(bazaar?.schema).toBeDefined();
  });
});
