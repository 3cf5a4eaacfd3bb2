import { chromium, type Browser } from "playwright-core";

/** Debian's Chromium, started as the house rules say: no sandbox as root, no network of its own. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** An HTML page printed to PDF by Chromium, as a user's "Save as PDF" makes it. */
export async function printPdf(browser: Browser, html: string): Promise<Uint8Array> {
  const page = await browser.newPage();
  try {
    await page.setContent(html, { waitUntil: "load" });
    return new Uint8Array(await page.pdf({ format: "A4", preferCSSPageSize: true }));
  } finally {
    await page.close();
  }
}
