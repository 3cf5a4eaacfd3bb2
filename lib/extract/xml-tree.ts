import { DomUtils, parseDocument } from "htmlparser2";
import type { Document, Element } from "domhandler";

/**
 * Small helpers over htmlparser2's tree for the XML inside ZIP-based documents
 * (EPUB's container, package and table of contents; ODT's content.xml). Only
 * documents that passed the archive's markup-depth budget are parsed.
 */
export type { Document, Element } from "domhandler";

export const parseXml = (text: string): Document => parseDocument(text, { xmlMode: true });

/** An element's name without its namespace prefix ("opf:item" → "item"). */
export const localName = (element: Element) => element.name.slice(element.name.indexOf(":") + 1);

/** Every element below `root` (depth first, in document order) whose local name is one of `names`. */
export function elements(root: Document | Element, ...names: string[]): Element[] {
  const wanted = new Set(names);
  return DomUtils.findAll((element) => wanted.has(localName(element)), root.children);
}

/** An attribute by its local name (either "href" or "xlink:href"). */
export function attribute(element: Element, name: string): string | undefined {
  for (const [key, value] of Object.entries(element.attribs))
    if (key === name || key.endsWith(`:${name}`)) return value;
  return undefined;
}

export const textOf = (node: Document | Element) => DomUtils.textContent(node).replace(/\s+/g, " ").trim();
