import { failures } from "@/lib/extract/failures";
import type { OfficeArchive } from "@/lib/extract/office/archive";
import type { ChartData } from "@/lib/extract/office/chart";
import type { Section } from "@/lib/extract/office/sections";
import { type PlacedBlock, type SlideContent, slideMarkdown } from "@/lib/extract/office/slide-markdown";
import {
  attr,
  childElements,
  type ElementBudget,
  findAll,
  findFirst,
  parseXml,
  textOf,
  type XmlElement,
} from "@/lib/extract/xml";
import { meaningfulAlt } from "@/lib/extract/alt-text";

/**
 * ODP (OpenDocument presentation) → one section per slide (`draw:page`, in
 * document order), from content.xml, read by hand for the reasons PPTX is
 * (pptx.ts). The frame of class "title" is the heading; frames, shapes with
 * text and tables follow top to bottom, then left to right (`svg:x`/`svg:y`;
 * a group's shapes carry page coordinates already); lists keep their
 * nesting; speaker notes (`presentation:notes`) follow under "## Notes" when
 * asked for. A chart (an embedded object whose content.xml holds
 * `chart:chart`) becomes the table of data ODF stores inside it; a picture
 * its alt text (`svg:desc`, else `svg:title`).
 */
export function readOdp(archive: OfficeArchive, budget: ElementBudget, options: { includeNotes: boolean }): Section[] {
  const xml = archive.text("content.xml");
  if (xml === undefined) throw failures.corruptedOffice("presentation");
  const presentation = findFirst(parseXml(xml, budget), "presentation");
  if (!presentation) throw failures.corruptedOffice("presentation");
  const pages = childElements(presentation, "page");
  if (pages.length === 0) throw failures.emptyDocument();
  const chartOf = (href: string): ChartData | undefined => {
    const objectXml = archive.text(`${href.replace(/^\.\//, "").replace(/\/$/, "")}/content.xml`);
    return objectXml === undefined ? undefined : odfChart(parseXml(objectXml, budget));
  };
  return pages.map((page, i) => {
    const content: SlideContent = { blocks: [] };
    walk(page, content, chartOf);
    if (options.includeNotes) {
      const notes = firstChildNamed(page, "notes");
      if (notes) {
        // The notes frame only: the notes page also holds the slide's image and a page number.
        const frames = findAll(notes, "frame").filter((frame) => attr(frame, "presentation:class") === "notes");
        const texts = frames.flatMap((frame) =>
          findAll(frame, "text-box").flatMap((box) => blockParagraphs(box, 0).map((p) => p.text.trim())),
        );
        content.notes = texts.filter(Boolean).join("\n\n");
      }
    }
    return { number: i + 1, markdown: slideMarkdown(i + 1, content) };
  });
}

const firstChildNamed = (element: XmlElement, name: string) => childElements(element, name)[0];

function walk(container: XmlElement, content: SlideContent, chartOf: (href: string) => ChartData | undefined): void {
  for (const shape of childElements(container)) {
    switch (shape.name) {
      case "g":
        walk(shape, content, chartOf);
        break;
      case "frame":
      case "custom-shape":
      case "rect":
      case "ellipse": {
        const at = { x: length(attr(shape, "svg:x")), y: length(attr(shape, "svg:y")) };
        const kind = attr(shape, "presentation:class");
        if (kind === "page-number" || kind === "footer" || kind === "date-time" || kind === "header") break;
        const object = firstChildNamed(shape, "object");
        const chart = object && chartOf(attr(object, "xlink:href") ?? "");
        if (chart) {
          content.blocks.push({ ...at, kind: "chart", ...chart });
          break;
        }
        const table = firstChildNamed(shape, "table");
        if (table) {
          const rows = tableRows(table);
          if (rows.some((r) => r.some((v) => v.trim() !== ""))) content.blocks.push({ ...at, kind: "table", rows });
          break;
        }
        // A picture (a table's or object's frame also holds one: their rendering for readers without them).
        if (firstChildNamed(shape, "image") && !firstChildNamed(shape, "text-box")) {
          const described = firstChildNamed(shape, "desc") ?? firstChildNamed(shape, "title");
          const alt = meaningfulAlt(described && textOf(described));
          if (alt) content.blocks.push({ ...at, kind: "image", alt });
          break;
        }
        const box = firstChildNamed(shape, "text-box") ?? shape;
        // A placeholder still showing its prompt ("Click to add text") is empty.
        if (attr(shape, "presentation:placeholder") === "true") break;
        const paragraphs = blockParagraphs(box, 0).filter((p) => p.text.trim() !== "");
        if (paragraphs.length === 0) break;
        if (kind === "title" && content.title === undefined) {
          content.title = paragraphs.map((p) => p.text.trim()).join(" ");
          break;
        }
        content.blocks.push({ ...at, kind: "text", paragraphs } satisfies PlacedBlock);
        break;
      }
    }
  }
}

/** Paragraphs of a text box in order: list items as bullets at their nesting level. */
function blockParagraphs(
  box: XmlElement,
  level: number,
  bullet = false,
): { text: string; level: number; bullet: boolean }[] {
  const out: { text: string; level: number; bullet: boolean }[] = [];
  for (const child of childElements(box)) {
    if (child.name === "p" || child.name === "h") out.push({ text: inlineText(child), level, bullet });
    else if (child.name === "list")
      for (const item of childElements(child))
        if (item.name === "list-item" || item.name === "list-header")
          out.push(...blockParagraphs(item, bullet ? level + 1 : level, true));
  }
  return out;
}

/** A paragraph's text: spans and links flattened, `text:s` as spaces, tabs and line breaks as spaces. */
function inlineText(element: XmlElement): string {
  let text = "";
  for (const child of element.children) {
    if (typeof child === "string") text += child;
    else if (child.name === "s") text += " ".repeat(Math.min(Number(attr(child, "text:c") ?? 1) || 1, 100));
    else if (child.name === "tab" || child.name === "line-break") text += " ";
    else if (child.name !== "note" && child.name !== "annotation") text += inlineText(child);
  }
  return text;
}

function tableRows(table: XmlElement): string[][] {
  const rows: string[][] = [];
  for (const row of findAll(table, "table-row")) {
    const cells: string[] = [];
    for (const cell of childElements(row)) {
      if (cell.name !== "table-cell" && cell.name !== "covered-table-cell") continue;
      const text = blockParagraphs(cell, 0)
        .map((p) => p.text.trim())
        .filter(Boolean)
        .join(" ");
      // A covered cell is part of a merge: it repeats the value to its left, as sheets do.
      cells.push(cell.name === "covered-table-cell" ? (cells.at(-1) ?? "") : text);
    }
    rows.push(cells);
  }
  return rows;
}

const UNITS: Record<string, number> = { in: 1, cm: 1 / 2.54, mm: 1 / 25.4, pt: 1 / 72, pc: 1 / 6, px: 1 / 96 };

/** An ODF length in inches ("1.5cm" → 0.59); 0 when absent or unreadable. */
function length(value: string | undefined): number {
  const match = value ? /^(-?[\d.]+)\s*(in|cm|mm|pt|pc|px)?$/.exec(value.trim()) : null;
  if (!match) return 0;
  return Number(match[1]) * (UNITS[match[2] ?? "in"] ?? 1);
}

/** An embedded chart's own data table (ODF keeps it in the chart's content.xml) and its title. */
function odfChart(objectContent: XmlElement): ChartData | undefined {
  // office:chart (the body's kind) holds chart:chart: both are "chart" by their local names.
  const body = findFirst(objectContent, "chart");
  const chart = body && (firstChildNamed(body, "chart") ?? body);
  const table = chart && findFirst(chart, "table");
  if (!table) return undefined;
  const rows = tableRows(table).filter((row) => row.some((v) => v.trim() !== ""));
  if (rows.length === 0) return undefined;
  const title = firstChildNamed(chart, "title");
  const titleText = title
    ? blockParagraphs(title, 0)
        .map((p) => p.text.trim())
        .join(" ")
        .trim()
    : "";
  return { title: titleText || undefined, rows };
}
