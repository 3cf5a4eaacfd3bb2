import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, expectAccessible, screenshot, startApp } from "./helpers/app";
import { launchChromium } from "../tests/helpers/chromium";
import {
  chooseFile,
  chunkCards,
  expectFreePagesLeft,
  expectNoCspViolations,
  fixture,
  freePages,
  newPage,
  openHome,
  problemAlert,
  resultFigure,
  setOptions,
  shownChunkCount,
  waitForChunks,
  WAIT_MS,
} from "./helpers/home";
import { pdfOfPages, renderPages } from "../tests/helpers/scans";

/**
 * The free tier in the browser: a document chosen from disk or given by URL,
 * chunked in one click, read, searched and downloaded; a file of the wrong
 * type; and the home page and a result at phone width and in the dark theme.
 */

let app: App;
let browser: Browser;
/** Serves tests/fixtures over loopback HTTP, for the URL source (the app runs with URL_FETCH_ALLOW_PRIVATE). */
let documents: Server;
let documentsBase: string;

beforeAll(async () => {
  documents = createServer((request, response) => {
    if (request.url !== "/notes.md") return void response.writeHead(404).end();
    void readFile(fixture("notes.md")).then((bytes) =>
      response.writeHead(200, { "content-type": "text/markdown; charset=utf-8" }).end(bytes),
    );
  });
  await new Promise<void>((resolve) => documents.listen(0, "127.0.0.1", resolve));
  documentsBase = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  [app, browser] = await Promise.all([
    startApp({ URL_FETCH_ALLOW_PRIVATE: "true", OCR_SYNC_MAX_PAGES: "1" }),
    launchChromium(),
  ]);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await new Promise((resolve) => documents?.close(resolve));
});

/** multipage.pdf (4 pages) cut small, so the result has several chunks to list, search and download. */
async function chunkMultipagePdf(page: Page): Promise<void> {
  await chooseFile(page, fixture("multipage.pdf"));
  await setOptions(page, { maxTokens: 64, overlap: 8 });
  await page.getByRole("button", { name: "Chunk for free" }).click();
  await waitForChunks(page);
}

describe("free tier", () => {
  it(
    "chunks an uploaded PDF: summary, chunks with token counts, quota, search and a JSONL download",
    { timeout: 90_000 },
    async () => {
      const page = await newPage(browser);
      await openHome(page, app.base);
      await expect.poll(() => page.getByRole("radio", { name: "Free", exact: true }).isChecked()).toBe(true);
      await screenshot(page, "home");
      await expectAccessible(page);

      await chooseFile(page, fixture("multipage.pdf"));
      const summary = page.getByTestId("file-summary");
      await summary.getByText("4 pages").waitFor();
      expect(await summary.innerText()).toMatch(/multipage\.pdf[\s\S]*4\.3 KB · 4 pages/);
      const before = await freePages(page);
      expect(before).toEqual({ remaining: 100, limit: 100 });

      await setOptions(page, { maxTokens: 64, overlap: 8 });
      await page.getByRole("button", { name: "Chunk for free" }).click();
      const view = await waitForChunks(page);

      // The result: 4 pages charged to the free quota, and the chunks of all four pages.
      await expectFreePagesLeft(page, before.remaining - 4);
      await expect.poll(() => resultFigure(page, "Pages").innerText()).toBe("4");
      expect(await resultFigure(page, "Tier").innerText()).toBe("Free");
      expect(await resultFigure(page, "Payment").innerText()).toBe("Free");
      expect(await view.getByRole("heading", { level: 2 }).innerText()).toBe("Chunks of multipage.pdf");
      const total = await shownChunkCount(page);
      expect(total).toBeGreaterThan(4);
      expect(Number(await resultFigure(page, "Chunks").innerText())).toBe(total);
      const first = chunkCards(page).first();
      await expect.poll(() => first.getByRole("heading").innerText()).toBe("Chunk #0");
      // Every chunk listed says its size in tokens, within the chosen maximum.
      const tokenCounts = (
        await chunkCards(page)
          .getByText(/^\d+ tokens$/)
          .allInnerTexts()
      ).map((t) => Number.parseInt(t, 10));
      expect(tokenCounts.length).toBeGreaterThan(0);
      expect(
        tokenCounts.every((tokens) => tokens > 0 && tokens <= 64),
        tokenCounts.join(", "),
      ).toBe(true);
      expect(await first.innerText()).toContain("Rivers and their deltas");
      await screenshot(page, "free-result");
      await expectAccessible(page);

      // JSONL: one line per chunk, each a chunk of this result.
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        view.getByRole("button", { name: "Download JSONL" }).click(),
      ]);
      expect(download.suggestedFilename()).toBe("multipage.free.chunks.jsonl");
      const lines = (await readFile(await download.path(), "utf8")).split("\n").filter((line) => line !== "");
      expect(lines).toHaveLength(total);
      const records = lines.map(
        (line) => JSON.parse(line) as { text: string; metadata: { token_count: number; chunk_index: number } },
      );
      expect(records[0]!.text).toContain("Rivers and their deltas");
      expect(records.map((r) => r.metadata.chunk_index)).toEqual(Array.from({ length: total }, (_, i) => i));
      expect(
        records.every((r) => typeof r.text === "string" && r.metadata.token_count > 0 && r.metadata.token_count <= 64),
      ).toBe(true);
      // The cards on screen show the same token counts as the file.
      expect(tokenCounts).toEqual(records.slice(0, tokenCounts.length).map((r) => r.metadata.token_count));

      // Search keeps the chunks that contain the words, and says how many.
      const matching = records.filter((r) => r.text.toLowerCase().includes("lighthouse")).length;
      expect(matching).toBeGreaterThan(0);
      expect(matching).toBeLessThan(total);
      await view.getByLabel("Search chunks").fill("lighthouse");
      await view
        .getByTestId("chunk-count")
        .getByText(`${matching} chunk${matching === 1 ? "" : "s"} of ${total} match “lighthouse”`)
        .waitFor();
      await expect.poll(() => chunkCards(page).count()).toBe(matching);
      for (const text of await chunkCards(page).allInnerTexts()) expect(text.toLowerCase()).toContain("lighthouse");
      await view.getByLabel("Search chunks").fill("no such words anywhere");
      await view.getByText("No chunk contains “no such words anywhere”").waitFor();
      await view.getByLabel("Search chunks").fill("");
      await view.getByTestId("chunk-count").getByText(`Showing all ${total} chunks`).waitFor();
    },
  );

  it("chunks a document given by URL", { timeout: 90_000 }, async () => {
    const page = await newPage(browser);
    await openHome(page, app.base);
    const before = await freePages(page);
    await page.getByRole("radio", { name: "From a URL" }).check();
    await page.getByLabel("Document URL").fill(`${documentsBase}/notes.md`);
    await page.getByRole("button", { name: "Chunk for free" }).click();
    const view = await waitForChunks(page);
    expect(await view.getByRole("heading", { level: 2 }).innerText()).toBe("Chunks of notes.md");
    expect(await shownChunkCount(page)).toBeGreaterThan(0);
    expect(await chunkCards(page).first().innerText()).toContain("Release checklist");
    await expectFreePagesLeft(page, before.remaining - 1);
    await screenshot(page, "url-result");
    await expectAccessible(page);
  });

  it("refuses a file of the wrong type with the 415 message, and charges nothing", { timeout: 90_000 }, async () => {
    const page = await newPage(browser);
    await openHome(page, app.base);
    const before = await freePages(page);
    await chooseFile(page, fixture("image.gif"));
    await page.getByTestId("file-summary").getByRole("button", { name: "Remove image.gif" }).waitFor();
    await page.getByRole("button", { name: "Chunk for free" }).click();

    const alert = problemAlert(page, "unsupported_type");
    await alert.waitFor();
    const text = await alert.innerText();
    expect(text).toContain("This type of file cannot be chunked");
    expect(text).toMatch(/This file is .*GIF.*, which cannot be chunked/i);
    // Nothing charged: the free pages left are the same, and no result appeared.
    await expectFreePagesLeft(page, before.remaining);
    expect(await page.getByTestId("result-view").count()).toBe(0);
    await screenshot(page, "wrong-type");
    await expectAccessible(page);
  });

  it("fits a phone screen and reads well in the dark theme", { timeout: 90_000 }, async () => {
    for (const variant of [
      { suffix: "phone", options: { width: 390, height: 844 } },
      { suffix: "dark", options: { dark: true } },
    ]) {
      const page = await newPage(browser, variant.options);
      await openHome(page, app.base);
      if (variant.suffix === "dark")
        expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(true);
      // Nothing wider than the screen: no sideways scrolling on a phone.
      const width = variant.options.width ?? 1280;
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await screenshot(page, `home-${variant.suffix}`);
      await expectAccessible(page);

      await chunkMultipagePdf(page);
      expect(await shownChunkCount(page)).toBeGreaterThan(4);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await screenshot(page, `free-result-${variant.suffix}`);
      await expectAccessible(page);
    }
  });

  it(
    "shows a chunk on its page, its lines highlighted over the text, from the keyboard; a scan's too",
    { timeout: 120_000 },
    async () => {
      const page = await newPage(browser);
      await openHome(page, app.base);
      await chooseFile(page, fixture("structured.pdf"));
      await setOptions(page, { maxTokens: 64, overlap: 8 });
      await page.getByRole("button", { name: "Chunk for free" }).click();
      await waitForChunks(page);
      await expectPreviewOverText(page, 2);
      await screenshot(page, "page-preview");
      await expectAccessible(page);
      await page.keyboard.press("Escape");
      await page.getByTestId("page-preview").waitFor({ state: "detached" });
      // Focus back on the button that opened it.
      expect(await page.evaluate(() => document.activeElement?.textContent)).toContain("Show on page");

      // A scan: the image itself under OCR's boxes.
      const folder = await mkdtemp(join(tmpdir(), "chunkwise-scan-"));
      const scan = join(folder, "scan.png");
      await writeFile(
        scan,
        (await renderPages(new Uint8Array(await readFile(fixture("structured.pdf"))), [1], 150))[0]!,
      );
      await chooseFile(page, scan);
      await page.getByRole("button", { name: "Chunk for free" }).click();
      await page.getByText("read by OCR").first().waitFor({ timeout: 60_000 });
      await waitForChunks(page);
      await expectPreviewOverText(page, 1);
      expect(await page.getByTestId("page-preview").innerText()).toMatch(/read by OCR, confidence \d+%/);
      await expectAccessible(page);
      await page.getByRole("button", { name: "Close" }).click();
      await page.getByTestId("page-preview").waitFor({ state: "detached" });
      // pdf.js drew the PDF's page, and the page loaded, within the Content Security Policy.
      expectNoCspViolations(page);
    },
  );
});

describe("a scan longer than a request reads", () => {
  it(
    "runs as a job on its own page and ends with the chunks, both pages read by OCR",
    { timeout: 150_000 },
    async () => {
      const page = await newPage(browser);
      await openHome(page, app.base);
      const folder = await mkdtemp(join(tmpdir(), "chunkwise-scan-"));
      const scan = join(folder, "two-page-scan.pdf");
      const structured = new Uint8Array(await readFile(fixture("structured.pdf")));
      const pages = [
        { page: 1, as: "scan" },
        { page: 2, as: "scan" },
      ] as const;
      await writeFile(scan, await pdfOfPages(structured, [...pages]));
      await chooseFile(page, scan);
      await page.getByRole("button", { name: "Chunk for free" }).click();
      // The app ran out of pages a request reads by OCR (one, here) and sent the same request as a job.
      await page.waitForURL(/\/jobs\/free_[0-9a-f]{32}$/, { timeout: WAIT_MS });
      await page.getByRole("heading", { name: "Ready" }).waitFor({ timeout: 120_000 });
      await waitForChunks(page);
      expect(await resultFigure(page, "Pages").innerText()).toContain("2 read by OCR");
      await screenshot(page, "scan-job");
      await expectAccessible(page);
    },
  );
});

/**
 * Opens the page preview of the `nth` chunk (1-based) from the keyboard and checks that every highlighted line
 * lies over ink of the page as the browser drew it.
 */
async function expectPreviewOverText(page: Page, nth: number): Promise<void> {
  const button = chunkCards(page)
    .nth(nth - 1)
    .getByRole("button", { name: /Show on page/ });
  await button.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByTestId("page-preview");
  await dialog.waitFor();
  const boxes = dialog.getByTestId("chunk-box");
  await boxes.first().waitFor();
  const count = await boxes.count();
  expect(await dialog.innerText()).toContain(`${count} line`);
  // Each box, in the drawn page's pixels: the share of its pixels that are dark (text) must be well above none.
  const inked = await dialog.evaluate(async (root) => {
    const surface = root.querySelector("canvas, img") as HTMLCanvasElement | HTMLImageElement;
    const canvas = document.createElement("canvas");
    const { width, height } =
      surface instanceof HTMLCanvasElement ? surface : { width: surface.naturalWidth, height: surface.naturalHeight };
    Object.assign(canvas, { width, height });
    const context = canvas.getContext("2d")!;
    context.drawImage(surface, 0, 0);
    const frame = surface.getBoundingClientRect();
    return [...root.querySelectorAll<HTMLElement>("[data-testid=chunk-box]")].map((box) => {
      const r = box.getBoundingClientRect();
      const [x, y] = [((r.left - frame.left) / frame.width) * width, ((r.top - frame.top) / frame.height) * height];
      const [w, h] = [(r.width / frame.width) * width, (r.height / frame.height) * height];
      const { data } = context.getImageData(
        Math.round(x),
        Math.round(y),
        Math.max(1, Math.round(w)),
        Math.max(1, Math.round(h)),
      );
      let dark = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i]! + data[i + 1]! + data[i + 2]! < 3 * 128) dark++;
      return dark / (data.length / 4);
    });
  });
  expect(inked.length).toBe(count);
  for (const share of inked) expect(share).toBeGreaterThan(0.03);
}
