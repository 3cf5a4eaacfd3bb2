import { describe, expect, it } from "vitest";
import * as wellKnown from "@/app/.well-known/x402/route";
import * as llms from "@/app/llms.txt/route";
import { X402DiscoverySchema } from "@/lib/api-schema";
import { loadConfig } from "@/lib/ground/config";
import { openApiDocument } from "@/lib/openapi";
import { TIER_IDS, TIERS, isPaid, priceUsd } from "@/lib/tiers";
import { ORIGIN } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";

/** What agents and crawlers read before calling: /.well-known/x402, /llms.txt and the OpenAPI document's x-payment-info. */

const PAY_TO = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

const env = {
  SOLANA_NETWORK: "solana-devnet",
  PAY_TO_ADDRESS: PAY_TO,
  SOLANA_RPC_URL: "http://127.0.0.1:9",
};
const config = loadConfig(env);
serviceHarness({ store: "memory", env: () => env });

const paid = TIER_IDS.map((id) => TIERS[id]).filter(isPaid);

describe("GET /.well-known/x402", () => {
  it("lists every paid endpoint, the URL endpoint and the MCP tool of each paid tier, with the tier table's price", async () => {
    const response = await wellKnown.GET(new Request(`${ORIGIN}/.well-known/x402`));
    expect(response.status).toBe(200);
    const discovery = X402DiscoverySchema.parse(await response.json());
    expect(discovery.service.mcp).toBe(`${ORIGIN}/api/mcp`);
    for (const tier of paid) {
      const mine = discovery.resources.filter((r) => r.tier === tier.id);
      expect(mine.map((r) => r.resource).sort()).toEqual(
        [...tier.endpoints.map((p) => `${ORIGIN}/api${p}`), `${ORIGIN}/api/chunk`, `${ORIGIN}/api/mcp`].sort(),
      );
      for (const resource of mine)
        expect(resource.accepts).toEqual([
          expect.objectContaining({
            scheme: "exact",
            network: DEVNET,
            network_v1: "solana-devnet",
            amount: String(tier.priceBaseUnits),
            price_usd: priceUsd(tier),
            payTo: PAY_TO,
          }),
        ]);
    }
    expect(discovery.resources.some((r) => r.tier === "free")).toBe(false);
  });
});

describe("GET /llms.txt", () => {
  it("says what the service does, each tier with its price, how to pay, the MCP endpoint and where the docs are", async () => {
    const response = await llms.GET(new Request(`${ORIGIN}/llms.txt`));
    expect(response.headers.get("content-type")).toMatch(/^text\/markdown/);
    const text = await response.text();
    expect(text).toMatch(/^# Chunkwise\n\n> /);
    for (const tier of paid) expect(text).toContain(`**${tier.id}** ($${priceUsd(tier)} USDC per request`);
    expect(text).toContain("**free** (free, 100 pages a day");
    expect(text).toContain(`${ORIGIN}/api/mcp`);
    expect(text).toContain("PAYMENT-SIGNATURE");
    expect(text).toContain(`(${ORIGIN}/api/openapi.json)`);
    expect(text).toContain(`(${ORIGIN}/docs)`);
  });
});

describe("x-payment-info in the OpenAPI document", () => {
  it("is on every paid operation with its price, and on no free one", async () => {
    const document = JSON.parse(JSON.stringify(openApiDocument(config, `${ORIGIN}/api`))) as {
      paths: Record<string, { post?: Record<string, any> }>;
    };
    for (const id of TIER_IDS)
      for (const path of TIERS[id].endpoints) {
        const info = document.paths[path]!.post!["x-payment-info"];
        if (isPaid(TIERS[id]))
          expect(info).toMatchObject({
            price: { mode: "fixed", currency: "USD", amount: (TIERS[id].priceBaseUnits / 1e6).toFixed(6) },
            protocols: [{ x402: { scheme: "exact", network: DEVNET, payTo: PAY_TO } }],
            tiers: { [id]: { amount: String(TIERS[id].priceBaseUnits), currency: "USDC" } },
          });
        else expect(info).toBeUndefined();
      }
    // The URL endpoint serves every tier, the free one too; MCP's payment travels inside its calls.
    const url = document.paths["/chunk"]!.post!;
    expect(url["x-payment-info"].price).toEqual({
      mode: "dynamic",
      currency: "USD",
      min: "0.000000",
      max: (Math.max(...paid.map((t) => t.priceBaseUnits)) / 1e6).toFixed(6),
    });
    expect(Object.keys(url["x-payment-info"].tiers).sort()).toEqual(paid.map((t) => t.id).sort());
    expect(document.paths["/mcp"]!.post!["x-payment-info"]).toBeUndefined();
    expect(Object.keys(document.paths["/mcp"]!.post!["x-mcp-payment-info"].tiers).sort()).toEqual(
      paid.map((t) => t.id).sort(),
    );
  });
});
