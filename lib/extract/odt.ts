import { openArchive } from "@/lib/extract/archive";
import { failures } from "@/lib/extract/failures";
import { htmlToMarkdown } from "@/lib/extract/html";
import type { ExtractLimits } from "@/lib/extract/types";
import { withWorker } from "@/lib/extract/worker";
import {
  attrByLocalName as attribute,
  childElements,
  descendants,
  ElementBudget,
  firstChild,
  parseXml,
  type XmlElement,
  type XmlNode,
} from "@/lib/extract/xml";
import { meaningfulAlt } from "@/lib/extract/alt-text";

/**
 * ODT → HTML → Markdown, like DOCX: headings (text:h and its outline level),
 * lists (numbered when their list style numbers them), tables (header rows,
 * spans), footnotes and endnotes (a numbered reference in place, the notes
 * listed at the end, as mammoth does for DOCX). content.xml comes through the
 * one zip reader and its budgets; its elements (and styles.xml's) are counted
 * against MARKUP_MAX_ELEMENTS as the tree is built.
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
  const budget = new ElementBudget(limits.markup.maxElements);
  const doc = parseXml(content, budget);
  const styles = archive.text("styles.xml");
  const html = new OdtHtml(numberedListStyles([doc, ...(styles ? [parseXml(styles, budget)] : [])])).document(doc);
  return withWorker({ timeoutMs: limits.timeoutMs, damaged: () => damaged() }, (worker) =>
    htmlToMarkdown(worker, html, limits.markup),
  );
}

/** The list styles whose first level numbers its items (others are bullets). */
function numberedListStyles(docs: XmlElement[]): Set<string> {
  const numbered = new Set<string>();
  for (const doc of docs)
    for (const style of descendants(doc, ["list-style"])) {
      const first = childElements(style)[0];
      const name = attribute(style, "name");
      if (name && first && first.name === "list-level-style-number") numbered.add(name);
    }
  return numbered;
}

class OdtHtml {
  private notes: string[] = [];

  constructor(private readonly numbered: Set<string>) {}

  document(doc: XmlElement): string {
    const root = childElements(doc)[0];
    const body = root && firstChild(root, "body") && firstChild(firstChild(root, "body")!, "text");
    if (!body) throw damaged("it has no text body");
    const html = this.children(body, undefined);
    if (this.notes.length === 0) return html;
    const items = this.notes.map((note, i) => `<li id="note-${i + 1}">${note}</li>`).join("");
    return `${html}<hr><ol>${items}</ol>`;
  }

  private children(parent: XmlElement, listStyle: string | undefined): string {
    return parent.children.map((child) => this.node(child, listStyle)).join("");
  }

  private node(node: XmlNode, listStyle: string | undefined): string {
    if (typeof node === "string") return escapeHtml(node);
    const element = node;
    const name = element.name;
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
        // Its own title and text box only: a captioned image is a frame inside the text box of another frame.
        const described = [...childElements(element, "title"), ...childElements(element, "desc")];
        const alt = described.map((e) => meaningfulAlt(this.children(e, listStyle))).find((t) => t !== undefined);
        const text = childElements(element, "text-box").map((box) => this.children(box, listStyle));
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

  private table(table: XmlElement): string {
    const rows: string[] = [];
    const head: string[] = [];
    const visit = (parent: XmlElement, inHead: boolean) => {
      for (const element of childElements(parent)) {
        const name = element.name;
        if (name === "table-row") (inHead ? head : rows).push(this.row(element, inHead));
        else if (name === "table-header-rows") visit(element, true);
        else if (name === "table-rows" || name === "table-row-group") visit(element, inHead);
      }
    };
    visit(table, false);
    const thead = head.length ? `<thead>${head.join("")}</thead>` : "";
    return `<table>${thead}<tbody>${rows.join("")}</tbody></table>`;
  }

  private row(row: XmlElement, inHead: boolean): string {
    const cell = inHead ? "th" : "td";
    const cells = childElements(row, "table-cell").map((c) => {
      const colspan = Number(attribute(c, "number-columns-spanned") ?? 1);
      const rowspan = Number(attribute(c, "number-rows-spanned") ?? 1);
      const spans = `${colspan > 1 ? ` colspan="${colspan}"` : ""}${rowspan > 1 ? ` rowspan="${rowspan}"` : ""}`;
      return `<${cell}${spans}>${this.children(c, undefined)}</${cell}>`;
    });
    return `<tr>${cells.join("")}</tr>`;
  }

  private note(note: XmlElement): string {
    const body = descendants(note, ["note-body"])[0];
    if (!body) return "";
    this.notes.push(this.children(body, undefined));
    const n = this.notes.length;
    return `<sup><a href="#note-${n}">[${n}]</a></sup>`;
  }
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
