import { inflateSync } from "fflate";
import type { ApiError } from "@/lib/errors";
import { failures } from "@/lib/extract/failures";
import type { ExtractLimits } from "@/lib/extract/types";
import { inspectZip, type ZipEntry } from "@/lib/extract/zip";

/**
 * A zip-based office document (PPTX, XLSX, ODP, ODS) opened through the same
 * reader and budgets as DOCX (lib/extract/zip.ts): measured first, by its
 * declared sizes and then by inflating under the cap, its XML parts' nesting
 * measured as they stream out. Only then are parts inflated again, one at a
 * time, for reading: their total is known to be within the cap.
 */
export interface OfficeArchive {
  has: (name: string) => boolean;
  /** The part's text (UTF-8), or undefined when the archive has no such part. */
  text: (name: string) => string | undefined;
}

/** Office packages hold a few hundred parts; thousands only make a large index. */
const MAX_ENTRIES = 10_000;

const isXmlPart = (name: string) => /\.(xml|rels)$/i.test(name);

export async function openArchive(
  bytes: Uint8Array,
  limits: Pick<ExtractLimits, "maxUnpackedBytes" | "markup">,
  damaged: () => ApiError,
): Promise<OfficeArchive> {
  const verdict = await inspectZip(bytes, {
    maxEntries: MAX_ENTRIES,
    maxUnpackedBytes: limits.maxUnpackedBytes,
    maxMarkupDepth: limits.markup.maxDepth,
    isMarkup: isXmlPart,
  });
  if (!verdict.ok) {
    switch (verdict.reason) {
      case "damaged":
        throw damaged();
      case "too_many_entries":
        throw failures.zipBomb(`${verdict.found} parts, more than ${verdict.max}`);
      case "too_large":
        throw failures.zipBomb(
          verdict.unpacked === undefined
            ? `${megabytes(verdict.declared)}, more than the ${megabytes(verdict.max)} allowed`
            : `more than the ${megabytes(verdict.max)} allowed, although it declares ${megabytes(verdict.declared)}`,
        );
      case "too_complex":
        throw failures.markupTooComplex(verdict.excess);
    }
  }
  const byName = new Map<string, ZipEntry>(verdict.entries.map((entry) => [entry.name, entry]));
  const decoder = new TextDecoder();
  return {
    has: (name) => byName.has(name),
    text: (name) => {
      const entry = byName.get(name);
      if (!entry) return undefined;
      const data = bytes.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
      return decoder.decode(entry.method === 0 ? data : inflateSync(data, { out: new Uint8Array(entry.declaredSize) }));
    },
  };
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** A relationship target resolved against the folder of the part that names it ("../x" climbs). */
export function resolvePartPath(fromPart: string, target: string): string {
  if (target.startsWith("/")) return target.slice(1);
  const parts = fromPart.split("/").slice(0, -1);
  for (const piece of target.split("/")) {
    if (piece === "..") parts.pop();
    else if (piece !== ".") parts.push(piece);
  }
  return parts.join("/");
}

/** Where a part's relationships are kept: "ppt/slides/slide1.xml" → "ppt/slides/_rels/slide1.xml.rels". */
export function relsPathOf(part: string): string {
  const slash = part.lastIndexOf("/");
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}
