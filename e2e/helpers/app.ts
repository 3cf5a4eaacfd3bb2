import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { type Browser, type Page, chromium } from "playwright-core";
import { expect } from "vitest";
import { type LocalChain, startLocalChain } from "@/lib/localchain";
import { type ModelStandin, startModelStandin } from "@/standin/model-server";
import { type RedisServer, startRedisServer } from "../../tests/helpers/redis-server";
import { type BuiltServer, startBuiltServer } from "../../tests/helpers/servers";

/**
 * The whole product for browser tests: the built app (`npm run build`) served
 * by server.mjs on a real redis-server, paid on the local Solana chain, the
 * AI tiers answered by the stand-in model, and Debian's Chromium.
 */

export interface App {
  base: string;
  server: BuiltServer;
  redis: RedisServer;
  chain: LocalChain;
  model: ModelStandin;
  close(): Promise<void>;
}

export async function startApp(env: Record<string, string> = {}): Promise<App> {
  const redis = await startRedisServer();
  const chain = await startLocalChain({ port: 0 });
  const model = await startModelStandin({ port: 0 });
  let server: BuiltServer;
  try {
    server = await startBuiltServer({
      REDIS_URL: redis.url,
      SOLANA_RPC_URL: chain.rpcUrl,
      SOLANA_WS_URL: chain.wsUrl,
      PAY_TO_ADDRESS: chain.payTo,
      FEE_PAYER_SECRET_KEY: chain.feePayer.secretKey,
      AI_BASE_URL: model.url,
      AI_MODEL: "standin-small",
      AI_PRO_MODEL: "standin-large",
      ...env,
    });
  } catch (error) {
    await Promise.allSettled([model.close(), chain.close(), redis.stop()]);
    throw error;
  }
  return {
    base: server.base,
    server,
    redis,
    chain,
    model,
    close: async () => {
      await server.stop();
      await Promise.allSettled([model.close(), chain.close(), redis.stop()]);
    },
  };
}

/** Debian's Chromium, never a downloaded one, with the flags this machine needs. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

const SCREENSHOTS = join(import.meta.dirname, "..", "..", "docs", "screenshots");

/** Saves the page as docs/screenshots/<name>.png (the README shows them). */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** No serious or critical accessibility violation on the page as it is now (axe-core, WCAG 2.1 AA rules). */
export async function expectAccessible(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)).toEqual([]);
}
