import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PDFDocument } from "pdf-lib";
import { mulberry32 } from "./random";

/**
 * A PDF of at least `minBytes`: the repository's multipage.pdf (its text
 * pages unchanged) with an attachment of seeded random bytes, which no
 * compression shrinks. Deterministic: the same bytes on every run.
 */
export async function paddedPdf(minBytes: number): Promise<Uint8Array> {
  const source = readFileSync(join(import.meta.dirname, "..", "fixtures", "multipage.pdf"));
  const pdf = await PDFDocument.load(source);
  const padding = new Uint8Array(minBytes);
  const random = mulberry32(27);
  for (let i = 0; i < padding.length; i += 4) {
    const value = Math.floor(random() * 2 ** 32);
    padding[i] = value & 0xff;
    padding[i + 1] = (value >>> 8) & 0xff;
    padding[i + 2] = (value >>> 16) & 0xff;
    padding[i + 3] = value >>> 24;
  }
  await pdf.attach(padding, "padding.bin", { mimeType: "application/octet-stream" });
  // A fixed date, so the document's bytes are the same on every run.
  const fixed = new Date("2026-01-01T00:00:00Z");
  pdf.setCreationDate(fixed);
  pdf.setModificationDate(fixed);
  return pdf.save({ useObjectStreams: false });
}
