/**
 * A shorter stand-in for a Markdown document with the same block structure,
 * so that the parser (micromark, about half a megabyte a second here) reads
 * a fraction of the characters.
 *
 * CommonMark decides block structure from line starts, whole lines and a few
 * characters anywhere in a line (table pipes and escapes, the ends of HTML
 * blocks such as `-->` or `</script>`, backticks in a fence's info string);
 * all of them are ASCII punctuation, whitespace, digits or the names after
 * `<`, `</`, `<!` and `<![` (`<![CDATA[`). A run of letters, digits,
 * spaces and non-ASCII characters that starts with a letter at a word start
 * is none of those, so it is collapsed to its first character: lines keep
 * their indentation, markers and punctuation, and a line that held a letter
 * still holds one (so it cannot turn into a thematic break, a setext
 * underline, a table delimiter row or a closing fence).
 *
 * Only block positions are meaningful in the parse of a skeleton: inline
 * content is mangled. `originalOffset` maps its offsets back; tests compare
 * the block positions with a parse of the original document.
 */

const COLLAPSIBLE_RUN =
  /(?<![A-Za-z0-9\u0080-\uffff&\\])(?<!<)(?<!<\/)(?<!<!)(?<!<!\[)[A-Za-z\u0080-\uffff](?:[A-Za-z0-9 \u0080-\uffff]*[A-Za-z0-9\u0080-\uffff])?/g;

export interface Skeleton {
  text: string;
  /** `originalOffset[k]`: where skeleton offset k lies in the original; the last entry is the original's length. */
  originalOffset: Int32Array;
}

export function markdownSkeleton(original: string): Skeleton {
  const parts: string[] = [];
  const originalOffset = new Int32Array(original.length + 1);
  let k = 0;
  let copied = 0;
  COLLAPSIBLE_RUN.lastIndex = 0;
  for (let m = COLLAPSIBLE_RUN.exec(original); m !== null; m = COLLAPSIBLE_RUN.exec(original)) {
    const start = m.index;
    // Runs of one character gain nothing.
    if (m[0].length < 2) continue;
    for (let i = copied; i <= start; i++) originalOffset[k++] = i;
    parts.push(original.slice(copied, start + 1));
    copied = start + m[0].length;
  }
  for (let i = copied; i < original.length; i++) originalOffset[k++] = i;
  parts.push(original.slice(copied));
  originalOffset[k] = original.length;
  return { text: parts.join(""), originalOffset: originalOffset.subarray(0, k + 1) };
}
