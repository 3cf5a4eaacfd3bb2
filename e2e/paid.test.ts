import { createSolanaRpc, signature as toSignature } from "@solana/kit";
import type { Browser, Page, Response } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, expectAccessible, screenshot, startApp } from "./helpers/app";
import { launchChromium } from "../tests/helpers/chromium";
import {
  chooseFile,
  chooseTier,
  connectWallet,
  continueToPayment,
  expectNoCspViolations,
  fixture,
  fundWallet,
  newPage,
  openHome,
  paymentStatus,
  paymentSteps,
  resultFigure,
  shownChunkCount,
  usdcBalance,
  waitForChunks,
} from "./helpers/home";
import { installInjectedWallet } from "./helpers/injected-wallet";

/**
 * The structure tier paid from a Wallet Standard wallet injected into the
 * page (it signs in Node with a key the faucet funded), on the local chain:
 * the wallet-adapter modal, each step of the payment, the result, and the
 * transfer itself read back from the chain. Then a wallet that declines.
 */

const STRUCTURE_PRICE = 2000n;
const FAUCET_USDC = 10_000_000n;

let app: App;
let browser: Browser;

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchChromium()]);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** The paid request's answer (the one repeated with X-PAYMENT), as the page received it. */
function paidAnswer(page: Page): Promise<Response> {
  const answer = page.waitForResponse(
    (response) => /\/api\/chunk\//.test(response.url()) && response.request().headers()["x-payment"] !== undefined,
    { timeout: 30_000 },
  );
  // Awaited later; a test that fails before then must not leave an unhandled rejection behind.
  answer.catch(() => {});
  return answer;
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("paid structure tier", () => {
  it(
    "pays 0.002 USDC from an injected wallet through the modal, shows each step, and serves the chunks",
    { timeout: 90_000 },
    async () => {
      const page = await newPage(browser);
      const asked = deferred();
      const approve = deferred();
      const wallet = await installInjectedWallet(page, {
        name: "E2E Wallet",
        // Holds the approval open like a person reading the wallet's prompt, so the page's step can be looked at.
        onSignRequest: async () => {
          asked.resolve();
          await approve.promise;
        },
      });
      const funded = await fundWallet(app.base, wallet.address);
      const payToBefore = await usdcBalance(app.chain.rpcUrl, app.chain.payToTokenAccount);

      await openHome(page, app.base);
      await chooseFile(page, fixture("multipage.pdf"));
      await chooseTier(page, "Structure");
      await page.getByText("Structure costs 0.002 USDC for this document").waitFor();
      await continueToPayment(page, "0.002");
      // One payment per request: the form and its button are locked while the payment card is open.
      expect(await page.getByRole("button", { name: /^Continue to payment/ }).isDisabled()).toBe(true);
      await paymentStatus(page).getByText("The price is 0.002 USDC. Connect a wallet to pay.").waitFor();

      await connectWallet(page, "E2E Wallet");
      await paymentStatus(page).getByText("Ready to pay 0.002 USDC from E2E Wallet.").waitFor();
      const steps = page.getByRole("list", { name: "Payment steps" });
      await steps.getByText("E2E Wallet · 10 USDC").waitFor();

      const answer = paidAnswer(page);
      await page.getByRole("button", { name: "Pay 0.002 USDC" }).click();
      await asked.promise;
      await paymentStatus(page).getByText("Waiting for approval in your wallet.").waitFor();
      expect(await paymentSteps(page)).toEqual([
        expect.stringMatching(/^Price: done — 0\.002 USDC to \w+…\w+$/),
        "Wallet: done — E2E Wallet · 10 USDC",
        "Approve: in progress — Waiting for approval in your wallet…",
        "Confirm: not started — The transfer lands on Solana",
        "Chunk: not started — The request, repeated with the payment",
      ]);
      await screenshot(page, "paid-steps");
      await expectAccessible(page);
      approve.resolve();

      // The request repeated with the payment: 200, paid 2000 base units by this transaction.
      const response = await answer;
      expect(response.status()).toBe(200);
      const body = (await response.json()) as {
        payment: { amount: number; asset: string; transaction: string };
        total_chunks: number;
      };
      expect(body.payment.amount).toBe(2000);
      expect(body.payment.asset).toBe("USDC");
      expect(wallet.signed).toBe(1);

      await waitForChunks(page);
      expect(await resultFigure(page, "Tier").innerText()).toBe("Structure");
      expect(await resultFigure(page, "Payment").innerText()).toMatch(/^0\.002 USDC/);
      expect(await resultFigure(page, "Payment").locator("[title]").getAttribute("title")).toBe(
        body.payment.transaction,
      );
      expect(await shownChunkCount(page)).toBe(body.total_chunks);
      expect(body.total_chunks).toBeGreaterThan(0);
      await screenshot(page, "paid-result");
      await expectAccessible(page);

      // On chain: the transaction the result names exists, succeeded, and moved exactly the price to the service.
      const transaction = await createSolanaRpc(app.chain.rpcUrl)
        .getTransaction(toSignature(body.payment.transaction), {
          commitment: "confirmed",
          encoding: "jsonParsed",
          maxSupportedTransactionVersion: 0,
        })
        .send();
      expect(transaction).not.toBeNull();
      expect(transaction!.meta?.err).toBeNull();
      expect(await usdcBalance(app.chain.rpcUrl, app.chain.payToTokenAccount)).toBe(payToBefore + STRUCTURE_PRICE);
      expect(await usdcBalance(app.chain.rpcUrl, funded.token_account)).toBe(FAUCET_USDC - STRUCTURE_PRICE);
      // The wallet flow (the adapter's modal, the RPC calls for balances and confirmation) within the policy.
      expectNoCspViolations(page);
    },
  );

  it("says a declined signature charged nothing, and the payment can be tried again", { timeout: 90_000 }, async () => {
    const page = await newPage(browser);
    // Declines the first request, approves the next: a person who changed their mind.
    const wallet = await installInjectedWallet(page, { name: "E2E Wallet", reject: (request) => request === 1 });
    const funded = await fundWallet(app.base, wallet.address);
    const payToBefore = await usdcBalance(app.chain.rpcUrl, app.chain.payToTokenAccount);

    await openHome(page, app.base);
    await chooseFile(page, fixture("notes.md"));
    await chooseTier(page, "Structure");
    await continueToPayment(page, "0.002");
    await connectWallet(page, "E2E Wallet");
    await page.getByRole("button", { name: "Pay 0.002 USDC" }).click();

    const declined = page.getByRole("alert").filter({ hasText: "You declined the payment in your wallet." });
    await declined.waitFor();
    expect(await declined.innerText()).toContain("Nothing was charged.");
    expect((await paymentSteps(page))[2]).toMatch(/^Approve: stopped — /);
    // Nothing moved on chain.
    expect(await usdcBalance(app.chain.rpcUrl, funded.token_account)).toBe(FAUCET_USDC);
    expect(await usdcBalance(app.chain.rpcUrl, app.chain.payToTokenAccount)).toBe(payToBefore);
    expect(wallet.requests).toHaveLength(1);
    expect(wallet.signed).toBe(0);
    await screenshot(page, "rejected");
    await expectAccessible(page);

    // Try again: back to paying, and this time the wallet approves.
    await declined.getByRole("button", { name: "Try again" }).click();
    const answer = paidAnswer(page);
    await page.getByRole("button", { name: "Pay 0.002 USDC" }).click();
    expect((await answer).status()).toBe(200);
    await waitForChunks(page);
    expect(await resultFigure(page, "Payment").innerText()).toMatch(/^0\.002 USDC/);
    expect(wallet.requests).toHaveLength(2);
    expect(wallet.signed).toBe(1);
    // Charged once, for the approved request only.
    expect(await usdcBalance(app.chain.rpcUrl, funded.token_account)).toBe(FAUCET_USDC - STRUCTURE_PRICE);
    expect(await usdcBalance(app.chain.rpcUrl, app.chain.payToTokenAccount)).toBe(payToBefore + STRUCTURE_PRICE);
  });
});
