import sharp from "sharp";
import { z } from "zod";
import { failures } from "@/lib/extract/failures";
import { withWorker } from "@/lib/extract/worker";

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
