import { Inflate } from "fflate";

/**
 * How big a ZIP really is once unpacked, measured without trusting it.
 *
 * Entries are read from the central directory, as JSZip (inside mammoth)
 * reads them, so what is measured here is what mammoth would unpack:
 * overlapping entries are counted once per entry, as they would be inflated.
 */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  /** What the archive claims; a zip bomb may lie here. */
  declaredSize: number;
  dataStart: number;
}

/** The bytes are not a ZIP this reader accepts (damaged, truncated, encrypted entries). */
export class ZipFormatError extends Error {}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_MIN = 22;
const MAX_COMMENT = 0xffff;
const STORED = 0;
const DEFLATED = 8;

export function readCentralDirectory(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEndOfCentralDirectory(view);
  const count = view.getUint16(eocd + 10, true);
  const directoryOffset = view.getUint32(eocd + 16, true);
  // Archives needing the ZIP64 end record (65535+ entries, 4 GB+ offsets) are far beyond any upload limit.
  if (count === 0xffff || directoryOffset === 0xffffffff)
    throw new ZipFormatError("ZIP64 end records are not supported");

  const decoder = new TextDecoder();
  const entries: ZipEntry[] = [];
  let p = directoryOffset;
  for (let i = 0; i < count; i++) {
    need(view, p, 46);
    if (view.getUint32(p, true) !== CENTRAL_SIGNATURE) throw new ZipFormatError(`bad central directory entry ${i}`);
    const flags = view.getUint16(p + 8, true);
    const method = view.getUint16(p + 10, true);
    const nameLength = view.getUint16(p + 28, true);
    const extraLength = view.getUint16(p + 30, true);
    const commentLength = view.getUint16(p + 32, true);
    need(view, p + 46, nameLength + extraLength);
    const name = decoder.decode(bytes.subarray(p + 46, p + 46 + nameLength));
    if (flags & 1) throw new ZipFormatError(`${name} is encrypted`);
    if (method !== STORED && method !== DEFLATED) throw new ZipFormatError(`${name} uses compression method ${method}`);
    const zip64 = zip64Fields(view, p + 46 + nameLength, extraLength);
    const declaredSize = widen(view.getUint32(p + 24, true), zip64);
    const compressedSize = widen(view.getUint32(p + 20, true), zip64);
    const localOffset = widen(view.getUint32(p + 42, true), zip64);

    need(view, localOffset, 30);
    if (view.getUint32(localOffset, true) !== LOCAL_SIGNATURE) throw new ZipFormatError(`bad local header for ${name}`);
    const dataStart =
      localOffset + 30 + view.getUint16(localOffset + 26, true) + view.getUint16(localOffset + 28, true);
    need(view, dataStart, compressedSize);

    entries.push({ name, method, compressedSize, declaredSize, dataStart });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * The ZIP64 extra field's values, in the order the spec gives them. Some
 * writers (.NET's packaging among them) use ZIP64 even for small files.
 */
function zip64Fields(view: DataView, start: number, length: number): number[] {
  for (let p = start; p + 4 <= start + length;) {
    const id = view.getUint16(p, true);
    const size = view.getUint16(p + 2, true);
    if (id === 0x0001) {
      const values: number[] = [];
      for (let q = p + 4; q + 8 <= p + 4 + size && q + 8 <= start + length; q += 8)
        values.push(Number(view.getBigUint64(q, true)));
      return values;
    }
    p += 4 + size;
  }
  return [];
}

/** A 32-bit field of 0xFFFFFFFF means "see the ZIP64 extra field", whose values are consumed in order. */
function widen(value: number, zip64: number[]): number {
  if (value !== 0xffffffff) return value;
  const wide = zip64.shift();
  if (wide === undefined) throw new ZipFormatError("ZIP64 size missing from its extra field");
  return wide;
}

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
 * Inflates every entry, discarding the output, until the total passes `cap`.
 * Returns the total, or `undefined` as soon as the cap is passed. Yields to
 * the event loop between steps so a large archive does not stall the server.
 */
export async function unpackedSizeWithin(
  bytes: Uint8Array,
  entries: ZipEntry[],
  cap: number,
): Promise<number | undefined> {
  let total = 0;
  for (const entry of entries) {
    const data = bytes.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
    if (entry.method === STORED) {
      total += data.length;
      if (total > cap) return undefined;
      continue;
    }
    const inflater = new Inflate((chunk) => {
      total += chunk.length;
    });
    let offset = 0;
    do {
      const end = Math.min(offset + STEP_BYTES, data.length);
      try {
        inflater.push(data.subarray(offset, end), end === data.length);
      } catch (error) {
        throw new ZipFormatError(`${entry.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (total > cap) return undefined;
      offset = end;
      await new Promise<void>((resolve) => setImmediate(resolve));
    } while (offset < data.length);
  }
  return total;
}
