import type { DocumentPart, PageRange, SourceLine } from "@/lib/extract/types";
import type { ChunkMetadata } from "@/lib/api-schema";

type Provenance = Pick<ChunkMetadata, "page_start" | "page_end" | "boxes" | "ocr_confidence" | "email" | "attachment">;

/**
 * Where a chunk came from in a PDF or an image: its pages, the boxes of the
 * lines it covers (to highlight it on the page), and, where OCR read them,
 * how sure Tesseract was of their words.
 */
export function provenance(
  source: { pages?: PageRange[]; lines?: SourceLine[]; parts?: DocumentPart[] },
  start: number,
  end: number,
): Provenance {
  if (source.parts?.length) return partOf(source.parts, start);
  if (!source.pages?.length) return {};
  const found: Provenance = {
    page_start: pageAt(source.pages, start),
    page_end: pageAt(source.pages, end - 1),
  };
  if (!source.lines) return found;
  const covered = linesIn(source.lines, start, end);
  found.boxes = covered.map(({ page, box: [x0, y0, x1, y1] }) => ({ page, x0, y0, x1, y1 }));
  // Each OCR'd line counts by the characters of it the chunk holds.
  let weighted = 0;
  let chars = 0;
  for (const line of covered) {
    if (line.confidence === undefined) continue;
    const held = Math.min(end, line.end) - Math.max(start, line.start);
    weighted += line.confidence * held;
    chars += held;
  }
  if (chars > 0) found.ocr_confidence = Math.round((weighted / chars) * 10) / 10;
  return found;
}

/** An e-mail part's headers and attachment name: the part holding the chunk's start (no chunk spans two). */
function partOf(parts: DocumentPart[], start: number): Provenance {
  const part = parts[lastAtOrBefore(parts, start)]!;
  const found: Provenance = {};
  if (part.email && Object.keys(part.email).length) found.email = part.email;
  if (part.attachment) found.attachment = part.attachment;
  return found;
}

/** The page holding character `offset`: the last page starting at or before it. */
function pageAt(pages: PageRange[], offset: number): number {
  return pages[lastAtOrBefore(pages, offset)]!.number;
}

/** The lines overlapping [start, end), in order; `lines` are sorted and do not overlap. */
function linesIn(lines: SourceLine[], start: number, end: number): SourceLine[] {
  let i = lastAtOrBefore(lines, start);
  if (lines[i] && lines[i]!.end <= start) i++;
  const covered: SourceLine[] = [];
  for (; i < lines.length && lines[i]!.start < end; i++) covered.push(lines[i]!);
  return covered;
}

/** The index of the last range starting at or before `offset` (0 when none does). */
function lastAtOrBefore(ranges: { start: number }[], offset: number): number {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ranges[mid]!.start <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
