import { z } from "zod";
import { failures } from "@/lib/extract/failures";
import { htmlToMarkdown } from "@/lib/extract/html";
import type { ExtractLimits } from "@/lib/extract/types";
import { withWorker } from "@/lib/extract/worker";
import { inspectZip } from "@/lib/extract/zip";

/**
 * DOCX → Markdown: mammoth makes HTML in a worker thread, html.ts makes
 * Markdown. Mammoth unpacks the whole archive in memory and dies of it on a
 * zip bomb, so the archive is measured first (lib/extract/zip.ts): by what it
 * declares (instant), then by inflating it under a cap (declarations can
 * lie), its XML parts' nesting measured as they stream out.
 */

/** Word writes a few dozen parts; thousands only make JSZip build a huge index. */
const MAX_ENTRIES = 10_000;

/** The parts mammoth parses as XML; media and embedded files are only counted for size. */
const isXmlPart = (name: string) => /\.(xml|rels)$/i.test(name);

const Converted = z.object({ ok: z.literal(true), html: z.string() });

export async function extractDocx(
  bytes: Uint8Array,
  limits: Pick<ExtractLimits, "maxUnpackedBytes" | "markup" | "timeoutMs">,
): Promise<string> {
  await checkArchive(bytes, limits);
  return withWorker({ timeoutMs: limits.timeoutMs, damaged: failures.corruptedDocx }, async (worker) => {
    const converted = await worker.call({ op: "docx-html", data: bytes }, Converted);
    if (!converted.ok) throw failures.corruptedDocx();
    return htmlToMarkdown(worker, converted.html, limits.markup);
  });
}

async function checkArchive(bytes: Uint8Array, limits: Pick<ExtractLimits, "maxUnpackedBytes" | "markup">) {
  const verdict = await inspectZip(bytes, {
    maxEntries: MAX_ENTRIES,
    maxUnpackedBytes: limits.maxUnpackedBytes,
    maxMarkupDepth: limits.markup.maxDepth,
    isMarkup: isXmlPart,
  });
  if (verdict.ok) return;
  switch (verdict.reason) {
    case "damaged":
      throw failures.corruptedDocx();
    case "too_many_entries":
      throw failures.zipBomb(`${verdict.found} parts, more than ${verdict.max}`);
    case "too_large":
      throw failures.zipBomb(
        verdict.unpacked === undefined
          ? `${size(verdict.declared)}, more than the ${size(verdict.max)} allowed`
          : `more than the ${size(verdict.max)} allowed, although it declares ${size(verdict.declared)}`,
      );
    case "too_complex":
      throw failures.markupTooComplex(verdict.excess);
  }
}

function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
