import { redirectLogs } from "@/lib/observability/log";
import { describe, expect, it } from "vitest";
import { ConfigError, MAINNET_USDC_MINT, loadConfig } from "@/lib/ground/config";
import { setServices } from "@/lib/services";
import { call, funded, json, upload } from "./helpers/api";
import { transferToken } from "./helpers/chain";
import { serviceHarness } from "./helpers/service-harness";

/**
 * Start-up refuses a configuration that cannot be right (issue 26,
 * reproduction 10) on every host: through the services' first use and the
 * route handlers, not only server.mjs (which Vercel does not run).
 */

const h = serviceHarness({ chain: true });

describe("a mainnet USDC_MINT other than USDC's", () => {
  const mainnet = (mint?: string) => ({
    SOLANA_NETWORK: "solana",
    REDIS_URL: "redis://127.0.0.1:9",
    PAY_TO_ADDRESS: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
    ...(mint ? { USDC_MINT: mint } : {}),
  });

  it("is refused at load; USDC's own mint, or none, is taken", () => {
    expect(() => loadConfig(mainnet(h.chain.usdcMint))).toThrow(ConfigError);
    expect(() => loadConfig(mainnet(h.chain.usdcMint))).toThrow(/USDC_MINT .* is not USDC on mainnet/);
    expect(loadConfig(mainnet(MAINNET_USDC_MINT)).usdcMint).toBe(MAINNET_USDC_MINT);
    expect(loadConfig(mainnet()).usdcMint).toBe(MAINNET_USDC_MINT);
    // Devnet and the local chain keep their own test mints.
    expect(loadConfig({ USDC_MINT: h.chain.usdcMint }).usdcMint).toBe(h.chain.usdcMint);
  });

  it("makes the first request of a host without server.mjs a 503 server_misconfigured, and is logged", async () => {
    const saved = { ...process.env };
    setServices(undefined);
    Object.assign(process.env, mainnet(h.chain.usdcMint));
    const logged: unknown[] = [];
    const restoreLogs = redirectLogs({ write: (line) => void logged.push(line) });
    try {
      const response = await call("GET", "/api/health");
      expect(response.status).toBe(503);
      expect((await json(response)).code).toBe("server_misconfigured");
      expect(logged.join("\n")).toMatch(/is not USDC on mainnet/);
    } finally {
      restoreLogs();
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
      setServices(undefined);
    }
  });
});

describe("an RPC whose genesis hash is not SOLANA_NETWORK's", () => {
  /** The local chain (its own genesis) announced as devnet or mainnet. */
  function servicesOn(network: "solana-devnet" | "solana") {
    return h.use({
      SOLANA_NETWORK: network,
      USDC_MINT: network === "solana" ? MAINNET_USDC_MINT : h.chain.usdcMint,
      FEE_PAYER_SECRET_KEY: h.chain.feePayer.secretKey,
    });
  }

  it.each(["solana-devnet", "solana"] as const)(
    "as %s: a paid request is a 503 server_misconfigured before its payment is judged, and health says why",
    async (network) => {
      // A real transfer on the local chain, which a devnet or mainnet server must not take as a payment.
      h.use();
      const payer = await funded();
      const signature = await transferToken(h.rpc, payer, {
        owner: h.chain.payTo,
        mint: h.chain.usdcMint,
        amount: 2000n,
      });
      servicesOn(network);
      const logged: unknown[] = [];
      const restoreLogs = redirectLogs({ write: (line) => void logged.push(line) });
      try {
        const paid = await call("POST", "/api/chunk/standard", {
          body: upload("# A report\n\nSome text.", "report.md"),
          headers: { "X-PAYMENT": signature },
        });
        expect(paid.status).toBe(503);
        const body = await json(paid);
        expect(body.code).toBe("server_misconfigured");
        expect(body.message).toContain(`not ${network}'s`);
        expect(logged.join("\n")).toMatch(/genesis hash/);

        const health = await call("GET", "/api/health");
        expect(health.status).toBe(503);
        expect((await json(health)).checks.chain).toMatchObject({ ok: false, error: expect.stringMatching(/genesis/) });
      } finally {
        restoreLogs();
        setServices(undefined);
      }
    },
  );

  it("the local chain's network is not checked: its genesis is new at every start", async () => {
    h.use();
    try {
      const health = await call("GET", "/api/health");
      expect(health.status).toBe(200);
    } finally {
      setServices(undefined);
    }
  });
});
