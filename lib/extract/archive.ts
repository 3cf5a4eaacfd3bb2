import { inflateSync } from "fflate";
import type { ApiError } from "@/lib/ground/errors";
import { failures } from "@/lib/extract/failures";
import type { ExtractLimits } from "@/lib/extract/types";
import { inspectZip, type ZipEntry } from "@/lib/extract/zip";

/**
 * A ZIP-based document (DOCX, ODT, EPUB) measured against the one budget of
 * lib/extract/zip.ts, and its entries read once it passed. Reading after the
 * measurement is safe: every entry was found to inflate to exactly the size it
 * declares, and all of them together to at most `maxUnpackedBytes`.
 */

/** Word and OpenDocument write a few dozen parts, books a few hundred; thousands only make an index huge. */
const MAX_ENTRIES = 10_000;

export interface Archive {
  /** The entry's bytes, inflated; undefined when the archive has no such entry. */
  read: (name: string) => Uint8Array | undefined;
  /** The entry's text (UTF-8, a byte-order mark dropped). */
  text: (name: string) => string | undefined;
  names: string[];
}

export async function openArchive(
  bytes: Uint8Array,
  limits: Pick<ExtractLimits, "maxUnpackedBytes" | "markup">,
  format: { isMarkup: (name: string) => boolean; damaged: () => ApiError },
): Promise<Archive> {
  const entries = await checkArchive(bytes, limits, format);
  const byName = new Map(entries.map((entry) => [entry.name, entry]));
  const read = (name: string) => {
    const entry = byName.get(name);
    if (!entry) return undefined;
    const data = bytes.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
    return entry.method === 0 ? data : inflateSync(data, { out: new Uint8Array(entry.declaredSize) });
  };
  const decoder = new TextDecoder();
  return {
    read,
    text: (name) => {
      const data = read(name);
      return data && decoder.decode(data);
    },
    names: entries.map((entry) => entry.name),
  };
}

/** The archive's entries, or the ApiError saying why it is refused. */
export async function checkArchive(
  bytes: Uint8Array,
  limits: Pick<ExtractLimits, "maxUnpackedBytes" | "markup">,
  format: { isMarkup: (name: string) => boolean; damaged: () => ApiError },
): Promise<ZipEntry[]> {
  const verdict = await inspectZip(bytes, {
    maxEntries: MAX_ENTRIES,
    maxUnpackedBytes: limits.maxUnpackedBytes,
    maxMarkupDepth: limits.markup.maxDepth,
    isMarkup: format.isMarkup,
  });
  if (verdict.ok) return verdict.entries;
  switch (verdict.reason) {
    case "damaged":
      throw format.damaged();
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

export function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
