/**
 * Where the rows of an HTML table block are, so the structure tier can split
 * it between rows as it splits a GFM table. Extraction writes a table as HTML
 * when a cell spans columns or rows (GFM has no way to say so), one element
 * per line and no blank line inside, so the table is one CommonMark HTML
 * block:
 *
 *     <table>
 *     <thead>
 *     <tr><th>Region</th><th colspan="2">Revenue</th></tr>
 *     </thead>
 *     <tbody>
 *     <tr><td>North</td><td>120.4</td><td>131.9</td></tr>
 *     </tbody>
 *     </table>
 *
 * Rows are found by their tags, not by lines, so a table written by hand
 * with a row over several lines is read too. Only a block that is one table
 * and nothing else is read as one: text or another element after
 * `</table>`, or a table nested in a cell, and the block stays HTML (prose).
 */

/** An HTML table block's parts, as offsets in the text. */
interface HtmlTableParts {
  /** Body rows, each from its `<tr` to the end of its `</tr>` (or to the last non-blank character before the next row). */
  rows: Array<[number, number]>;
}

// Only the tags that give a table its shape; cells and their content are read by no one here.
const SHAPE_TAG = /<(\/?)(table|thead|tbody|tfoot|tr)(?=[\s>/])[^>]*>/gi;

/** The parts of the HTML block [start, end) if it is a single `<table>`, else undefined. */
export function htmlTableParts(text: string, start: number, end: number): HtmlTableParts | undefined {
  const source = text.slice(start, end);
  if (!/^<table[\s>]/i.test(source) || !/<\/table>\s*$/i.test(source)) return undefined;
  const rows: Array<[number, number]> = [];
  let tables = 0;
  let inHead = false;
  let rowStart = -1;
  const closeRow = (at: number) => {
    if (rowStart >= 0) rows.push([start + rowStart, start + at]);
    rowStart = -1;
  };
  SHAPE_TAG.lastIndex = 0;
  for (let m = SHAPE_TAG.exec(source); m; m = SHAPE_TAG.exec(source)) {
    const closing = m[1] === "/";
    const name = m[2]!.toLowerCase();
    const tagEnd = m.index + m[0].length;
    // A row whose `</tr>` was left out (HTML allows it) ends at the last text before the next shape tag.
    const before = source.slice(0, m.index).trimEnd().length;
    if (name === "table") {
      if (!closing && ++tables > 1) return undefined;
      if (closing) {
        closeRow(before);
        // Anything after the first `</table>` but whitespace: not one table.
        if (source.slice(tagEnd).trim() !== "") return undefined;
      }
    } else if (name === "thead") {
      inHead = !closing;
    } else if (name === "tbody" || name === "tfoot") {
      inHead = false;
      closeRow(before);
    } else if (name === "tr") {
      if (closing) {
        if (rowStart >= 0) closeRow(tagEnd);
      } else {
        closeRow(before);
        if (!inHead) rowStart = m.index;
      }
    }
  }
  return { rows };
}
