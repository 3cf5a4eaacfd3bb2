import { failures } from "@/lib/extract/failures";
import type { OfficeArchive } from "@/lib/extract/office/archive";
import { chartData, type ChartData } from "@/lib/extract/office/chart";
import { type Section } from "@/lib/extract/office/sections";
import { type PlacedBlock, type SlideContent, slideMarkdown } from "@/lib/extract/office/slide-markdown";
import { relationshipTargets } from "@/lib/extract/office/xlsx";
import {
  attr,
  childElements,
  type ElementBudget,
  findAll,
  findFirst,
  firstChild,
  parseXml,
  textOf,
  type XmlElement,
} from "@/lib/extract/xml";
import { meaningfulAlt } from "@/lib/extract/alt-text";

/**
 * PPTX (PresentationML) → one section per slide, in the deck's order
 * (`<p:sldIdLst>`, not the parts' file names). Read by hand from the zip's
 * XML: the JS readers (officeparser, pptx-parser) flatten a deck to text and
 * lose titles, tables and notes, which are what this keeps.
 *
 * - The title placeholder (`title`, `ctrTitle`) becomes the heading.
 * - Text boxes, placeholders and tables are read top to bottom, then left to
 *   right. A placeholder that does not say where it is takes its place from
 *   the layout's placeholder of the same index or type, then the master's;
 *   a group's shapes are placed through its transform.
 * - Body placeholders' paragraphs are bullets unless they say otherwise (the
 *   master's body style makes them so); text boxes' are bullets when they
 *   carry a bullet character or numbering.
 * - Charts: the data their parts cache, as a table (chart.ts) under
 *   "Chart: <title>". Pictures: their alt text (`descr`), unless empty or a
 *   file name.
 * - Speaker notes (the notes slide's body placeholder) follow under
 *   "## Notes" when `includeNotes`.
 */
export async function readPptx(
  archive: OfficeArchive,
  budget: ElementBudget,
  options: { includeNotes: boolean },
  deadline: number,
): Promise<Section[]> {
  const damaged = () => failures.corruptedOffice("presentation");
  const rootRels = relationshipTargets(archive, "", budget);
  const presentationPath =
    [...rootRels.values()].find((t) => t.type.endsWith("/officeDocument"))?.path ?? "ppt/presentation.xml";
  const presentationXml = archive.text(presentationPath);
  if (presentationXml === undefined) throw damaged();
  const presentation = parseXml(presentationXml, budget);
  const targets = relationshipTargets(archive, presentationPath, budget);
  const slideIds = findAll(findFirst(presentation, "sldIdLst") ?? emptyElement, "sldId");

  const placements = new Map<string, Placeholders>();
  const sections: Section[] = [];
  for (const [i, slideId] of slideIds.entries()) {
    if (Date.now() > deadline) throw failures.tooComplex("time");
    const path = targets.get(attr(slideId, "r:id") ?? "")?.path;
    const xml = path ? archive.text(path) : undefined;
    if (!path || xml === undefined) throw damaged();
    const slide = parseXml(xml, budget);
    const slideRels = relationshipTargets(archive, path, budget);
    const layoutPath = [...slideRels.values()].find((t) => t.type.endsWith("/slideLayout"))?.path;
    const inherited = layoutPath ? inheritedPlaceholders(archive, layoutPath, budget, placements) : [];
    const chartOf = (rId: string): ChartData | undefined => {
      const target = slideRels.get(rId);
      const chartXml = target?.type.endsWith("/chart") ? archive.text(target.path) : undefined;
      return chartXml === undefined ? undefined : chartData(parseXml(chartXml, budget));
    };
    const content = readShapes(slide, { inherited, chartOf });
    if (options.includeNotes) {
      const notesPath = [...slideRels.values()].find((t) => t.type.endsWith("/notesSlide"))?.path;
      const notesXml = notesPath ? archive.text(notesPath) : undefined;
      if (notesXml !== undefined) content.notes = notesText(parseXml(notesXml, budget));
    }
    sections.push({ number: i + 1, markdown: slideMarkdown(i + 1, content) });
  }
  if (slideIds.length === 0) throw failures.emptyDocument();
  return sections;
}

const emptyElement: XmlElement = { name: "", attrs: {}, children: [] };

interface Point {
  x: number;
  y: number;
}

/** A layout's or master's placeholders' positions, by index ("idx:3") and by type ("type:body"). */
type Placeholders = Map<string, Point>;

/** The layout's placeholders, then its master's: the first that knows a placeholder's position wins. */
function inheritedPlaceholders(
  archive: OfficeArchive,
  layoutPath: string,
  budget: ElementBudget,
  cache: Map<string, Placeholders>,
): Placeholders[] {
  const layout = placeholdersOf(archive, layoutPath, budget, cache);
  const masterPath = [...relationshipTargets(archive, layoutPath, budget).values()].find((t) =>
    t.type.endsWith("/slideMaster"),
  )?.path;
  return masterPath ? [layout, placeholdersOf(archive, masterPath, budget, cache)] : [layout];
}

function placeholdersOf(
  archive: OfficeArchive,
  path: string,
  budget: ElementBudget,
  cache: Map<string, Placeholders>,
): Placeholders {
  const cached = cache.get(path);
  if (cached) return cached;
  const found: Placeholders = new Map();
  cache.set(path, found);
  const xml = archive.text(path);
  if (xml === undefined) return found;
  for (const shape of findAll(parseXml(xml, budget), "sp")) {
    const ph = placeholderOf(shape);
    const at = offsetOf(shape);
    if (!ph || !at) continue;
    if (ph.idx !== undefined && !found.has(`idx:${ph.idx}`)) found.set(`idx:${ph.idx}`, at);
    if (!found.has(`type:${ph.type}`)) found.set(`type:${ph.type}`, at);
  }
  return found;
}

/** A placeholder's type ("body" when unsaid, as the spec defaults it) and index. */
function placeholderOf(shape: XmlElement): { type: string; idx?: string } | undefined {
  const nv = childElements(shape).find((child) => child.name.startsWith("nv"));
  const ph = nv && findFirst(nv, "ph");
  if (!ph) return undefined;
  return { type: attr(ph, "type") ?? "body", idx: attr(ph, "idx") };
}

/** The shape's own offset (`<a:off>` of its transform), in its parent's coordinates. */
function offsetOf(shape: XmlElement): Point | undefined {
  const properties = childElements(shape).find((child) => child.name === "spPr" || child.name === "xfrm");
  const xfrm = properties?.name === "xfrm" ? properties : properties && firstChild(properties, "xfrm");
  const off = xfrm && firstChild(xfrm, "off");
  if (!off) return undefined;
  return { x: Number(attr(off, "x") ?? 0), y: Number(attr(off, "y") ?? 0) };
}

/** How a group maps its children's coordinates onto its parent's. */
type Transform = (p: Point) => Point;
const identity: Transform = (p) => p;

function groupTransform(group: XmlElement, outer: Transform): Transform {
  const xfrm = findFirst(childElements(group, "grpSpPr")[0] ?? emptyElement, "xfrm");
  const value = (name: string, a: string) =>
    Number(attr(firstChild(xfrm ?? emptyElement, name) ?? emptyElement, a) ?? 0);
  const [offX, offY, chX, chY] = [value("off", "x"), value("off", "y"), value("chOff", "x"), value("chOff", "y")];
  const scaleX = value("chExt", "cx") ? value("ext", "cx") / value("chExt", "cx") : 1;
  const scaleY = value("chExt", "cy") ? value("ext", "cy") / value("chExt", "cy") : 1;
  return (p) => outer({ x: offX + (p.x - chX) * scaleX, y: offY + (p.y - chY) * scaleY });
}

const TITLE_TYPES = new Set(["title", "ctrTitle"]);
/** Placeholders that show the slide's number, date or footer: the same on every slide, so not its content. */
const CHROME_TYPES = new Set(["sldNum", "dt", "ftr", "hdr", "sldImg"]);

/** What shapes are read against: the placeholders they may inherit a place from, and the slide's charts by relationship id. */
interface SlideContext {
  inherited: Placeholders[];
  chartOf: (rId: string) => ChartData | undefined;
}

function readShapes(slide: XmlElement, context: SlideContext): SlideContent {
  const content: SlideContent = { blocks: [] };
  const tree = findFirst(slide, "spTree");
  if (tree) walk(tree, identity, context, content);
  return content;
}

function walk(container: XmlElement, transform: Transform, context: SlideContext, content: SlideContent): void {
  const { inherited } = context;
  for (const shape of childElements(container)) {
    switch (shape.name) {
      case "grpSp":
        walk(shape, groupTransform(shape, transform), context, content);
        break;
      case "AlternateContent": {
        // The first choice is the content as its writer meant it; the fallback is an older rendering of it.
        const choice = firstChild(shape, "Choice") ?? firstChild(shape, "Fallback");
        if (choice) walk(choice, transform, context, content);
        break;
      }
      case "pic": {
        const properties = firstChild(firstChild(shape, "nvPicPr") ?? emptyElement, "cNvPr");
        const alt = meaningfulAlt(attr(properties ?? emptyElement, "descr"));
        if (alt)
          content.blocks.push({ ...position(shape, placeholderOf(shape), transform, inherited), kind: "image", alt });
        break;
      }
      case "sp": {
        const ph = placeholderOf(shape);
        if (ph && CHROME_TYPES.has(ph.type)) break;
        const body = firstChild(shape, "txBody");
        if (!body) break;
        const at = position(shape, ph, transform, inherited);
        if (ph && TITLE_TYPES.has(ph.type) && content.title === undefined) {
          content.title = paragraphs(body)
            .map((p) => p.text)
            .join(" ")
            .trim();
          break;
        }
        const bulletedByDefault = ph !== undefined && (ph.type === "body" || ph.type === "obj");
        const lines = paragraphs(body).filter((p) => p.text.trim() !== "");
        if (lines.length === 0) break;
        content.blocks.push({
          ...at,
          kind: "text",
          paragraphs: lines.map((p) => ({
            text: p.text,
            level: p.level,
            bullet: p.bullet === "none" ? false : p.bullet === "yes" || bulletedByDefault,
          })),
        });
        break;
      }
      case "graphicFrame": {
        const chartRef = findFirst(shape, "chart");
        const chart = chartRef && context.chartOf(attr(chartRef, "r:id") ?? "");
        if (chart) {
          content.blocks.push({ ...position(shape, undefined, transform, inherited), kind: "chart", ...chart });
          break;
        }
        const table = findFirst(shape, "tbl");
        if (!table) break;
        // Rows left empty (a template's spare rows) say nothing; a table of nothing but empty cells is left out.
        const rows = tableRows(table).filter((row, i) => i === 0 || row.some((v) => v.trim() !== ""));
        if (rows.some((row) => row.some((v) => v.trim() !== "")))
          content.blocks.push({ ...position(shape, undefined, transform, inherited), kind: "table", rows });
        break;
      }
    }
  }
}

function position(
  shape: XmlElement,
  ph: { type: string; idx?: string } | undefined,
  transform: Transform,
  inherited: Placeholders[],
): Pick<PlacedBlock, "x" | "y"> {
  const own = offsetOf(shape);
  if (own) return transform(own);
  if (ph)
    for (const placeholders of inherited) {
      const found =
        (ph.idx !== undefined ? placeholders.get(`idx:${ph.idx}`) : undefined) ?? placeholders.get(`type:${ph.type}`);
      // A layout's or master's position is already in the slide's coordinates.
      if (found) return found;
    }
  return { x: 0, y: 0 };
}

interface Paragraph {
  text: string;
  level: number;
  bullet: "yes" | "none" | "inherit";
}

function paragraphs(body: XmlElement): Paragraph[] {
  return childElements(body, "p").map((p) => {
    const properties = firstChild(p, "pPr");
    let text = "";
    for (const part of childElements(p)) {
      if (part.name === "r" || part.name === "fld") text += textOf(firstChild(part, "t") ?? emptyElement);
      else if (part.name === "br") text += " ";
    }
    const bullet = properties
      ? firstChild(properties, "buNone")
        ? "none"
        : firstChild(properties, "buChar") || firstChild(properties, "buAutoNum")
          ? "yes"
          : "inherit"
      : "inherit";
    return { text, level: Math.min(Number(attr(properties ?? emptyElement, "lvl") ?? 0) || 0, 8), bullet };
  });
}

/** A table's rows of cell texts; a merged cell's value stands in every cell it covers. */
function tableRows(table: XmlElement): string[][] {
  const rows: string[][] = [];
  for (const tr of childElements(table, "tr")) {
    const row: string[] = [];
    for (const tc of childElements(tr, "tc")) {
      const body = firstChild(tc, "txBody");
      const text = body
        ? paragraphs(body)
            .map((p) => p.text.trim())
            .filter(Boolean)
            .join(" ")
        : "";
      if (attr(tc, "hMerge") === "1" || attr(tc, "hMerge") === "true") row.push(row.at(-1) ?? "");
      else if (attr(tc, "vMerge") === "1" || attr(tc, "vMerge") === "true") row.push(rows.at(-1)?.[row.length] ?? "");
      else row.push(text);
    }
    rows.push(row);
  }
  return rows;
}

/** The notes slide's body placeholder: what the speaker reads, without the slide image or the page number. */
function notesText(notes: XmlElement): string {
  const texts: string[] = [];
  for (const shape of findAll(notes, "sp")) {
    const ph = placeholderOf(shape);
    if (!ph || ph.type !== "body") continue;
    const body = firstChild(shape, "txBody");
    if (body)
      texts.push(
        ...paragraphs(body)
          .map((p) => p.text.trim())
          .filter(Boolean),
      );
  }
  return texts.join("\n\n");
}
