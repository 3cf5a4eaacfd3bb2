import { z } from "zod";
import { failures } from "@/lib/extract/failures";
import { htmlToMarkdown } from "@/lib/extract/html";
import type { ExtractLimits } from "@/lib/extract/types";
import { withWorker } from "@/lib/extract/worker";
import { readCentralDirectory, unpackedSizeWithin, ZipFormatError, type ZipEntry } from "@/lib/extract/zip";

/**
 * DOCX → Markdown: mammoth makes HTML in a worker thread, html.ts makes
 * Markdown. Mammoth unpacks the whole archive in memory and dies of it on a
 * zip bomb, so the archive is measured first, twice: by what it declares
 * (instant) and by actually inflating it under a cap (declarations can lie).
 */

/** Word writes a few dozen parts; thousands only make JSZip build a huge index. */
const MAX_ENTRIES = 10_000;

const Converted = z.object({ ok: z.literal(true), html: z.string() });

export async function extractDocx(
  bytes: Uint8Array,
  limits: Pick<ExtractLimits, "maxUnpackedBytes" | "timeoutMs">,
): Promise<string> {
  await checkUnpackedSize(bytes, limits.maxUnpackedBytes);
  return withWorker({ timeoutMs: limits.timeoutMs, damaged: failures.corruptedDocx }, async (worker) => {
    const converted = await worker.call({ op: "docx-html", data: bytes }, Converted);
    if (!converted.ok) throw failures.corruptedDocx();
    return htmlToMarkdown(worker, converted.html);
  });
}

async function checkUnpackedSize(bytes: Uint8Array, cap: number): Promise<void> {
  const entries = readEntries(bytes);
  if (entries.length > MAX_ENTRIES) throw failures.zipBomb(`${entries.length} parts, more than ${MAX_ENTRIES}`);
  const declared = entries.reduce((sum, e) => sum + e.declaredSize, 0);
  if (declared > cap) throw failures.zipBomb(`${size(declared)}, more than the ${size(cap)} allowed`);
  let actual: number | undefined;
  try {
    actual = await unpackedSizeWithin(bytes, entries, cap);
  } catch (error) {
    if (error instanceof ZipFormatError) throw failures.corruptedDocx();
    throw error;
  }
  if (actual === undefined)
    throw failures.zipBomb(`more than the ${size(cap)} allowed, although it declares ${size(declared)}`);
}

function readEntries(bytes: Uint8Array): ZipEntry[] {
  try {
    return readCentralDirectory(bytes);
  } catch (error) {
    if (error instanceof ZipFormatError) throw failures.corruptedDocx();
    throw error;
  }
}

function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
