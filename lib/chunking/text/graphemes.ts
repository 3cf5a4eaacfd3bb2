/** Grapheme cluster boundaries, fast: plain characters need no Intl.Segmenter, and long runs are segmented in blocks. */

import { isHighSurrogate, isLowSurrogate } from "./surrogates";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * Characters that are never part of a multi-character grapheme cluster except
 * as CR LF: no combining or spacing marks, joiners, prepends, regional
 * indicators, Hangul jamo or surrogates. Between two of these there is always
 * a cluster boundary, which lets most texts skip Intl.Segmenter entirely.
 */
function isPlain(c: number): boolean {
  if (c < 0x300) return true;
  if (c < 0x3000)
    return (
      (c >= 0x370 && c < 0x483) ||
      (c >= 0x48a && c < 0x530) ||
      (c >= 0x1e00 && c < 0x1f00) ||
      (c >= 0x2010 && c < 0x2028) ||
      (c >= 0x2030 && c < 0x205f) ||
      (c >= 0x2100 && c < 0x27c0)
    );
  return (
    c < 0x302a ||
    (c >= 0x3041 && c < 0x3097) ||
    (c >= 0x30a1 && c < 0x3100) ||
    (c >= 0x3400 && c < 0x4dc0) ||
    (c >= 0x4e00 && c < 0xa000) ||
    (c >= 0xac00 && c < 0xd7a4) ||
    (c >= 0xff01 && c < 0xff5f)
  );
}

export function isGraphemeBoundary(text: string, p: number): boolean {
  if (p <= 0 || p >= text.length) return true;
  const x = text.charCodeAt(p - 1);
  const y = text.charCodeAt(p);
  if (isPlain(x) && isPlain(y)) return x !== 13 || y !== 10;
  if (isLowSurrogate(y) && isHighSurrogate(x)) return false;
  // Segment a window that starts at a known boundary: rules such as
  // regional-indicator pairing and emoji ZWJ sequences depend on what precedes.
  let w = p - 1;
  const floor = Math.max(0, p - 256);
  while (
    w > floor &&
    !(isPlain(text.charCodeAt(w - 1)) && isPlain(text.charCodeAt(w)) && text.charCodeAt(w - 1) !== 13)
  )
    w--;
  if (w > 0 && isLowSurrogate(text.charCodeAt(w))) w--;
  for (const { index } of segmenter.segment(text.slice(w, Math.min(text.length, p + 8)))) {
    if (w + index >= p) return w + index === p;
  }
  return false;
}

export function nextGraphemeBoundary(text: string, p: number): number {
  while (!isGraphemeBoundary(text, p)) p++;
  return p;
}

export function previousGraphemeBoundary(text: string, p: number): number {
  while (!isGraphemeBoundary(text, p)) p--;
  return p;
}

/**
 * Appends the cluster starts inside (start, end), `start` being a cluster
 * start. Runs of plain characters need no segmenter; the rest is segmented in
 * blocks, because Intl.Segmenter is quadratic on long strings in this Node
 * (100 KB takes 20 s) and each block resumes at a cluster start found by the
 * one before.
 */
export function graphemeStarts(text: string, start: number, end: number, out: number[]): void {
  let known = start; // a cluster start
  let block = 1024;
  while (known < end) {
    let i = known;
    while (i + 1 < end) {
      const x = text.charCodeAt(i);
      const y = text.charCodeAt(i + 1);
      if (!isPlain(x) || !isPlain(y)) break;
      i++;
      if (x !== 13 || y !== 10) out.push((known = i));
    }
    if (i + 1 >= end) return;
    let stop = Math.min(end, known + block);
    // A block must end on a whole code point: a lone half would look like a
    // cluster start to the segmenter.
    if (stop < end && isHighSurrogate(text.charCodeAt(stop - 1))) stop++;
    let last = known;
    for (const { index } of segmenter.segment(text.slice(known, stop))) if (index > 0) out.push((last = known + index));
    if (stop === end) return;
    if (last === known) {
      block *= 2; // one cluster longer than the block: look further
      continue;
    }
    // The block's last cluster may continue past `stop`, but it starts where the segmenter said.
    known = last;
    block = 1024;
  }
}
