import pLimit from "p-limit";
import { mainThreadTurn } from "@/lib/ground/main-thread-turns";
import { failures } from "@/lib/extract/failures";

/**
 * Bytes that claim to be text → a string. UTF-8 (with or without a BOM) is
 * the default; UTF-16 is only believed when a BOM says so, because without
 * one it cannot be told from binary.
 */
export async function decodeText(bytes: Uint8Array): Promise<string> {
  const utf16 = utf16Bom(bytes);
  if (utf16) {
    const text = await decodeStrict(bytes, utf16);
    if (text.includes("\u0000")) throw failures.binaryText();
    return normalizeNewlines(text);
  }
  // Checked before decoding: NULs are valid UTF-8, but real text never has them, and binary nearly always does.
  if (bytes.includes(0)) throw failures.binaryText();
  return normalizeNewlines(await decodeStrict(bytes, "utf-8"));
}

/** The text at the start of `bytes` (at most `chars` characters, replacement characters for invalid bytes): enough to sniff a format. */
export function decodeHead(bytes: Uint8Array, chars: number): string {
  return new TextDecoder(utf16Bom(bytes) ?? "utf-8").decode(bytes.subarray(0, 4 * chars)).slice(0, chars);
}

function utf16Bom(bytes: Uint8Array): "utf-16le" | "utf-16be" | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}

/**
 * Decoded this many bytes at a time, each on a main-thread turn of its own
 * (lib/ground/main-thread-turns.ts): 3 MB take ~5 ms, and a few uploads decoded back to
 * back would hold the event loop for tens of milliseconds.
 */
const DECODE_STEP_BYTES = 256 * 1024;

/**
 * Uploads of more than one step are decoded one at a time, in the order they
 * arrive: taking turns step by step, every large upload admitted at once
 * would hold its half-decoded parts at the same time (up to three times its
 * size each). Small ones are never held up.
 */
const largeDecodes = pLimit(1);

type Encoding = "utf-8" | "utf-16le" | "utf-16be";

function decodeStrict(bytes: Uint8Array, encoding: Encoding): Promise<string> {
  return bytes.length <= DECODE_STEP_BYTES
    ? decodeSteps(bytes, encoding)
    : largeDecodes(() => decodeSteps(bytes, encoding));
}

async function decodeSteps(bytes: Uint8Array, encoding: Encoding): Promise<string> {
  // The decoder drops a leading BOM of its own encoding; in streaming mode it carries a character split between steps.
  const decoder = new TextDecoder(encoding, { fatal: true });
  try {
    const parts: string[] = [];
    for (let at = 0; at < bytes.length; at += DECODE_STEP_BYTES) {
      if (at > 0) await mainThreadTurn();
      const end = at + DECODE_STEP_BYTES;
      parts.push(decoder.decode(bytes.subarray(at, end), { stream: end < bytes.length }));
    }
    return parts.join("");
  } catch {
    throw failures.invalidEncoding(
      encoding === "utf-8" ? "UTF-8" : encoding === "utf-16le" ? "UTF-16 (little-endian)" : "UTF-16 (big-endian)",
    );
  }
}

export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

export function isBlank(text: string): boolean {
  return text.trim() === "";
}
