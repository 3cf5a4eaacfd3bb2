import { PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { z } from "zod";
import { failures } from "@/lib/extract/failures";
import type { ExtractLimits } from "@/lib/extract/types";
import { withWorker } from "@/lib/extract/worker";
import { loadConfig } from "@/lib/ground/config";

/** Extraction's limits in the OCR tests: ten pages to OCR, as the service's default. */
export const LIMITS: ExtractLimits = {
  maxUnpackedBytes: 20 * 1024 * 1024,
  markup: loadConfig({}).limits.markup,
  maxChars: 1_000_000,
  maxPages: 1000,
  maxOcrPages: 10,
  timeoutMs: 60_000,
};

const Rendered = z.object({
  ok: z.literal(true),
  image: z.instanceof(Uint8Array),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
});

/**
 * Pages of a PDF as PNGs: scans made from a document whose words are known,
 * rendered by the service's own PDF worker as it renders pages without a
 * text layer (in grey, as a PGM, converted here).
 */
export async function renderPages(pdf: Uint8Array, pages: number[], dpi: number): Promise<Uint8Array[]> {
  const greys = await withWorker({ timeoutMs: 600_000, damaged: failures.corruptedPdf }, async (worker) => {
    await worker.call({ op: "pdf-open", data: pdf.slice() }, z.object({ ok: z.literal(true) }));
    const rendered: z.infer<typeof Rendered>[] = [];
    for (const page of pages) {
      const reply = await worker.call({ op: "pdf-render", page, dpi, maxPixels: 16_000_000 }, Rendered);
      if (!reply.ok) throw new Error(`page ${page} did not render: ${reply.message}`);
      rendered.push(reply);
    }
    return rendered;
  });
  return Promise.all(
    greys.map(async ({ image, width, height }) => {
      // A PGM's pixels are its last width × height bytes.
      const pixels = image.subarray(image.length - width * height);
      return new Uint8Array(
        await sharp(pixels, { raw: { width, height, channels: 1 } })
          .png()
          .toBuffer(),
      );
    }),
  );
}

/**
 * A PDF of some of `pdf`'s pages, in the order given: each copied as it is
 * (`as: "text"`), or made into a scan (`as: "scan"`): rendered at `dpi` and
 * put back as one image over the page, without a text layer.
 */
export async function pdfOfPages(
  pdf: Uint8Array,
  pages: Array<{ page: number; as: "text" | "scan" }>,
  dpi = 200,
): Promise<Uint8Array> {
  const source = await PDFDocument.load(pdf);
  const out = await PDFDocument.create();
  const scans = await renderPages(
    pdf,
    pages.filter((p) => p.as === "scan").map((p) => p.page),
    dpi,
  );
  for (const { page, as } of pages) {
    if (as === "text") {
      const [copied] = await out.copyPages(source, [page - 1]);
      out.addPage(copied);
      continue;
    }
    const { width, height } = source.getPage(page - 1).getSize();
    const image = await out.embedPng(scans.shift()!);
    out.addPage([width, height]).drawImage(image, { x: 0, y: 0, width, height });
  }
  return out.save();
}
