/**
 * The scanned-page fixtures of tests/fixtures/scan-*.png: pages composed in
 * HTML here (our own words and numbers), printed to PDF by Chromium
 * (playwright-core, /usr/bin/chromium), rendered at 200 ppi by poppler's
 * pdftoppm and stored as 16-level grey PNGs, as a scanner would give them.
 * Run `npx tsx scripts/make-scan-fixtures.ts`; needs chromium and
 * poppler-utils installed. Not byte-for-byte reproducible across Chromium
 * versions: the tests read the words, not the pixels.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PDFDocument } from "pdf-lib";
import { launchChromium } from "@/tests/helpers/chromium";
import sharp from "sharp";
import { COLUMNS, LEDGER, STYLE, TABLES } from "@/tests/helpers/scan-fixture-pages";

async function main(): Promise<void> {
  const out = path.resolve(import.meta.dirname, "../tests/fixtures");
  const work = mkdtempSync(path.join(tmpdir(), "scan-fixtures-"));
  const browser = await launchChromium();
  try {
    for (const [name, body] of [
      ["scan-tables", TABLES],
      ["scan-columns", COLUMNS],
      ["scan-ledger", LEDGER],
    ] as const) {
      const page = await browser.newPage();
      await page.setContent(`<!doctype html><html><head><style>${STYLE}</style></head><body>${body}</body></html>`);
      const pdf = path.join(work, `${name}.pdf`);
      await page.pdf({ path: pdf, preferCSSPageSize: true });
      await page.close();
      // One page each: pdftoppm -singlefile would drop the rest without a word.
      const pages = (await PDFDocument.load(readFileSync(pdf))).getPageCount();
      if (pages !== 1) throw new Error(`${name} runs over ${pages} pages; shorten it`);
      execFileSync("pdftoppm", ["-r", "200", "-gray", "-png", "-singlefile", pdf, path.join(work, name)]);
      const png = await sharp(readFileSync(path.join(work, `${name}.png`)))
        .png({ palette: true, colours: 16, compressionLevel: 9 })
        .toBuffer();
      writeFileSync(path.join(out, `${name}.png`), png);
      console.log(`${name}.png: ${png.length} bytes`);
    }
  } finally {
    await browser.close();
  }
}

await main();
