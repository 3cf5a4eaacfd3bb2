/** UTF-8 without TextEncoder's allocations: into a caller's buffer, from a range of a string. */

/** Set by `writeUtf8` when it wrote U+FFFD for a lone surrogate. */
let wroteLoneSurrogate = false;

/** UTF-8 of `text[start, end)` into `out` at `at` (room for 3 bytes per code unit needed); returns the end. */
export function writeUtf8(text: string, start: number, end: number, out: Uint8Array, at: number): number {
  wroteLoneSurrogate = false;
  for (let i = start; i < end; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      out[at++] = c;
      continue;
    }
    if (c < 0x800) {
      out[at++] = 0xc0 | (c >> 6);
      out[at++] = 0x80 | (c & 63);
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < end ? text.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        c = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
        i++;
        out[at++] = 0xf0 | (c >> 18);
        out[at++] = 0x80 | ((c >> 12) & 63);
        out[at++] = 0x80 | ((c >> 6) & 63);
        out[at++] = 0x80 | (c & 63);
        continue;
      }
      c = 0xfffd; // as TextEncoder writes a lone surrogate
      wroteLoneSurrogate = true;
    }
    out[at++] = 0xe0 | (c >> 12);
    out[at++] = 0x80 | ((c >> 6) & 63);
    out[at++] = 0x80 | (c & 63);
  }
  return at;
}

/** Whether the last `writeUtf8` met a lone surrogate (gpt-tokenizer then never finds the piece as a whole token). */
export const lastWriteHadLoneSurrogate = () => wroteLoneSurrogate;
