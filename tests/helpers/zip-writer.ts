import { crc32 } from "node:zlib";
import { deflateSync } from "fflate";

/**
 * A ZIP writer that can lie: the archives a hostile client would build
 * (duplicate names, a local header that disagrees with its directory record,
 * an end record with the wrong count, overlapping entries). ZIP libraries
 * refuse to write these, which is why this exists only in the tests.
 */
export interface RawEntry {
  name: string;
  data: Uint8Array;
  /** Deflate the data (default) or store it. */
  deflate?: boolean;
  /** What the local header says instead of the truth. */
  local?: { name?: string; method?: number; size?: number; compressedSize?: number };
  /** What the directory record declares as the unpacked size instead of the truth. */
  declaredSize?: number;
}

interface Packed {
  nameBytes: Uint8Array;
  method: number;
  crc: number;
  size: number;
  body: Uint8Array;
  entry: RawEntry;
}

const utf8 = (s: string) => new TextEncoder().encode(s);

export function pack(entry: RawEntry): Packed {
  const deflated = entry.deflate !== false;
  return {
    nameBytes: utf8(entry.name),
    method: deflated ? 8 : 0,
    crc: crc32(entry.data) >>> 0,
    size: entry.data.length,
    body: deflated ? deflateSync(entry.data) : entry.data,
    entry,
  };
}

/** The local header and data of one entry. */
export function localRecord(p: Packed): Uint8Array {
  const local = p.entry.local ?? {};
  const name = local.name === undefined ? p.nameBytes : utf8(local.name);
  const out = new Uint8Array(30 + name.length + p.body.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x04034b50, true);
  v.setUint16(4, 20, true);
  v.setUint16(6, 1 << 11, true);
  v.setUint16(8, local.method ?? p.method, true);
  v.setUint32(14, p.crc, true);
  v.setUint32(18, local.compressedSize ?? p.body.length, true);
  v.setUint32(22, local.size ?? p.size, true);
  v.setUint16(26, name.length, true);
  out.set(name, 30);
  out.set(p.body, 30 + name.length);
  return out;
}

/** The central directory record of an entry whose local header is at `offset`. */
export function centralRecord(p: Packed, offset: number): Uint8Array {
  const out = new Uint8Array(46 + p.nameBytes.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x02014b50, true);
  v.setUint16(4, 20, true);
  v.setUint16(6, 20, true);
  v.setUint16(8, 1 << 11, true);
  v.setUint16(10, p.method, true);
  v.setUint32(16, p.crc, true);
  v.setUint32(20, p.body.length, true);
  v.setUint32(24, p.entry.declaredSize ?? p.size, true);
  v.setUint16(28, p.nameBytes.length, true);
  v.setUint32(42, offset, true);
  out.set(p.nameBytes, 46);
  return out;
}

export function endRecord(count: number, directorySize: number, directoryOffset: number): Uint8Array {
  const out = new Uint8Array(22);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x06054b50, true);
  v.setUint16(8, count, true);
  v.setUint16(10, count, true);
  v.setUint32(12, directorySize, true);
  v.setUint32(16, directoryOffset, true);
  return out;
}

export const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

/** An archive of `entries` in order; `declaredCount` makes the end record say another number of entries. */
export function writeZip(entries: RawEntry[], options: { declaredCount?: number } = {}): Uint8Array {
  const packed = entries.map(pack);
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const p of packed) {
    const local = localRecord(p);
    centrals.push(centralRecord(p, offset));
    locals.push(local);
    offset += local.length;
  }
  const directory = concat(centrals);
  return concat([...locals, directory, endRecord(options.declaredCount ?? entries.length, directory.length, offset)]);
}
