import { posix } from "node:path";
import { DomHandler, DomUtils, Parser, parseDocument } from "htmlparser2";
import { openArchive, type Archive } from "@/lib/extract/archive";
import { failures } from "@/lib/extract/failures";
import { htmlToMarkdown } from "@/lib/extract/html";
import type { ExtractLimits, PageRange } from "@/lib/extract/types";
import { withWorker } from "@/lib/extract/worker";
import {
  attrByLocalName as attribute,
  descendants,
  ElementBudget,
  localName,
  parseXml,
  textOf,
  type XmlElement,
} from "@/lib/extract/xml";
import { meaningfulAlt } from "@/lib/extract/alt-text";

/**
 * EPUB 2 and 3 → Markdown, one chapter (spine item) after another, each
 * through the same HTML path as HTML uploads. Written here on the zip reader
 * and htmlparser2 rather than taken from an EPUB package: `epub2`/`epub` unpack
 * with their own ZIP readers (outside the one zip budget) and hand back
 * chapters as HTML strings anyway; the package format is three small XML files.
 *
 * - Order: the package's spine. A chapter without a heading of its own gets
 *   its title from the table of contents (EPUB 3's nav, else EPUB 2's NCX).
 * - Images: their alt text is kept in place ("(Image: …)"); images without
 *   one, or whose alt is a file name, are dropped.
 * - Hostile books: each part's nesting is bounded by the archive reader; the
 *   elements of the package files and of all chapters together by one
 *   ElementBudget (MARKUP_MAX_ELEMENTS), counted as they are parsed.
 * - DRM: a book whose chapters META-INF/encryption.xml lists as encrypted
 *   (Adobe ADEPT, Readium LCP, ...) cannot be read: refused as drm_protected.
 *   Font obfuscation (IDPF, Adobe) encrypts fonts only and is no obstacle.
 */

const isMarkup = (name: string) => /\.(xml|opf|ncx|xhtml|html|htm)$/i.test(name);
const damaged = (detail?: string) => failures.corruptedDocument("This EPUB book", detail);
/** Algorithms that only obfuscate embedded fonts. */
const FONT_OBFUSCATION = new Set(["http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"]);
const HTML_TYPES = new Set(["application/xhtml+xml", "text/html", "application/x-dtbook+xml"]);

export interface EpubText {
  text: string;
  /** One range per chapter with text, `number` its place in the spine (1-based). */
  chapters: PageRange[];
}

interface Chapter {
  number: number;
  path: string;
}

export async function extractEpub(
  bytes: Uint8Array,
  limits: Pick<ExtractLimits, "maxUnpackedBytes" | "markup" | "timeoutMs">,
): Promise<EpubText> {
  const archive = await openArchive(bytes, limits, { isMarkup, damaged: () => damaged() });
  const budget = new ElementBudget(limits.markup.maxElements);
  const xml = (text: string) => parseXml(text, budget);
  const opfPath = packagePath(archive, xml);
  const opf = archive.text(opfPath);
  if (opf === undefined) throw damaged(`its package ${opfPath} is missing`);
  const book = readPackage(xml(opf), posix.dirname(opfPath));
  refuseEncrypted(archive, book.chapters, xml);
  const titles = tableOfContents(archive, book, xml);

  return withWorker({ timeoutMs: limits.timeoutMs, damaged: () => damaged() }, async (worker) => {
    let text = "";
    const chapters: PageRange[] = [];
    for (const chapter of book.chapters) {
      const source = archive.text(chapter.path);
      if (source === undefined) continue;
      const markdown = await htmlToMarkdown(
        worker,
        chapterHtml(source, titles.get(chapter.path), budget),
        limits.markup,
      );
      if (markdown === "") continue;
      if (text !== "") text += "\n\n";
      chapters.push({ number: chapter.number, start: text.length, end: text.length + markdown.length });
      text += markdown;
    }
    return { text, chapters };
  });
}

type ParseXml = (text: string) => XmlElement;
const elements = (root: XmlElement, ...names: string[]) => descendants(root, names);
const textIn = (element: XmlElement) => textOf(element).replace(/\s+/g, " ").trim();

/** META-INF/container.xml's first package document. */
function packagePath(archive: Archive, xml: ParseXml): string {
  const container = archive.text("META-INF/container.xml");
  if (container === undefined) throw damaged("META-INF/container.xml is missing");
  const rootfile = elements(xml(container), "rootfile").find(
    (element) =>
      (attribute(element, "media-type") ?? "application/oebps-package+xml") === "application/oebps-package+xml",
  );
  const path = rootfile && attribute(rootfile, "full-path");
  if (!path) throw damaged("its container names no package document");
  return path;
}

interface Book {
  chapters: Chapter[];
  /** EPUB 3's navigation document. */
  nav?: string;
  /** EPUB 2's NCX. */
  ncx?: string;
}

function readPackage(doc: XmlElement, base: string): Book {
  const items = new Map<string, { path: string; type: string; properties: string }>();
  for (const item of elements(doc, "item")) {
    const id = attribute(item, "id");
    const href = attribute(item, "href");
    if (id && href)
      items.set(id, {
        path: resolve(base, href),
        type: (attribute(item, "media-type") ?? "").toLowerCase(),
        properties: attribute(item, "properties") ?? "",
      });
  }
  const spine = elements(doc, "spine")[0];
  if (!spine) throw damaged("its package has no spine");
  const chapters: Chapter[] = [];
  elements(spine, "itemref").forEach((ref, i) => {
    const item = items.get(attribute(ref, "idref") ?? "");
    if (item && HTML_TYPES.has(item.type)) chapters.push({ number: i + 1, path: item.path });
  });
  const nav = [...items.values()].find((item) => item.properties.split(/\s+/).includes("nav"));
  const ncx =
    items.get(attribute(spine, "toc") ?? "") ?? [...items.values()].find((i) => i.type === "application/x-dtbncx+xml");
  return { chapters, nav: nav?.path, ncx: ncx?.path };
}

/** A path inside the archive from an href relative to `base`: fragment dropped, percent-escapes decoded. */
function resolve(base: string, href: string): string {
  const path = href.split("#")[0] ?? "";
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed escape: the href as written.
  }
  return posix.normalize(posix.join(base, decoded)).replace(/^\.\//, "");
}

function refuseEncrypted(archive: Archive, chapters: Chapter[], xml: ParseXml): void {
  const encryption = archive.text("META-INF/encryption.xml");
  if (encryption === undefined) return;
  const encrypted = new Set<string>();
  for (const data of elements(xml(encryption), "EncryptedData")) {
    const method = elements(data, "EncryptionMethod")[0];
    if (FONT_OBFUSCATION.has((method && attribute(method, "Algorithm")) ?? "")) continue;
    for (const reference of elements(data, "CipherReference")) {
      const uri = attribute(reference, "URI");
      if (uri) encrypted.add(resolve("", uri));
    }
  }
  if (chapters.some((chapter) => encrypted.has(chapter.path))) throw failures.drmProtected();
}

/** The first title the table of contents gives each chapter file. */
function tableOfContents(archive: Archive, book: Book, xml: ParseXml): Map<string, string> {
  const titles = new Map<string, string>();
  const add = (base: string, href: string | undefined, title: string) => {
    if (!href || !title) return;
    const path = resolve(base, href);
    if (!titles.has(path)) titles.set(path, title);
  };
  const nav = book.nav && archive.text(book.nav);
  if (nav && book.nav) {
    const base = posix.dirname(book.nav);
    const navs = elements(xml(nav), "nav");
    const toc = navs.find((n) => (attribute(n, "type") ?? "").split(/\s+/).includes("toc")) ?? navs[0];
    for (const link of toc ? elements(toc, "a") : []) add(base, attribute(link, "href"), textIn(link));
  }
  const ncx = book.ncx && archive.text(book.ncx);
  if (titles.size === 0 && ncx && book.ncx) {
    const base = posix.dirname(book.ncx);
    for (const point of elements(xml(ncx), "navPoint")) {
      const label = elements(point, "navLabel")[0];
      const content = elements(point, "content")[0];
      if (label && content) add(base, attribute(content, "src"), textIn(label));
    }
  }
  return titles;
}

const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

/** htmlparser2's element type, taken from it so it is always the DOM that htmlparser2 builds (domhandler is its own dependency). */
type Element = ReturnType<typeof DomUtils.getElementsByTagName>[number];

/**
 * The chapter's HTML for the converter: images replaced by their alt text, and
 * the table of contents' title as a heading when the chapter has none.
 */
function chapterHtml(source: string, title: string | undefined, budget: ElementBudget): string {
  const doc = parseChapter(source, budget);
  const tag = (e: Element) => localName(e.name);
  for (const image of DomUtils.findAll((e) => tag(e) === "img" || tag(e) === "image", doc.children)) {
    const alt = meaningfulAlt(image.attribs.alt);
    if (!alt) DomUtils.removeElement(image);
    else DomUtils.replaceElement(image, parseDocument(`<em>(Image: ${escapeHtml(alt)})</em>`).children[0] as Element);
  }
  const body = DomUtils.findOne((e) => tag(e) === "body", doc.children) ?? doc;
  const html = DomUtils.getInnerHTML(body, { xmlMode: false });
  const hasHeading = DomUtils.existsOne((e) => HEADINGS.has(tag(e)), body.children);
  return title && !hasHeading ? `<h1>${escapeHtml(title)}</h1>\n${html}` : html;
}

/**
 * A chapter as htmlparser2's DOM (its serializer writes the HTML back), every
 * element taken from the book's budget as it is built: the HTML converter's own
 * check sees one chapter at a time, after this tree exists.
 */
function parseChapter(source: string, budget: ElementBudget) {
  const handler = new (class extends DomHandler {
    override onopentag(name: string, attribs: Record<string, string>) {
      budget.take();
      super.onopentag(name, attribs);
    }
  })();
  new Parser(handler, { xmlMode: false, decodeEntities: true }).end(source);
  return handler.root;
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
