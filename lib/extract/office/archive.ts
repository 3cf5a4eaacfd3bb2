import type { ApiError } from "@/lib/ground/errors";
import { openArchive as openZip } from "@/lib/extract/archive";
import type { ExtractLimits } from "@/lib/extract/types";

/**
 * A zip-based office document (PPTX, XLSX, ODP, ODS) opened through the same reader and budgets as DOCX, ODT and
 * EPUB (lib/extract/archive.ts): measured first, by its declared sizes and then by inflating under the cap, its XML
 * parts' nesting measured as they stream out; only then are parts read.
 */
export interface OfficeArchive {
  has: (name: string) => boolean;
  /** The part's text (UTF-8), or undefined when the archive has no such part. */
  text: (name: string) => string | undefined;
}

const isXmlPart = (name: string) => /\.(xml|rels)$/i.test(name);

export async function openArchive(
  bytes: Uint8Array,
  limits: Pick<ExtractLimits, "maxUnpackedBytes" | "markup">,
  damaged: () => ApiError,
): Promise<OfficeArchive> {
  const archive = await openZip(bytes, limits, { isMarkup: isXmlPart, damaged });
  const names = new Set(archive.names);
  return { has: (name) => names.has(name), text: archive.text };
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
