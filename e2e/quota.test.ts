import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, expectAccessible, screenshot, startApp } from "./helpers/app";
import { launchChromium } from "../tests/helpers/chromium";
import {
  chooseFile,
  expectFreePagesLeft,
  fixture,
  freePages,
  newPage,
  openHome,
  problemAlert,
  waitForChunks,
} from "./helpers/home";

/** The free tier's daily pages used up: the page says so, when they come back, and that paid tiers have no limit. */

const PAGES_PER_DAY = 4;

let app: App;
let browser: Browser;

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp({ FREE_PAGES_PER_DAY: String(PAGES_PER_DAY) }), launchChromium()]);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** The next UTC midnight, when the free pages renew. */
function nextUtcMidnight(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

describe("free quota", () => {
  it(
    "uses up the day's free pages, then answers the next free request with the quota message and the reset time",
    { timeout: 90_000 },
    async () => {
      const page = await newPage(browser);
      await openHome(page, app.base);
      expect(await freePages(page)).toEqual({ remaining: PAGES_PER_DAY, limit: PAGES_PER_DAY });

      // multipage.pdf has exactly the day's 4 pages.
      await chooseFile(page, fixture("multipage.pdf"));
      await page.getByRole("button", { name: "Chunk for free" }).click();
      await waitForChunks(page);
      await expectFreePagesLeft(page, 0);
      expect(await page.getByTestId("free-quota").innerText()).toContain(
        "more tomorrow at 12:00 AM, or choose a paid tier",
      );

      // One more page is one too many.
      await chooseFile(page, fixture("notes.md"));
      await page.getByTestId("file-summary").getByText("1 page").waitFor();
      await page.getByRole("button", { name: "Chunk for free" }).click();
      const alert = problemAlert(page, "free_quota_exceeded");
      await alert.waitFor();
      const text = await alert.innerText();
      expect(text).toContain("No free pages left today");
      expect(text).toContain(
        `The free tier allows ${PAGES_PER_DAY} pages per UTC day; it resets at ${nextUtcMidnight().toISOString()}.`,
      );
      expect(text).toContain("Paid tiers have no daily limit.");
      // The reset in the reader's time (the browser runs in UTC here) and how long until then: "in 3 h 20 min",
      // "in 3 h" on the hour (web/format.ts), "in 20 min".
      expect(text).toMatch(/Free pages come back tomorrow at 12:00 AM your time \(in (\d+ h( \d+ min)?|\d+ min)\)\./);
      await expectFreePagesLeft(page, 0);
      await screenshot(page, "quota-exhausted");
      await expectAccessible(page);

      // The API agrees: nothing left for this client today.
      const quota = (await (await fetch(`${app.base}/api/quota`)).json()) as { remaining: number; limit: number };
      expect(quota).toMatchObject({ remaining: 0, limit: PAGES_PER_DAY });
    },
  );
});
