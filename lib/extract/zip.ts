import { Inflate } from "fflate";
import { MarkupMeter, type MarkupExcess, writeYielding } from "@/lib/extract/markup-budget";

/**
 * One budget for every ZIP-based format (DOCX today; EPUB, PPTX, XLSX, ODT
 * later): an archive is measured, without trusting what it declares, before
 * the format's reader (mammoth for DOCX, which unpacks with JSZip) sees it.
 *
 * The measurement is only worth something if the reader would unpack the
 * same entries. ZIP leaves room for two readers to disagree: JSZip reads
 * central directory records for as long as their signature repeats (not the
 * count the end record declares), lets a later duplicate name replace an
 * earlier one, takes a name from a Unicode Path extra field, and reads each
 * entry's data after its local header. So every archive in which that could
 * differ from a plain reading is refused as damaged: a count that disagrees
 * with the directory, bytes between the directory and the end record,
 * duplicate names, a local header that disagrees with its directory record
 * (name, method, sizes), entries whose bytes overlap, alternative names.
 *
 * Written here rather than taken from a ZIP library: yauzl and fflate read
 * the count the end record declares and accept duplicates, i.e. they would
 * measure one reading of an ambiguous archive; the point is to refuse
 * ambiguity. Inflating is fflate's.
 */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  /** What the archive claims; a zip bomb may lie here (checked when inflated). */
  declaredSize: number;
  localOffset: number;
  dataStart: number;
}

export interface ZipBudget {
  maxEntries: number;
  /** Inflated bytes across all entries. */
  maxUnpackedBytes: number;
  /** Nesting depth of each markup part (the format's reader builds a tree of it). */
  maxMarkupDepth: number;
  /** The entries that are XML the format's reader parses (DOCX: its .xml and .rels parts). */
  isMarkup: (name: string) => boolean;
}

export type ZipVerdict =
  | { ok: true; entries: ZipEntry[]; unpackedBytes: number }
  | { ok: false; reason: "damaged"; detail: string }
  | { ok: false; reason: "too_many_entries"; found: number; max: number }
  /** `unpacked`: absent when the declared sizes alone are over the limit; else how far inflating got (past `max`). */
  | { ok: false; reason: "too_large"; declared: number; unpacked?: number; max: number }
  | { ok: false; reason: "too_complex"; part: string; excess: MarkupExcess };

/** The bytes are not a ZIP this reader accepts (damaged, truncated, ambiguous, encrypted entries). */
class ZipFormatError extends Error {}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_MIN = 22;
const MAX_COMMENT = 0xffff;
const STORED = 0;
const DEFLATED = 8;
const FLAG_ENCRYPTED = 1;
const FLAG_DATA_DESCRIPTOR = 1 << 3;
const FLAG_UTF8 = 1 << 11;
/** Info-ZIP Unicode Path and Comment extra fields: JSZip names an entry from the first. */
const UNICODE_EXTRAS = new Set([0x7075, 0x6375]);

/** Measures the archive against `budget`: the entries as its reader would unpack them, or why not. */
export async function inspectZip(bytes: Uint8Array, budget: ZipBudget): Promise<ZipVerdict> {
  let entries: ZipEntry[];
  try {
    entries = readZipDirectory(bytes);
  } catch (error) {
    if (error instanceof ZipFormatError) return { ok: false, reason: "damaged", detail: error.message };
    throw error;
  }
  if (entries.length > budget.maxEntries)
    return { ok: false, reason: "too_many_entries", found: entries.length, max: budget.maxEntries };
  const declared = entries.reduce((sum, e) => sum + e.declaredSize, 0);
  if (declared > budget.maxUnpackedBytes)
    return { ok: false, reason: "too_large", declared, max: budget.maxUnpackedBytes };
  try {
    return await inflateWithin(bytes, entries, budget, declared);
  } catch (error) {
    if (error instanceof ZipFormatError) return { ok: false, reason: "damaged", detail: error.message };
    throw error;
  }
}

/** The central directory's entries, each checked against its local header and against the others. */
function readZipDirectory(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEndOfCentralDirectory(view);
  const disk = view.getUint16(eocd + 4, true);
  const directoryDisk = view.getUint16(eocd + 6, true);
  const countOnDisk = view.getUint16(eocd + 8, true);
  const count = view.getUint16(eocd + 10, true);
  const directorySize = view.getUint32(eocd + 12, true);
  const directoryOffset = view.getUint32(eocd + 16, true);
  // Archives needing the ZIP64 end record (65535+ entries, 4 GB+ offsets) are far beyond any upload limit.
  if (count === 0xffff || directoryOffset === 0xffffffff || directorySize === 0xffffffff)
    throw new ZipFormatError("ZIP64 end records are not supported");
  if (disk !== 0 || directoryDisk !== 0 || countOnDisk !== count)
    throw new ZipFormatError("multi-disk archives are not supported");
  // JSZip reads records for as long as they follow one another, and shifts every offset by any bytes
  // prepended to the archive: the directory must end exactly where the end record starts.
  if (directoryOffset + directorySize !== eocd)
    throw new ZipFormatError("the central directory does not end where the end record starts");

  const entries: ZipEntry[] = [];
  const names = new Set<string>();
  let p = directoryOffset;
  while (p < eocd) {
    need(view, p, 46);
    if (view.getUint32(p, true) !== CENTRAL_SIGNATURE)
      throw new ZipFormatError(`bad central directory entry ${entries.length}`);
    const flags = view.getUint16(p + 8, true);
    const method = view.getUint16(p + 10, true);
    const nameLength = view.getUint16(p + 28, true);
    const extraLength = view.getUint16(p + 30, true);
    const commentLength = view.getUint16(p + 32, true);
    need(view, p + 46, nameLength + extraLength + commentLength);
    const nameBytes = bytes.subarray(p + 46, p + 46 + nameLength);
    const name = entryName(nameBytes, flags);
    if (flags & FLAG_ENCRYPTED) throw new ZipFormatError(`${name} is encrypted`);
    if (method !== STORED && method !== DEFLATED) throw new ZipFormatError(`${name} uses compression method ${method}`);
    const extras = extraFields(view, p + 46 + nameLength, extraLength);
    if ([...extras.keys()].some((id) => UNICODE_EXTRAS.has(id)))
      throw new ZipFormatError(`${name} carries a second, Unicode name`);
    if (names.has(name)) throw new ZipFormatError(`${name} appears twice`);
    names.add(name);
    const zip64 = zip64Values(view, extras.get(0x0001));
    const declaredSize = widen(view.getUint32(p + 24, true), zip64);
    const compressedSize = widen(view.getUint32(p + 20, true), zip64);
    const localOffset = widen(view.getUint32(p + 42, true), zip64);

    const dataStart = checkLocalHeader(view, bytes, localOffset, {
      name,
      nameBytes,
      flags,
      method,
      compressedSize,
      declaredSize,
    });
    need(view, dataStart, compressedSize);
    entries.push({ name, method, compressedSize, declaredSize, localOffset, dataStart });
    p += 46 + nameLength + extraLength + commentLength;
  }
  if (p !== eocd) throw new ZipFormatError("the last central directory entry runs into the end record");
  if (entries.length !== count)
    throw new ZipFormatError(`the end record declares ${count} entries; the directory holds ${entries.length}`);
  checkNoOverlap(entries, directoryOffset);
  return entries;
}

interface CentralRecord {
  name: string;
  nameBytes: Uint8Array;
  flags: number;
  method: number;
  compressedSize: number;
  declaredSize: number;
}

/** Where the entry's data starts, once its local header is found to say what its directory record says. */
function checkLocalHeader(view: DataView, bytes: Uint8Array, offset: number, central: CentralRecord): number {
  need(view, offset, 30);
  if (view.getUint32(offset, true) !== LOCAL_SIGNATURE)
    throw new ZipFormatError(`bad local header for ${central.name}`);
  const method = view.getUint16(offset + 8, true);
  const compressedSize = view.getUint32(offset + 18, true);
  const size = view.getUint32(offset + 22, true);
  const nameLength = view.getUint16(offset + 26, true);
  const extraLength = view.getUint16(offset + 28, true);
  need(view, offset + 30, nameLength + extraLength);
  const nameBytes = bytes.subarray(offset + 30, offset + 30 + nameLength);
  const disagrees = (what: string) => new ZipFormatError(`${central.name}: its local header's ${what} disagrees`);
  if (!sameBytes(nameBytes, central.nameBytes)) throw disagrees("name");
  if (method !== central.method) throw disagrees("compression method");
  // With a data descriptor the sizes follow the data and the header may hold zeros; 0xFFFFFFFF defers to ZIP64.
  const deferred = (central.flags & FLAG_DATA_DESCRIPTOR) !== 0;
  const agrees = (local: number, expected: number) =>
    local === expected || local === 0xffffffff || (deferred && local === 0);
  if (!agrees(compressedSize, central.compressedSize)) throw disagrees("compressed size");
  if (!agrees(size, central.declaredSize)) throw disagrees("size");
  return offset + 30 + nameLength + extraLength;
}

/** Each entry's header and data lie apart from every other's and before the directory. */
function checkNoOverlap(entries: ZipEntry[], directoryOffset: number): void {
  const byOffset = [...entries].sort((a, b) => a.localOffset - b.localOffset);
  byOffset.forEach((entry, i) => {
    const end = entry.dataStart + entry.compressedSize;
    const next = byOffset[i + 1];
    if (end > (next ? next.localOffset : directoryOffset))
      throw new ZipFormatError(`${entry.name} overlaps ${next ? next.name : "the central directory"}`);
  });
}

/** As JSZip names it: UTF-8 when the entry says so, else one character a byte. */
function entryName(bytes: Uint8Array, flags: number): string {
  if (flags & FLAG_UTF8) return new TextDecoder().decode(bytes);
  return String.fromCharCode(...bytes);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** An entry's extra fields by id: where each one's data starts and its length. */
function extraFields(view: DataView, start: number, length: number): Map<number, { start: number; size: number }> {
  const fields = new Map<number, { start: number; size: number }>();
  for (let p = start; p + 4 <= start + length;) {
    const id = view.getUint16(p, true);
    const size = Math.min(view.getUint16(p + 2, true), start + length - (p + 4));
    fields.set(id, { start: p + 4, size });
    p += 4 + size;
  }
  return fields;
}

/**
 * The ZIP64 extra field's values, in the order the spec gives them. Some
 * writers (.NET's packaging among them) use ZIP64 even for small files.
 */
function zip64Values(view: DataView, field: { start: number; size: number } | undefined): number[] {
  const values: number[] = [];
  if (!field) return values;
  for (let q = field.start; q + 8 <= field.start + field.size; q += 8) values.push(Number(view.getBigUint64(q, true)));
  return values;
}

/** A 32-bit field of 0xFFFFFFFF means "see the ZIP64 extra field", whose values are consumed in order. */
function widen(value: number, zip64: number[]): number {
  if (value !== 0xffffffff) return value;
  const wide = zip64.shift();
  if (wide === undefined) throw new ZipFormatError("ZIP64 size missing from its extra field");
  return wide;
}

/** The last end record, as JSZip finds it. */
function findEndOfCentralDirectory(view: DataView): number {
  const last = view.byteLength - EOCD_MIN;
  for (let p = last; p >= 0 && p >= last - MAX_COMMENT; p--) {
    if (view.getUint32(p, true) === EOCD_SIGNATURE) return p;
  }
  throw new ZipFormatError("no end of central directory record; the file is truncated or not a ZIP");
}

function need(view: DataView, offset: number, length: number): void {
  if (offset + length > view.byteLength) throw new ZipFormatError("entry runs past the end of the file");
}

/**
 * Input fed to the inflater per step. Deflate expands at most about 1032:1,
 * so one step makes at most ~16 MB before the cap is checked again.
 */
const STEP_BYTES = 16 * 1024;

/**
 * Inflates every entry, measuring markup parts as they stream out and
 * discarding the rest, until the total passes the cap. Yields to the event
 * loop between steps so a large archive does not stall the server.
 */
async function inflateWithin(
  bytes: Uint8Array,
  entries: ZipEntry[],
  budget: ZipBudget,
  declared: number,
): Promise<ZipVerdict> {
  // Depth only: an XML part's element count follows from its size, which the byte cap bounds.
  const meter = new MarkupMeter({ maxDepth: budget.maxMarkupDepth, maxElements: Number.POSITIVE_INFINITY }, "xml");
  let total = 0;
  for (const entry of entries) {
    const markup = budget.isMarkup(entry.name);
    const decoder = new TextDecoder();
    let entryBytes = 0;
    // Text inflated by the last step, measured after it in slices: one step may inflate to ~16 MB.
    let inflatedText = "";
    const take = (chunk: Uint8Array, final: boolean) => {
      entryBytes += chunk.length;
      total += chunk.length;
      if (markup && total <= budget.maxUnpackedBytes) inflatedText += decoder.decode(chunk, { stream: !final });
    };
    const data = bytes.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
    const inflater = entry.method === DEFLATED ? new Inflate(take) : undefined;
    let offset = 0;
    do {
      const end = Math.min(offset + STEP_BYTES, data.length);
      const step = data.subarray(offset, end);
      try {
        if (inflater) inflater.push(step, end === data.length);
        else take(step, end === data.length);
      } catch (error) {
        throw new ZipFormatError(`${entry.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (total > budget.maxUnpackedBytes)
        return { ok: false, reason: "too_large", declared, unpacked: total, max: budget.maxUnpackedBytes };
      const excess = await writeYielding(meter, inflatedText);
      inflatedText = "";
      if (excess) return { ok: false, reason: "too_complex", part: entry.name, excess };
      offset = end;
      await new Promise<void>((resolve) => setImmediate(resolve));
    } while (offset < data.length);
    if (entryBytes !== entry.declaredSize)
      throw new ZipFormatError(
        `${entry.name} unpacks to ${entryBytes} bytes, not the ${entry.declaredSize} it declares`,
      );
    if (markup) {
      const closed = meter.endPart();
      if (closed) return { ok: false, reason: "too_complex", part: entry.name, excess: closed };
    }
  }
  return { ok: true, entries, unpackedBytes: total };
}
