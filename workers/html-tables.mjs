// Tables in HTML → Markdown (HTML pages, and the HTML mammoth makes of DOCX),
// as a translator for node-html-markdown: the extract worker installs it on
// its converter. Plain JavaScript beside the worker, which loads no TypeScript
// (lib/extract/worker.ts says why); tests/extract.test.ts runs it.
//
// node-html-markdown writes every table as a GFM pipe table. Where that is
// true to the table it still does: no cell spans and every cell is one line.
// Otherwise its pipe table says something else than the document:
// - colspan and rowspan are dropped, so the cells after a merged one move
//   left, under the wrong column (a DOCX vMerge, a gridSpan);
// - a cell's paragraphs or list items are run together with no space
//   ("Only at low tide.Two people per net.", "RingsPliers").
// GFM has no way to say a cell spans, so such a table is written as HTML in
// the shape the PDF extraction uses too, which the structure tier splits
// between rows under a repeated head (lib/chunking/structure/html-table.ts): one element
// per line and no blank line, so it is one CommonMark HTML block.
//
//     <table>
//     <thead>
//     <tr><th>Region</th><th colspan="2">Revenue (USD m)</th></tr>
//     </thead>
//     <tbody>
//     <tr><td>North</td><td>120.4</td><td>131.9</td></tr>
//     </tbody>
//     </table>
//
// Written by hand because no library here writes it: node-html-markdown's
// hooks give the table's parsed node and take a string; what to read off the
// node (rows, spans, a cell's lines) is below.
//
// Cell text is plain text, HTML-escaped (inline Markdown would not be read
// inside an HTML block); a cell's paragraphs and list items are joined with
// `<br>`: a line break is what separates them in the document, and a space
// would run "Rings" and "Pliers" into one phrase where the reader and the
// embedding model should see two items.

/** Elements that end a line of text inside a cell. */
const BREAKS_LINE = new Set([
  "P",
  "DIV",
  "BR",
  "LI",
  "UL",
  "OL",
  "H1",
  "H2",
  "H3",
  "H4",
  "H5",
  "H6",
  "PRE",
  "BLOCKQUOTE",
  "DL",
  "DT",
  "DD",
  "TR",
  "TABLE",
  "HR",
]);

const ELEMENT = 1;
const TEXT = 3;

/** HTML's own caps on spans (colspan 1000, rowspan 65534); a bad value is 1, as browsers read it. */
function span(cell, name, max) {
  const value = Number.parseInt(cell.getAttribute(name) ?? "1", 10);
  return Number.isFinite(value) && value >= 1 ? Math.min(value, max) : 1;
}

/** The text lines of a cell: its paragraphs, list items ("- " or "1. " before each) and `<br>`-separated lines. */
function cellLines(cell) {
  const lines = [];
  let line = "";
  const endLine = () => {
    const text = line.replace(/\s+/g, " ").trim();
    if (text !== "") lines.push(text);
    line = "";
  };
  const visit = (node) => {
    for (const child of node.childNodes) {
      if (child.nodeType === TEXT) line += child.text;
      else if (child.nodeType === ELEMENT) {
        const tag = child.tagName;
        if (!BREAKS_LINE.has(tag)) {
          visit(child);
          continue;
        }
        endLine();
        if (tag === "LI") {
          const list = child.parentNode;
          const number = list?.tagName === "OL" ? list.childNodes.filter((n) => n.tagName === "LI").indexOf(child) : -1;
          line = number >= 0 ? `${number + 1}. ` : "- ";
        }
        visit(child);
        endLine();
      }
    }
  };
  visit(cell);
  endLine();
  return lines;
}

/** A table's rows (in `<thead>`, `<tbody>`, `<tfoot>` or directly in the table), not those of tables nested in its cells. */
function tableRows(table) {
  const rows = [];
  const visit = (node, head) => {
    for (const child of node.childNodes) {
      if (child.nodeType !== ELEMENT) continue;
      if (child.tagName === "TR") rows.push({ node: child, head });
      else if (child.tagName === "THEAD") visit(child, true);
      else if (child.tagName === "TBODY" || child.tagName === "TFOOT") visit(child, false);
    }
  };
  visit(table, false);
  return rows.map(({ node, head }) => ({
    head,
    cells: node.childNodes
      .filter((c) => c.nodeType === ELEMENT && (c.tagName === "TD" || c.tagName === "TH"))
      .map((c) => ({
        tag: c.tagName.toLowerCase(),
        colspan: span(c, "colspan", 1000),
        rowspan: span(c, "rowspan", 65534),
        lines: cellLines(c),
      })),
  }));
}

const escape = (text) => text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

/**
 * How many leading rows are the head: the `<thead>`'s, else the leading rows
 * of `<th>` cells only, else the first row (the pipe table this replaces
 * makes its first row the header; DOCX marks a header row only when it
 * repeats on each page). Rows that a head cell's rowspan reaches are head too.
 */
function headRows(rows) {
  let count = rows.findIndex((row) => !row.head);
  if (count < 0) count = rows.length;
  if (count === 0) {
    while (count < rows.length && rows[count].cells.length > 0 && rows[count].cells.every((c) => c.tag === "th"))
      count++;
  }
  if (count === 0) count = 1;
  for (let k = 0; k < count && count < rows.length; k++)
    for (const cell of rows[k].cells) count = Math.min(rows.length, Math.max(count, k + cell.rowspan));
  return count;
}

/** The table as one HTML block (see the module comment). */
function htmlTable(rows, caption) {
  const head = headRows(rows);
  const row = (cells, tag) =>
    `<tr>${cells
      .map((c) => {
        const name = tag ?? c.tag;
        const spans = `${c.colspan > 1 ? ` colspan="${c.colspan}"` : ""}${c.rowspan > 1 ? ` rowspan="${c.rowspan}"` : ""}`;
        return `<${name}${spans}>${c.lines.map(escape).join("<br>")}</${name}>`;
      })
      .join("")}</tr>`;
  const lines = ["<table>"];
  if (caption) lines.push(`<caption>${escape(caption)}</caption>`);
  lines.push("<thead>", ...rows.slice(0, head).map((r) => row(r.cells, "th")), "</thead>");
  if (head < rows.length) lines.push("<tbody>", ...rows.slice(head).map((r) => row(r.cells)), "</tbody>");
  lines.push("</table>");
  return lines.join("\n");
}

/**
 * Replaces the converter's table translator: the library's own pipe table
 * when it is true to the table, else the HTML block above.
 */
export function keepTables(converter) {
  // The library escapes only the first "|" in a cell (String.replace with a string): a second one splits the
  // cell in two and shifts the rest of the row. Its cell translator, with every "|" escaped.
  for (const collection of [converter.tableTranslators, converter.tableRowTranslators]) {
    const cell = collection.get("td");
    collection.set("th,td", (context) => ({
      ...cell(context),
      postprocess: ({ content }) =>
        content
          .replace(/\|/g, "\\|")
          .replace(/(?:\r?\n)+/g, " ")
          .trim(),
    }));
  }
  const pipeTable = converter.translators.get("table");
  converter.translators.set("table", (context) => {
    const rows = tableRows(context.node);
    const spans = rows.some((r) => r.cells.some((c) => c.colspan > 1 || c.rowspan > 1));
    const lines = rows.some((r) => r.cells.some((c) => c.lines.length > 1));
    if (!spans && !lines) return { ...pipeTable.base, ...pipeTable(context) };
    const captionNode = context.node.childNodes.find((c) => c.nodeType === ELEMENT && c.tagName === "CAPTION");
    const caption = captionNode ? cellLines(captionNode).join(" ") : "";
    return { surroundingNewlines: 2, recurse: false, content: htmlTable(rows, caption) };
  });
}
