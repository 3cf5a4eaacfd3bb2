import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, startApp } from "./helpers/app";
import { launchChromium } from "../tests/helpers/chromium";
import { cspViolations, expectNoCspViolations, newPage, openHome } from "./helpers/home";

/**
 * Security headers on the built app (issue 26, reproduction 9): the pages
 * carry a Content Security Policy with a fresh nonce, the API a policy that
 * runs nothing, both `nosniff`, no framing and a referrer policy; the API's
 * JSON stays readable from any origin. In Chromium, the page loads without a
 * violation, and a violation would be seen (lib/http/security-headers.ts).
 */

let app: App;
let browser: Browser;

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchChromium()]);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const expectCommonHeaders = (headers: Headers, what: string) => {
  expect(headers.get("x-content-type-options"), what).toBe("nosniff");
  expect(headers.get("x-frame-options"), what).toBe("DENY");
  expect(headers.get("referrer-policy"), what).toBe("strict-origin-when-cross-origin");
  expect(headers.get("content-security-policy"), what).toContain("frame-ancestors 'none'");
};

/** A directive's sources: `script-src 'self' 'nonce-x'` → ["'self'", "'nonce-x'"]. */
const directive = (policy: string, name: string) =>
  policy
    .split(";")
    .map((part) => part.trim().split(/\s+/))
    .find(([key]) => key === name)
    ?.slice(1);

describe("security headers", () => {
  it("are on every page, with a script policy of a fresh nonce and no inline scripts allowed", async () => {
    const nonces = new Set<string>();
    for (const path of ["/", "/docs", "/", `/jobs/free_${"0".repeat(32)}`]) {
      const response = await fetch(`${app.base}${path}`);
      expect(response.status, path).toBeLessThan(500);
      expectCommonHeaders(response.headers, path);
      const policy = response.headers.get("content-security-policy")!;
      const scripts = directive(policy, "script-src")!;
      expect(scripts).toContain("'strict-dynamic'");
      expect(scripts).not.toContain("'unsafe-inline'");
      expect(scripts).not.toContain("'unsafe-eval'");
      expect(directive(policy, "object-src")).toEqual(["'none'"]);
      // The wallet flow's RPC (the local chain's) is reachable; nothing else off the origin is.
      expect(directive(policy, "connect-src")).toContain(new URL(app.chain.rpcUrl).origin);
      const nonce = scripts.find((source) => source.startsWith("'nonce-"))!.slice("'nonce-".length, -1);
      expect(nonce.length).toBeGreaterThanOrEqual(16);
      nonces.add(nonce);
      // Every script the page carries has the nonce (Next's own and the theme script).
      const html = await response.text();
      const tags = html.match(/<script\b[^>]*>/g) ?? [];
      expect(tags.length, path).toBeGreaterThan(0);
      for (const tag of tags) expect(tag, path).toContain(`nonce="${nonce}"`);
    }
    expect(nonces.size).toBe(4);
  });

  it("are on the API, whose JSON stays readable from any origin", async () => {
    for (const path of ["/api", "/api/health", "/api/openapi.json", "/.well-known/x402", "/llms.txt", "/api/nope"]) {
      const response = await fetch(`${app.base}${path}`, { headers: { origin: "https://agent.example" } });
      expectCommonHeaders(response.headers, path);
      expect(response.headers.get("content-security-policy"), path).toContain("default-src 'none'");
      if (path.startsWith("/api")) expect(response.headers.get("access-control-allow-origin"), path).toBe("*");
    }
  });

  it(
    "let the page load without a violation in Chromium, and a violation would be caught",
    { timeout: 90_000 },
    async () => {
      const page = await newPage(browser);
      await openHome(page, app.base);
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Docs", exact: true }).click();
      await page.getByRole("heading", { level: 1, name: "API reference" }).waitFor();
      expectNoCspViolations(page);

      // What an injection would try: an image from another origin, and markup with an inline event handler.
      await page.evaluate(() => {
        const image = document.createElement("img");
        image.src = "https://images.example/tracker.png";
        document.body.append(image);
        const injected = document.createElement("div");
        injected.innerHTML = `<img src="/no-such-image.png" onerror="window.__injected = true">`;
        document.body.append(injected);
      });
      await expect
        .poll(() => cspViolations(page).join("\n"), { timeout: 10_000 })
        .toMatch(/img-src.*images\.example|images\.example.*img-src/s);
      await expect.poll(() => cspViolations(page).join("\n"), { timeout: 10_000 }).toMatch(/script-src-attr/);
      expect(await page.evaluate(() => (window as unknown as { __injected?: boolean }).__injected)).toBeUndefined();
    },
  );
});
