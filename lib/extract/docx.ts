import { z } from "zod";
import { failures } from "@/lib/extract/failures";
import { htmlToMarkdown } from "@/lib/extract/html";
import type { ExtractLimits } from "@/lib/extract/types";
import { withWorker } from "@/lib/extract/worker";
import { checkArchive } from "@/lib/extract/archive";

/**
 * DOCX → Markdown: mammoth makes HTML in a worker thread, html.ts makes
 * Markdown. Mammoth unpacks the whole archive in memory and dies of it on a
 * zip bomb, so the archive is measured first (lib/extract/zip.ts): by what it
 * declares (instant), then by inflating it under a cap (declarations can
 * lie), its XML parts' nesting measured as they stream out.
 */

/** The parts mammoth parses as XML; media and embedded files are only counted for size. */
const isXmlPart = (name: string) => /\.(xml|rels)$/i.test(name);

const Converted = z.object({ ok: z.literal(true), html: z.string() });

export async function extractDocx(
  bytes: Uint8Array,
  limits: Pick<ExtractLimits, "maxUnpackedBytes" | "markup" | "timeoutMs">,
): Promise<string> {
  await checkArchive(bytes, limits, { isMarkup: isXmlPart, damaged: failures.corruptedDocx });
  return withWorker({ timeoutMs: limits.timeoutMs, damaged: failures.corruptedDocx }, async (worker) => {
    const converted = await worker.call({ op: "docx-html", data: bytes }, Converted);
    if (!converted.ok) throw failures.corruptedDocx();
    return htmlToMarkdown(worker, converted.html, limits.markup);
  });
}
