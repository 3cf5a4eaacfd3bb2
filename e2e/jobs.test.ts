import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, expectAccessible, screenshot, startApp } from "./helpers/app";
import { launchChromium } from "../tests/helpers/chromium";
import {
  chooseFile,
  chooseTier,
  continueToPayment,
  newPage,
  openHome,
  paymentStatus,
  resultFigure,
  shownChunkCount,
  waitForChunks,
} from "./helpers/home";

/**
 * ai-pro end to end: paid from local mode's test wallet, the page moves to
 * the job's own URL, the progress bar (fed by polling) climbs to 100 while
 * the stand-in model answers slowly, then the enriched chunks appear
 * (a document summary, per-chunk summaries and entities), and the same URL
 * still shows them after a reload.
 */

/** Names, places, organisations and dates the stand-in's entity rules pick up. */
const HISTORY = `# The Analytical Engine

Ada Lovelace wrote the first published program for a machine in 1843, while she worked with Charles Babbage in London. Her notes describe how the engine could repeat a sequence of operations.

# The Difference Engine

The Science Museum finished a working Difference Engine in 1991, built from drawings Babbage left behind. It still calculates tables of numbers for visitors in London.

# Stored programs

Alan Turing joined the University of Manchester in 1948, where the Manchester Baby had run its first program in June 1948. Machines that keep their program in memory grew from that work.
`;

let app: App;
let browser: Browser;
let workDir: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "chunkwise-e2e-"));
  await writeFile(join(workDir, "computing-history.md"), HISTORY);
  [app, browser] = await Promise.all([startApp(), launchChromium()]);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await rm(workDir, { recursive: true, force: true });
});

/** How long the progress is watched at most; the job takes a few seconds with the stand-in's delay. */
const WATCH_MS = 60_000;

describe("ai-pro job", () => {
  it(
    "pays with the test wallet, shows the job's progress to 100 on its own URL, then the enriched chunks, also after a reload",
    { timeout: 120_000 },
    async () => {
      // Each model call waits, so the job spends long enough in each stage for the page's polls to see it.
      app.model.control({ delayMs: 1_500 });
      const page = await newPage(browser);
      await openHome(page, app.base);
      await chooseFile(page, join(workDir, "computing-history.md"));
      await chooseTier(page, "AI Pro");
      await page.getByText("it runs as a job with its own page").waitFor();
      await continueToPayment(page, "0.025");

      await page.getByRole("button", { name: "Use a test wallet" }).click();
      await page.getByText(/The faucet sent it [\d.]+ SOL and [\d.]+ test USDC\./).waitFor();
      await paymentStatus(page).getByText("Ready to pay 0.025 USDC from the test wallet.").waitFor();
      await page.getByRole("button", { name: "Pay 0.025 USDC" }).click();

      await page.waitForURL(/\/jobs\/ai-pro_[0-9a-f]{32}$/, { timeout: 30_000 });
      const jobUrl = page.url();
      const bar = page.getByRole("progressbar", { name: "Job progress" });
      await bar.waitFor();

      // Every value the bar shows, sampled far more often than the page polls.
      const values: number[] = [];
      let screenshotTaken = false;
      const deadline = Date.now() + WATCH_MS;
      while (Date.now() < deadline) {
        const value = Number(await bar.getAttribute("aria-valuenow"));
        if (values.at(-1) !== value) values.push(value);
        if (value === 100) break;
        if (value > 0 && !screenshotTaken) {
          screenshotTaken = true;
          expect(await bar.getAttribute("aria-valuetext")).toMatch(new RegExp(`^${value}%: \\S`));
          await page.getByText("Processing", { exact: true }).waitFor();
          await screenshot(page, "job-progress");
          await expectAccessible(page);
        }
        await page.waitForTimeout(200);
      }
      expect(values.at(-1), `progress seen: ${values.join(", ")}`).toBe(100);
      expect(
        values.some((v) => v > 0 && v < 100),
        `progress seen: ${values.join(", ")}`,
      ).toBe(true);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(screenshotTaken).toBe(true);

      // The enriched result.
      await page.getByRole("heading", { name: "Enriched and ready" }).waitFor();
      await waitForChunks(page);
      expect(await resultFigure(page, "Tier").innerText()).toBe("AI Pro");
      expect(await resultFigure(page, "Payment").innerText()).toMatch(/^0\.025 USDC/);
      const documentSummary = page.getByRole("heading", { name: "Document summary" }).locator("xpath=..");
      expect((await documentSummary.innerText()).replace("Document summary", "").trim().length).toBeGreaterThan(20);
      const chunks = await shownChunkCount(page);
      expect(chunks).toBeGreaterThan(0);
      const firstCard = page.getByRole("list", { name: "Chunks" }).getByRole("article").first();
      expect(await firstCard.innerText()).toMatch(/Summary: \S/);
      const entities = await page.getByRole("list", { name: "Entities" }).getByRole("listitem").allInnerTexts();
      const entityTexts = entities.map((e) => e.replace(/\s+/g, " "));
      expect(entityTexts).toEqual(
        expect.arrayContaining([expect.stringMatching(/London$/), expect.stringMatching(/Ada Lovelace$/)]),
      );
      await screenshot(page, "job-result");
      await expectAccessible(page);

      // The job's URL is its own: a reload shows the finished job and its result again.
      await page.reload();
      await page.getByRole("heading", { name: "Enriched and ready" }).waitFor();
      expect(page.url()).toBe(jobUrl);
      expect(await bar.getAttribute("aria-valuenow")).toBe("100");
      await waitForChunks(page);
      expect(await shownChunkCount(page)).toBe(chunks);
      await page.getByRole("heading", { name: "Document summary" }).waitFor();
      expect(await page.getByRole("list", { name: "Entities" }).first().innerText()).not.toBe("");
    },
  );
});
