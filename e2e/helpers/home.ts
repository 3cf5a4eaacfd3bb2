import { join } from "node:path";
import { address, createSolanaRpc } from "@solana/kit";
import type { Browser, Locator, Page } from "playwright-core";
import { expect } from "vitest";

/**
 * What a person does on the home page, by the names a screen reader hears
 * (labels, roles, button text), so the tests break when those change.
 */

export const FIXTURES = join(import.meta.dirname, "..", "..", "tests", "fixtures");
export const fixture = (name: string) => join(FIXTURES, name);

/** Longest a test waits for one thing to show up on the page. */
export const WAIT_MS = 20_000;

export interface PageOptions {
  /** CSS pixels; 1280 × 900 (a laptop) unless given. */
  width?: number;
  height?: number;
  dark?: boolean;
}

/**
 * A fresh browser context (its own storage, so no test wallet or theme
 * leaks between tests) in US English and UTC, so times on the page read the
 * same on every machine.
 */
export async function newPage(browser: Browser, options: PageOptions = {}): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    colorScheme: options.dark ? "dark" : "light",
    locale: "en-US",
    timezoneId: "UTC",
    acceptDownloads: true,
  });
  context.setDefaultTimeout(WAIT_MS);
  // Every Content Security Policy violation, whether Chromium reports it on the console or only as an event.
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(
        `Content Security Policy violation: ${event.effectiveDirective} blocked ${event.blockedURI || "inline code"} ` +
          `at ${event.sourceFile}:${event.lineNumber}:${event.columnNumber} ${event.sample}`,
      );
    });
  });
  const page = await context.newPage();
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  CSP_VIOLATIONS.set(page, violations);
  return page;
}

const CSP_VIOLATIONS = new WeakMap<Page, string[]>();

/** The page's Content Security Policy violations so far (its console and `securitypolicyviolation` events). */
export function cspViolations(page: Page): readonly string[] {
  return CSP_VIOLATIONS.get(page) ?? [];
}

/** None so far: the page, the PDF preview and the wallet flow work within the policy (lib/http/security-headers.ts). */
export function expectNoCspViolations(page: Page): void {
  expect(cspViolations(page)).toEqual([]);
}

/** The home page once `GET /api` and the free quota have answered (tier cards and the quota line shown). */
export async function openHome(page: Page, base: string): Promise<void> {
  await page.goto(base);
  await page.getByRole("radio", { name: "Free", exact: true }).waitFor();
  await page.getByTestId("free-quota").waitFor();
}

export async function chooseFile(page: Page, path: string): Promise<void> {
  await page.getByLabel("Drop a document here, or choose a file").setInputFiles(path);
}

/** A tier card's radio, by the tier's display name ("Structure", "AI Pro"). */
export const tierRadio = (page: Page, name: string): Locator => page.getByRole("radio", { name, exact: true });

export async function chooseTier(page: Page, name: string): Promise<void> {
  await tierRadio(page, name).check();
}

export async function setOptions(
  page: Page,
  options: { maxTokens?: number; overlap?: number; format?: string },
): Promise<void> {
  if (options.maxTokens !== undefined) await page.getByLabel("Max tokens per chunk").fill(String(options.maxTokens));
  if (options.overlap !== undefined) await page.getByLabel("Overlap tokens").fill(String(options.overlap));
  if (options.format !== undefined) await page.getByLabel("Output format").selectOption({ label: options.format });
}

/** The page's own error alerts (Next's route announcer is a role=alert too, without a code). */
export const problemAlert = (page: Page, code?: string): Locator =>
  page.locator(code ? `[role=alert][data-code="${code}"]` : "[role=alert][data-code]");

/** "N of M free pages left today" → { remaining, limit }. */
export async function freePages(page: Page): Promise<{ remaining: number; limit: number }> {
  const text = await page.getByTestId("free-quota").innerText();
  const match = /([\d,]+) of ([\d,]+) free pages left today/.exec(text);
  expect(match, `quota line: ${text}`).not.toBeNull();
  const number = (s: string) => Number(s.replaceAll(",", ""));
  return { remaining: number(match![1]!), limit: number(match![2]!) };
}

/** Waits until the quota line reads `remaining` free pages left. */
export async function expectFreePagesLeft(page: Page, remaining: number): Promise<void> {
  await page
    .getByTestId("free-quota")
    .getByText(new RegExp(`^${remaining} of [\\d,]+ free pages left today`))
    .waitFor();
}

/** The result view, once its chunks are listed. */
export async function waitForChunks(page: Page): Promise<Locator> {
  const view = page.getByTestId("result-view");
  await view.getByTestId("chunk-count").waitFor({ timeout: 30_000 });
  return view;
}

/** The value of one figure of the result's summary ("Chunks", "Tier", "Payment"...). */
export const resultFigure = (page: Page, term: string): Locator =>
  page
    .getByTestId("result-view")
    .locator("dl")
    .first()
    .locator(":scope > div")
    .filter({ has: page.locator("dt", { hasText: new RegExp(`^${term}$`) }) })
    .locator("dd");

/** How many chunks the result says it has ("Showing all 8 chunks"). */
export async function shownChunkCount(page: Page): Promise<number> {
  const text = await page.getByTestId("chunk-count").innerText();
  const match = /Showing all ([\d,]+) chunks?/.exec(text);
  expect(match, `chunk count line: ${text}`).not.toBeNull();
  return Number(match![1]!.replaceAll(",", ""));
}

/** The chunk cards rendered now (the list is virtualised: those near the viewport). */
export const chunkCards = (page: Page): Locator => page.getByRole("list", { name: "Chunks" }).getByRole("article");

/** Test USDC and SOL for any address, from the local chain's faucet; its answer names the address's USDC account. */
export async function fundWallet(
  base: string,
  owner: string,
): Promise<{ usdc: number; sol: number; token_account: string }> {
  const response = await fetch(`${base}/api/dev/faucet`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ address: owner }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as { usdc: number; sol: number; token_account: string };
}

/** Continues from the form to the payment card of the chosen paid tier; the card's heading says the price. */
export async function continueToPayment(page: Page, amount: string): Promise<void> {
  const proceed = page.getByRole("button", {
    name: new RegExp(`^Continue to payment · ${amount.replace(".", "\\.")} USDC$`),
  });
  await proceed.click();
  await page.getByRole("heading", { name: `Pay ${amount} USDC` }).waitFor();
}

/** Connects a wallet the way a person does: the wallet button, then the wallet's name in the adapter's modal. */
export async function connectWallet(page: Page, walletName: string): Promise<void> {
  await page.getByRole("button", { name: "Select Wallet" }).click();
  const modal = page.getByRole("dialog");
  await modal.waitFor();
  await modal.getByRole("button", { name: new RegExp(`^${walletName}`) }).click();
  await modal.waitFor({ state: "detached" });
}

/** The live region of the payment card: the step happening now, in one sentence. */
export const paymentStatus = (page: Page): Locator =>
  page.getByRole("region", { name: "Payment", exact: true }).getByRole("status");

/** A USDC token account's balance in base units, read from the chain. */
export async function usdcBalance(rpcUrl: string, tokenAccount: string): Promise<bigint> {
  const { value } = await createSolanaRpc(rpcUrl).getTokenAccountBalance(address(tokenAccount)).send();
  return BigInt(value.amount);
}

/** Each payment step as a screen reader has it: "Approve: in progress — Waiting for approval in your wallet…". */
export function paymentSteps(page: Page): Promise<string[]> {
  return page
    .getByRole("list", { name: "Payment steps" })
    .getByRole("listitem")
    .evaluateAll((items) =>
      items.map((item) =>
        Array.from(item.querySelectorAll("p"), (p) => (p.textContent ?? "").replace(/\s+/g, " ").trim()).join(" — "),
      ),
    );
}
