import { Parser, type Handler } from "htmlparser2";
import { failures } from "@/lib/extract/failures";

/**
 * The XML inside zip-based documents (PPTX, XLSX, ODP, ODS, ODT, EPUB's
 * package files), read with htmlparser2's streaming tokenizer (no DOM
 * library: the parts are small and their names are all that is matched).
 * Elements are named by their local name ("a:t" → "t"): each format uses
 * fixed prefixes, but nothing obliges a writer to.
 *
 * Two readers: `parseXml` builds a small tree for parts read whole (a slide,
 * a workbook's sheet list, an ODT's content.xml, an EPUB's package), its
 * elements counted against a budget shared by the whole document, so no
 * document can make the tree grow past MARKUP_MAX_ELEMENTS however its
 * elements are spread over parts (the archive reader bounds each part's
 * nesting); `streamXml` feeds handlers without a tree, for sheets, whose size
 * only the archive's unpacked cap bounds.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

export const localName = (qualified: string) => qualified.slice(qualified.indexOf(":") + 1);

/** Attribute by its qualified name as written (`r:id` and `id` are different attributes). */
export function attr(element: XmlElement, name: string): string | undefined {
  return element.attrs[name];
}

/** Attribute by its local name, whatever its prefix ("href" or "xlink:href"), for formats whose writers vary it. */
export function attrByLocalName(element: XmlElement, name: string): string | undefined {
  for (const [key, value] of Object.entries(element.attrs)) if (key === name || key.endsWith(`:${name}`)) return value;
  return undefined;
}

export function childElements(element: XmlElement, name?: string): XmlElement[] {
  return element.children.filter(
    (child): child is XmlElement => typeof child !== "string" && (name === undefined || child.name === name),
  );
}

export function firstChild(element: XmlElement, name: string): XmlElement | undefined {
  return childElements(element, name)[0];
}

/** Every descendant named `name`, in document order, not descending into matches. */
export function findAll(element: XmlElement, name: string, found: XmlElement[] = []): XmlElement[] {
  for (const child of element.children) {
    if (typeof child === "string") continue;
    if (child.name === name) found.push(child);
    else findAll(child, name, found);
  }
  return found;
}

/** Every descendant named one of `names`, in document order, nested matches included (an NCX's navPoints nest). */
export function descendants(element: XmlElement, names: string[], found: XmlElement[] = []): XmlElement[] {
  for (const child of element.children) {
    if (typeof child === "string") continue;
    if (names.includes(child.name)) found.push(child);
    descendants(child, names, found);
  }
  return found;
}

export function findFirst(element: XmlElement, name: string): XmlElement | undefined {
  for (const child of element.children) {
    if (typeof child === "string") continue;
    if (child.name === name) return child;
    const deeper = findFirst(child, name);
    if (deeper) return deeper;
  }
  return undefined;
}

/** Elements a document's parsed parts may hold together; the tree costs ~200 bytes an element. */
export class ElementBudget {
  private used = 0;
  constructor(readonly max: number) {}
  take(): void {
    if (++this.used > this.max) throw failures.markupTooComplex({ limit: "elements", found: this.used, max: this.max });
  }
}

/** A part as a tree of elements and text; attributes keep their qualified names. */
export function parseXml(xml: string, budget: ElementBudget): XmlElement {
  const root: XmlElement = { name: "#document", attrs: {}, children: [] };
  const stack: XmlElement[] = [root];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        budget.take();
        const element: XmlElement = { name: localName(name), attrs, children: [] };
        stack.at(-1)!.children.push(element);
        stack.push(element);
      },
      onclosetag() {
        if (stack.length > 1) stack.pop();
      },
      ontext(text) {
        stack.at(-1)!.children.push(text);
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(xml);
  return root;
}

/** The text of an element and all its descendants, joined. */
export function textOf(element: XmlElement): string {
  let text = "";
  for (const child of element.children) text += typeof child === "string" ? child : textOf(child);
  return text;
}

/** Characters tokenized between yields to the event loop. */
const SLICE_CHARS = 64 * 1024;

/**
 * Streams `xml` through `handlers` a slice at a time, yielding between
 * slices so a large sheet does not stall the server's thread, and giving up
 * at `deadline` (ms since the epoch). Handlers may throw to stop.
 */
export async function streamXml(xml: string, handlers: Partial<Handler>, deadline: number): Promise<void> {
  const parser = new Parser(handlers, { xmlMode: true, decodeEntities: true });
  for (let from = 0; from < xml.length; from += SLICE_CHARS) {
    parser.write(xml.slice(from, from + SLICE_CHARS));
    if (from + SLICE_CHARS < xml.length) {
      if (Date.now() > deadline) throw failures.tooComplex("time");
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  parser.end();
}
