import { type Element, isTag, isText, type Node } from "domhandler";
import { openArchive } from "@/lib/extract/archive";
import { failures } from "@/lib/extract/failures";
import { htmlToMarkdown } from "@/lib/extract/html";
import type { ExtractLimits } from "@/lib/extract/types";
import { withWorker } from "@/lib/extract/worker";
import { attribute, elements, localName, parseXml, type Document } from "@/lib/extract/xml-tree";

/**
 * ODT → HTML → Markdown, like DOCX: headings (text:h and its outline level),
 * lists (numbered when their list style numbers them), tables (header rows,
 * spans), footnotes and endnotes (a numbered reference in place, the notes
 * listed at the end, as mammoth does for DOCX). content.xml comes through the
 * one zip reader and its budgets.
 *
 * Written here: no maintained JS package reads ODT into structure (odt2html
 * and officeparser give flat text); the format is one XML part walked below.
 */

const isMarkup = (name: string) => /\.(xml|rdf)$/i.test(name);
const damaged = (detail?: string) => failures.corruptedDocument("This OpenDocument text", detail);

/** Elements whose text is not the document's: tracked deletions, comments, generated indexes, field declarations. */
const SKIPPED = new Set([
  "tracked-changes",
  "annotation",
  "annotation-end",
  "table-of-content",
  "alphabetical-index",
  "illustration-index",
  "bibliography",
  "sequence-decls",
  "variable-decls",
  "user-field-decls",
  "note-citation",
  "forms",
]);

export async function extractOdt(
  bytes: Uint8Array,
  limits: Pick<ExtractLimits, "maxUnpackedBytes" | "markup" | "timeoutMs">,
): Promise<string> {
  const archive = await openArchive(bytes, limits, { isMarkup, damaged: () => damaged() });
  const content = archive.text("content.xml");
  if (content === undefined) throw damaged("content.xml is missing");
  const doc = parseXml(content);
  const styles = archive.text("styles.xml");
  const html = new OdtHtml(numberedListStyles([doc, ...(styles ? [parseXml(styles)] : [])])).document(doc);
  return withWorker({ timeoutMs: limits.timeoutMs, damaged: () => damaged() }, (worker) =>
    htmlToMarkdown(worker, html, limits.markup),
  );
}

/** The list styles whose first level numbers its items (others are bullets). */
function numberedListStyles(docs: Document[]): Set<string> {
  const numbered = new Set<string>();
  for (const doc of docs)
    for (const style of elements(doc, "list-style")) {
      const first = style.children.find(isTag);
      const name = attribute(style, "name");
      if (name && first && localName(first) === "list-level-style-number") numbered.add(name);
    }
  return numbered;
}

class OdtHtml {
  private notes: string[] = [];

  constructor(private readonly numbered: Set<string>) {}

  document(doc: Document): string {
    const body = elements(doc, "text")
      .filter((e) => e.parent && (e.parent as Element).name !== undefined && localName(e.parent as Element) === "body")
      .at(0);
    if (!body) throw damaged("it has no text body");
    const html = this.children(body, undefined);
    if (this.notes.length === 0) return html;
    const items = this.notes.map((note, i) => `<li id="note-${i + 1}">${note}</li>`).join("");
    return `${html}<hr><ol>${items}</ol>`;
  }

  private children(parent: Element, listStyle: string | undefined): string {
    return parent.children.map((child) => this.node(child, listStyle)).join("");
  }

  private node(node: Node, listStyle: string | undefined): string {
    if (isText(node)) return escapeHtml(node.data);
    if (!isTag(node)) return "";
    const element = node;
    const name = localName(element);
    if (SKIPPED.has(name)) return "";
    const inner = () => this.children(element, listStyle);
    switch (name) {
      case "h": {
        const level = Math.min(6, Math.max(1, Number(attribute(element, "outline-level") ?? 1) || 1));
        return `<h${level}>${inner()}</h${level}>`;
      }
      case "p":
        return `<p>${inner()}</p>`;
      case "list": {
        const style = attribute(element, "style-name") ?? listStyle;
        const tag = style && this.numbered.has(style) ? "ol" : "ul";
        return `<${tag}>${this.children(element, style)}</${tag}>`;
      }
      case "list-item":
      case "list-header":
        return `<li>${inner()}</li>`;
      case "table":
        return this.table(element);
      case "note":
        return this.note(element);
      case "a": {
        const href = attribute(element, "href");
        return href ? `<a href="${escapeHtml(href)}">${inner()}</a>` : inner();
      }
      case "s":
        return " ".repeat(Math.min(100, Number(attribute(element, "c") ?? 1) || 1));
      case "tab":
        return "\t";
      case "line-break":
        return "<br>";
      case "frame": {
        const title = elements(element, "title", "desc").map((e) => this.children(e, listStyle).trim());
        const alt = title.find((t) => t !== "");
        const text = elements(element, "text-box").map((box) => this.children(box, listStyle));
        return `${alt ? `<em>(Image: ${alt})</em>` : ""}${text.join("")}`;
      }
      case "title":
      case "desc":
        return "";
      default:
        // Spans, sections, bookmarks, fields: their content in place.
        return inner();
    }
  }

  private table(table: Element): string {
    const rows: string[] = [];
    const head: string[] = [];
    const visit = (parent: Element, inHead: boolean) => {
      for (const child of parent.children) {
        if (!isTag(child)) continue;
        const element = child;
        const name = localName(element);
        if (name === "table-row") (inHead ? head : rows).push(this.row(element, inHead));
        else if (name === "table-header-rows") visit(element, true);
        else if (name === "table-rows" || name === "table-row-group") visit(element, inHead);
      }
    };
    visit(table, false);
    const thead = head.length ? `<thead>${head.join("")}</thead>` : "";
    return `<table>${thead}<tbody>${rows.join("")}</tbody></table>`;
  }

  private row(row: Element, inHead: boolean): string {
    const cell = inHead ? "th" : "td";
    const cells = row.children
      .filter((c): c is Element => isTag(c) && localName(c) === "table-cell")
      .map((c) => {
        const colspan = Number(attribute(c, "number-columns-spanned") ?? 1);
        const rowspan = Number(attribute(c, "number-rows-spanned") ?? 1);
        const spans = `${colspan > 1 ? ` colspan="${colspan}"` : ""}${rowspan > 1 ? ` rowspan="${rowspan}"` : ""}`;
        return `<${cell}${spans}>${this.children(c, undefined)}</${cell}>`;
      });
    return `<tr>${cells.join("")}</tr>`;
  }

  private note(note: Element): string {
    const body = elements(note, "note-body")[0];
    if (!body) return "";
    this.notes.push(this.children(body, undefined));
    const n = this.notes.length;
    return `<sup><a href="#note-${n}">[${n}]</a></sup>`;
  }
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
