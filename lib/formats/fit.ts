/** Byte budgets for the stores that cap metadata sizes. Sizes are UTF-8 bytes, the unit the stores count in. */
import { previousGraphemeBoundary } from "@/lib/chunking/text/graphemes";

export const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8");

/** Bytes of a value once serialised, which is how it travels to the store and what its limits are measured on. */
export const jsonBytes = (value: unknown): number => utf8Bytes(JSON.stringify(value));

const ELLIPSIS = "…";
const ELLIPSIS_BYTES = 3;

/**
 * `text` if its UTF-8 form fits `maxBytes`; otherwise its longest prefix that
 * ends between grapheme clusters and, with "…" appended, fits ("" when not
 * even "…" does).
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  const budget = maxBytes - ELLIPSIS_BYTES;
  if (budget < 0) return "";
  // Walk code points to the byte budget (a pair of surrogates is 4 bytes), then back to a cluster start.
  let cut = 0;
  let used = 0;
  while (cut < text.length) {
    const c = text.codePointAt(cut)!;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (used + size > budget) break;
    used += size;
    cut += c < 0x10000 ? 1 : 2;
  }
  return text.slice(0, previousGraphemeBoundary(text, cut)) + ELLIPSIS;
}

/** Like `truncateUtf8`, measured on the JSON string (quotes and escapes included), which is what travels and what Pinecone counts. */
export function fitJsonString(value: string, maxJsonBytes: number): string {
  if (jsonBytes(value) <= maxJsonBytes) return value;
  let budget = maxJsonBytes - 2; // the quotes
  // Quotes, backslashes and control characters take more room escaped than in UTF-8: shrink by the overflow until it fits.
  while (budget >= ELLIPSIS_BYTES) {
    const cut = truncateUtf8(value, budget);
    const over = jsonBytes(cut) - maxJsonBytes;
    if (over <= 0) return cut;
    budget -= over;
  }
  return "";
}

/** The longest leading run of `items` that `fits` accepts; `fits` must accept every prefix of a run it accepts. */
function longestFittingPrefix<T>(items: readonly T[], fits: (prefix: readonly T[]) => boolean): T[] {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (fits(items.slice(0, mid))) lo = mid;
    else hi = mid - 1;
  }
  return items.slice(0, lo);
}

/** The JSON of the longest leading run of `items` whose JSON `fits` (kept: how many): a list of objects for a store that takes only strings. */
export function fittingJson<T>(items: readonly T[], fits: (json: string) => boolean): { json: string; kept: number } {
  const kept = longestFittingPrefix(items, (prefix) => fits(JSON.stringify(prefix)));
  return { json: JSON.stringify(kept), kept: kept.length };
}

/**
 * A list of strings whose JSON fits `maxBytes`: each string first shortened to
 * fit on its own, then as many leading strings as fit together. A heading
 * path keeps its outer levels this way, which still form a valid path.
 */
export function fitStrings(values: readonly string[], maxBytes: number): string[] {
  const shortened = values.map((value) => fitJsonString(value, maxBytes - 2)); // the brackets
  return longestFittingPrefix(shortened, (prefix) => prefix.every(Boolean) && jsonBytes(prefix) <= maxBytes);
}
