import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PDFDocument } from "pdf-lib";
import type { Page } from "playwright-core";
import { launchChromium } from "@/tests/helpers/chromium";
import type { LayoutDocument } from "./layout-set";

/**
 * The layout set printed by a real engine: Chromium (Debian's, through
 * playwright-core) prints each document's HTML to an A4 PDF with a running
 * header (the title) and footer ("Page N of M"), backgrounds on (zebra
 * rows). Scans: every page of a printed PDF rendered to a grey PNG by
 * poppler's pdftoppm at 200 dpi and wrapped back into a PDF with pdf-lib,
 * images only.
 */

export const CHROMIUM = "/usr/bin/chromium";
export const SCAN_DPI = 200;

const run = promisify(execFile);
const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export async function printAll(documents: LayoutDocument[]): Promise<Map<string, Uint8Array>> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`layout corpus: Chromium is not at ${CHROMIUM}`);
  const browser = await launchChromium();
  const printed = new Map<string, Uint8Array>();
  try {
    const context = await browser.newContext();
    // No document loads anything: every font is a local generic family.
    await context.route("**/*", (route) =>
      route.request().url().startsWith("data:") ? route.continue() : route.abort(),
    );
    const page = await context.newPage();
    for (const doc of documents) {
      await page.setContent(doc.html, { waitUntil: "load" });
      await breakLongTables(page);
      await footnotesToPageFoot(page);
      const small = "font-family: sans-serif; font-size: 8px; width: 100%; margin: 0 18mm; color: #333;";
      const pdf = await page.pdf({
        format: "A4",
        printBackground: true,
        displayHeaderFooter: true,
        headerTemplate: `<div style="${small} text-align: left;">${escape(doc.runningHeader)}</div>`,
        footerTemplate: `<div style="${small} text-align: right;">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>`,
        margin: { top: "20mm", bottom: "20mm", left: "18mm", right: "18mm" },
      });
      printed.set(doc.id, new Uint8Array(pdf));
    }
  } finally {
    await browser.close();
  }
  return printed;
}

/** A4 less the margins below, in CSS pixels: the width and height of the printed text area. */
const AREA = { width: (174 / 25.4) * 96, height: (257 / 25.4) * 96 };

/**
 * A table marked long continues on the next page: laid out as on paper (print
 * media, the text area's width), if it would fit the page it starts on, space
 * is added above it so that about half of it falls on the next page. Only
 * the spacing changes, never the text.
 */
async function breakLongTables(page: Page): Promise<void> {
  await page.emulateMedia({ media: "print" });
  await page.setViewportSize({ width: Math.round(AREA.width), height: Math.round(AREA.height) });
  await page.evaluate((height) => {
    for (const table of document.querySelectorAll<HTMLElement>(".long")) {
      const top = table.getBoundingClientRect().top + window.scrollY;
      const h = table.getBoundingClientRect().height;
      const at = top % height;
      if (h < height && at + h < height) {
        const want = height - h / 2;
        table.style.marginTop = `${Math.round((want - at + height) % height)}px`;
      }
    }
  }, AREA.height);
}

/**
 * A paragraph with a footnote starts two lines above the foot of a page, less
 * the note's height (space is added above it, as for long tables), so it
 * runs on to the next page; the note, a float at the paragraph's top, is
 * brought down to the page's foot by a spacer float above it, and the
 * paragraph's lines go around it. Only spacing changes, never the text.
 */
async function footnotesToPageFoot(page: Page): Promise<void> {
  await page.evaluate((area) => {
    // Chromium shrinks a document wider than the page (a table with a long URL) to fit it: a page then holds more.
    const height = area / Math.min(1, window.innerWidth / document.documentElement.scrollWidth);
    // No helper functions in here: tsx's emitted names (__name) do not exist in the page.
    for (const p of document.querySelectorAll<HTMLElement>("p.noted")) {
      const spacer = p.querySelector<HTMLElement>(".fn-spacer")!;
      const note = p.querySelector<HTMLElement>(".footnote")!;
      const line = parseFloat(getComputedStyle(p).lineHeight) || 16;
      const noteHeight = note.getBoundingClientRect().height;
      const want = height - noteHeight - 2.5 * line;
      const at = (p.getBoundingClientRect().top + window.scrollY) % height;
      p.style.marginTop = `${Math.round((want - at + height) % height)}px`;
      const start = (p.getBoundingClientRect().top + window.scrollY) % height;
      spacer.style.height = `${Math.max(0, Math.floor(height - start - noteHeight - 2))}px`;
    }
  }, AREA.height);
}

export async function pageCount(pdf: Uint8Array): Promise<number> {
  return (await PDFDocument.load(pdf)).getPageCount();
}

/** `pdf` as a scan: its pages as 200-dpi grey images (pdftoppm), in a PDF without text. */
export async function scanOf(pdf: Uint8Array): Promise<Uint8Array> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "layout-scan-"));
  try {
    const input = path.join(dir, "in.pdf");
    fs.writeFileSync(input, pdf);
    await run("pdftoppm", ["-r", String(SCAN_DPI), "-gray", "-png", input, path.join(dir, "page")]);
    const original = await PDFDocument.load(pdf);
    const images = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".png"))
      .sort();
    if (images.length !== original.getPageCount())
      throw new Error(`pdftoppm made ${images.length} images of ${original.getPageCount()} pages`);
    const scan = await PDFDocument.create();
    scan.setCreationDate(new Date("2025-01-01T00:00:00Z"));
    scan.setModificationDate(new Date("2025-01-01T00:00:00Z"));
    for (const [i, file] of images.entries()) {
      const image = await scan.embedPng(fs.readFileSync(path.join(dir, file)));
      const { width, height } = original.getPage(i).getSize();
      scan.addPage([width, height]).drawImage(image, { x: 0, y: 0, width, height });
    }
    return scan.save();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
