import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { type LocalChain, startLocalChain } from "@/localchain";
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
  close: () => Promise<void>;
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

const ROOT = join(import.meta.dirname, "..", "..");
/**
 * Each run's screenshots go to test-results/screenshots/ (not tracked), so a
 * test run leaves the tree clean; `E2E_SCREENSHOTS=docs/screenshots` refreshes
 * the committed ones docs/web-app.md shows.
 */
const SCREENSHOTS = join(ROOT, process.env.E2E_SCREENSHOTS || join("test-results", "screenshots"));

/** Longest page captured whole; anything below is cut (a screenshot for the docs, not a record). */
const MAX_SCREENSHOT_HEIGHT = 6_000;

/**
 * Saves the whole page as <screenshots>/<name>.png (docs/web-app.md shows
 * them), once it has settled: fonts loaded, the layout no longer growing.
 * The viewport is stretched to the page's height for the capture, so the
 * virtualised chunk list renders every row a reader would scroll to and the
 * sticky header sits at the top, then put back.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const viewport = page.viewportSize();
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
  let height = viewport?.height ?? 0;
  if (viewport) {
    // The list measures the rows it renders and the page grows with them: a few rounds reach the real height.
    for (let round = 0; round < 4; round++) {
      const next = Math.min(MAX_SCREENSHOT_HEIGHT, Math.max(viewport.height, await settledHeight(page)));
      if (next === height && round > 0) break;
      height = next;
      await page.setViewportSize({ width: viewport.width, height });
    }
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  await settledHeight(page);
  try {
    // Beyond the longest height, the top of the page only.
    const clip =
      viewport && height >= MAX_SCREENSHOT_HEIGHT ? { x: 0, y: 0, width: viewport.width, height } : undefined;
    await page.screenshot({
      path: join(SCREENSHOTS, `${name}.png`),
      fullPage: true,
      clip,
      animations: "disabled",
      caret: "hide",
    });
  } finally {
    if (viewport) await page.setViewportSize(viewport);
  }
}

/**
 * The height of the page's content (the body without its viewport-tall
 * minimum, read synchronously so nothing paints without it) once it stayed
 * the same for a few frames (at most about 3 s of waiting).
 */
async function settledHeight(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50)));
    const contentHeight = () => {
      const body = document.body;
      const minHeight = body.style.minHeight;
      body.style.minHeight = "0px";
      const height = Math.ceil(body.getBoundingClientRect().height);
      body.style.minHeight = minHeight;
      return height;
    };
    let last = -1;
    let stable = 0;
    for (let i = 0; i < 40 && stable < 3; i++) {
      await frame();
      const height = contentHeight();
      stable = height === last ? stable + 1 : 0;
      last = height;
    }
    return last;
  });
}

/** No serious or critical accessibility violation on the page as it is now (axe-core, WCAG 2.1 AA rules). */
export async function expectAccessible(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)).toEqual([]);
}
