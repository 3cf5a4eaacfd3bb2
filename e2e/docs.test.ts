import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, expectAccessible, screenshot, startApp } from "./helpers/app";
import { launchChromium } from "../tests/helpers/chromium";
import { newPage } from "./helpers/home";

/** /docs: the API reference rendered from the service's own OpenAPI document, with examples for this server. */

interface OpenApiDocument {
  openapi: string;
  tags?: { name: string }[];
  paths: Record<string, Record<string, { summary?: string; operationId: string }>>;
}

const METHODS = new Set(["get", "post", "put", "patch", "delete", "options", "head"]);

let app: App;
let browser: Browser;

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchChromium()]);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe("/docs", () => {
  it(
    "renders every operation of /api/openapi.json, copy-paste examples for this server, and a link to the document",
    { timeout: 90_000 },
    async () => {
      const response = await fetch(`${app.base}/api/openapi.json`);
      expect(response.status).toBe(200);
      const doc = (await response.json()) as OpenApiDocument;
      expect(doc.openapi).toMatch(/^3\.1\./);
      const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => METHODS.has(method))
          .map(([method, operation]) => ({ method, path, name: operation.summary ?? operation.operationId })),
      );
      expect(operations.length).toBeGreaterThan(3);

      const page = await newPage(browser);
      await page.goto(`${app.base}/docs`);
      await page.getByRole("heading", { level: 1, name: "API reference" }).waitFor();
      const link = page.getByRole("main").getByRole("link", { name: "/api/openapi.json", exact: true });
      expect(await link.getAttribute("href")).toBe("/api/openapi.json");

      // One card per operation, named by its summary and showing its method and path.
      await page.getByRole("article", { name: operations[0]!.name, exact: true }).first().waitFor();
      for (const operation of operations) {
        const card = page.getByRole("article", { name: operation.name, exact: true }).first();
        expect(await card.count(), `${operation.method.toUpperCase()} ${operation.path}`).toBe(1);
        const text = (await card.innerText()).replace(/\s+/g, "");
        expect(text).toContain(operation.method.toUpperCase());
        expect(text).toContain(`/api${operation.path === "/" ? "" : operation.path}`);
      }
      // A section per tag of the document.
      for (const tag of doc.tags ?? [])
        await page.getByRole("heading", { level: 2, name: tag.name, exact: true }).waitFor();

      // Examples written for this server: curl first, then the agent's 402 flow, x402 (v2 and v1) and MCP.
      const examples = page.getByRole("tablist", { name: "Examples" });
      const panel = page.getByRole("tabpanel").filter({ visible: true }).first();
      expect(await examples.getByRole("tab", { selected: true }).innerText()).toBe("curl");
      const curl = await panel.innerText();
      expect(curl).toContain("curl");
      expect(curl).toContain(`${app.base}/api`);
      await examples.getByRole("tab", { name: "Agent flow" }).click();
      await panel.getByText("X-PAYMENT", { exact: false }).first().waitFor();
      await examples.getByRole("tab", { name: "x402" }).click();
      await panel.getByText("@x402/fetch", { exact: false }).first().waitFor();
      await panel.getByText("x402-fetch", { exact: false }).first().waitFor();
      await examples.getByRole("tab", { name: "MCP" }).click();
      await panel.getByText(`${app.base}/api/mcp`, { exact: false }).first().waitFor();
      await examples.getByRole("tab", { name: "curl" }).click();

      await screenshot(page, "docs");
      await expectAccessible(page);
    },
  );
});
