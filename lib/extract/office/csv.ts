import { analyse } from "chardet";
import Papa from "papaparse";
import { type CellCounter, type SheetCells } from "@/lib/extract/office/sheet-table";
import { normalizeNewlines } from "@/lib/extract/text";

/**
 * CSV and TSV: their encoding and dialect sniffed, then parsed by Papa Parse
 * (quoted fields with separators, quotes and line breaks inside them).
 *
 * Encoding: a byte-order mark decides (UTF-8, UTF-16 LE/BE); else UTF-8 when
 * the bytes are valid UTF-8; else chardet's best guess among the encodings
 * the platform decodes (Windows-1252 for Excel's "CSV" on Western systems,
 * Shift_JIS on Japanese ones, ...), Windows-1252 when it has none. Excel
 * writes CSV in the system's code page, so refusing non-UTF-8 would refuse
 * most CSVs exported on Windows.
 */
export interface CsvText {
  text: string;
  encoding: string;
}

export function decodeCsv(bytes: Uint8Array): CsvText {
  const bom = bomEncoding(bytes);
  if (bom) return { text: normalizeNewlines(new TextDecoder(bom).decode(bytes)), encoding: bom };
  try {
    return { text: normalizeNewlines(new TextDecoder("utf-8", { fatal: true }).decode(bytes)), encoding: "utf-8" };
  } catch {
    // Not UTF-8: guess below.
  }
  // Only the start is analysed: chardet's time grows with its input, and a few tens of KB decide.
  const guesses = analyse(bytes.subarray(0, SNIFF_BYTES)).filter((match) => !/^utf-?(8|16|32)/i.test(match.name));
  // On short files chardet ranks single-byte code pages first for anything (70 bytes of Shift_JIS came out
  // Windows-1252). A multi-byte encoding is taken first when the bytes are valid in it and make CJK text: bytes of
  // another encoding rarely pair up into valid multi-byte sequences, and never into mostly ideographs or kana.
  const ordered = [
    ...guesses.filter((match) => MULTI_BYTE.has(match.name)),
    ...guesses.filter((match) => !MULTI_BYTE.has(match.name)),
  ];
  for (const match of ordered) {
    const text = decodeAs(bytes, match.name);
    if (text === undefined) continue;
    if (MULTI_BYTE.has(match.name) && !looksCjk(text)) continue;
    return { text: normalizeNewlines(text), encoding: match.name };
  }
  return { text: normalizeNewlines(new TextDecoder("windows-1252").decode(bytes)), encoding: "windows-1252" };
}

const MULTI_BYTE = new Set([
  "Shift_JIS",
  "EUC-JP",
  "EUC-KR",
  "GB18030",
  "Big5",
  "ISO-2022-JP",
  "ISO-2022-KR",
  "ISO-2022-CN",
]);

/** The bytes in `encoding`, or undefined when the platform does not read it or the bytes are not valid in it. */
function decodeAs(bytes: Uint8Array, encoding: string): string | undefined {
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Most non-ASCII characters are CJK ideographs, kana or Hangul, and none is half-width katakana (a misreading's mark). */
function looksCjk(text: string): boolean {
  let cjk = 0;
  let other = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code < 0x80) continue;
    if (code >= 0xff61 && code <= 0xff9f) return false;
    if ((code >= 0x3040 && code <= 0x9fff) || (code >= 0xac00 && code <= 0xd7af) || (code >= 0xff01 && code <= 0xff5e))
      cjk++;
    else other++;
  }
  return cjk > 0 && cjk >= 4 * other;
}

const SNIFF_BYTES = 64 * 1024;

function bomEncoding(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}

/** Separators tried, in the order Papa Parse prefers them on a tie. */
const SEPARATORS = [",", "\t", ";", "|"];

/**
 * The text as one sheet. The separator is the one of SEPARATORS that splits
 * the first rows into the most consistent number of fields (Papa Parse's
 * guess; a tab for a tab-hinted file with tabs in it). Quotes are `"`,
 * doubled inside a field (RFC 4180).
 */
export function csvSheet(
  text: string,
  name: string,
  options: { tabHinted: boolean },
  counter: CellCounter,
): { sheet: SheetCells; separator: string } {
  const firstLine = text.slice(0, 4096);
  const delimiter = options.tabHinted && firstLine.includes("\t") ? "\t" : undefined;
  const sheet: SheetCells = { name, cells: new Map(), merges: [] };
  let row = 0;
  let separator = delimiter ?? ",";
  let excess: Error | undefined;
  Papa.parse<string[]>(text, {
    delimiter,
    delimitersToGuess: SEPARATORS,
    quoteChar: '"',
    skipEmptyLines: "greedy",
    step: (result, parser) => {
      if (excess) return;
      separator = result.meta.delimiter;
      try {
        result.data.forEach((value, column) => counter.put(sheet, row, column, value.trim()));
      } catch (error) {
        // Papa Parse would swallow a throw from here: kept, and thrown once it has stopped.
        excess = error instanceof Error ? error : new Error(String(error));
        parser.abort();
        return;
      }
      row++;
    },
  });
  if (excess) throw excess;
  return { sheet, separator };
}
