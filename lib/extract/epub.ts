import { posix } from "node:path";
import { DomUtils, parseDocument } from "htmlparser2";
import type { Element } from "domhandler";
import { openArchive, type Archive } from "@/lib/extract/archive";
import { failures } from "@/lib/extract/failures";
import { htmlToMarkdown } from "@/lib/extract/html";
import type { ExtractLimits, PageRange } from "@/lib/extract/types";
import { withWorker } from "@/lib/extract/worker";
import { attribute, elements, localName, parseXml, textOf } from "@/lib/extract/xml-tree";

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
  const opfPath = packagePath(archive);
  const opf = archive.text(opfPath);
  if (opf === undefined) throw damaged(`its package ${opfPath} is missing`);
  const book = readPackage(opf, posix.dirname(opfPath));
  refuseEncrypted(archive, book.chapters);
  const titles = tableOfContents(archive, book);

  return withWorker({ timeoutMs: limits.timeoutMs, damaged: () => damaged() }, async (worker) => {
    let text = "";
    const chapters: PageRange[] = [];
    for (const chapter of book.chapters) {
      const source = archive.text(chapter.path);
      if (source === undefined) continue;
      const markdown = await htmlToMarkdown(worker, chapterHtml(source, titles.get(chapter.path)), limits.markup);
      if (markdown === "") continue;
      if (text !== "") text += "\n\n";
      chapters.push({ number: chapter.number, start: text.length, end: text.length + markdown.length });
      text += markdown;
    }
    return { text, chapters };
  });
}

/** META-INF/container.xml's first package document. */
function packagePath(archive: Archive): string {
  const container = archive.text("META-INF/container.xml");
  if (container === undefined) throw damaged("META-INF/container.xml is missing");
  const rootfile = elements(parseXml(container), "rootfile").find(
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

function readPackage(opf: string, base: string): Book {
  const doc = parseXml(opf);
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

function refuseEncrypted(archive: Archive, chapters: Chapter[]): void {
  const encryption = archive.text("META-INF/encryption.xml");
  if (encryption === undefined) return;
  const encrypted = new Set<string>();
  for (const data of elements(parseXml(encryption), "EncryptedData")) {
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
function tableOfContents(archive: Archive, book: Book): Map<string, string> {
  const titles = new Map<string, string>();
  const add = (base: string, href: string | undefined, title: string) => {
    if (!href || !title) return;
    const path = resolve(base, href);
    if (!titles.has(path)) titles.set(path, title);
  };
  const nav = book.nav && archive.text(book.nav);
  if (nav && book.nav) {
    const base = posix.dirname(book.nav);
    const navs = elements(parseXml(nav), "nav");
    const toc = navs.find((n) => (attribute(n, "type") ?? "").split(/\s+/).includes("toc")) ?? navs[0];
    for (const link of toc ? elements(toc, "a") : []) add(base, attribute(link, "href"), textOf(link));
  }
  const ncx = book.ncx && archive.text(book.ncx);
  if (titles.size === 0 && ncx && book.ncx) {
    const base = posix.dirname(book.ncx);
    for (const point of elements(parseXml(ncx), "navPoint")) {
      const label = elements(point, "navLabel")[0];
      const content = elements(point, "content")[0];
      if (label && content) add(base, attribute(content, "src"), textOf(label));
    }
  }
  return titles;
}

/** Alt text that is only the image's file name (what some converters write) says nothing. */
const FILE_NAME = /^[\w.-]+\.(?:jpe?g|png|gif|svg|webp|tiff?)$/i;

const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

/**
 * The chapter's HTML for the converter: images replaced by their alt text, and
 * the table of contents' title as a heading when the chapter has none.
 */
function chapterHtml(source: string, title: string | undefined): string {
  const doc = parseDocument(source, { xmlMode: false, decodeEntities: true });
  for (const image of DomUtils.findAll((e) => localName(e) === "img" || localName(e) === "image", doc.children)) {
    const alt = (image.attribs.alt ?? "").trim();
    if (alt === "" || FILE_NAME.test(alt)) DomUtils.removeElement(image);
    else DomUtils.replaceElement(image, parseDocument(`<em>(Image: ${escapeHtml(alt)})</em>`).children[0] as Element);
  }
  const body = DomUtils.findOne((e) => localName(e) === "body", doc.children) ?? doc;
  const html = DomUtils.getInnerHTML(body, { xmlMode: false });
  const hasHeading = DomUtils.existsOne((e) => HEADINGS.has(localName(e)), body.children);
  return title && !hasHeading ? `<h1>${escapeHtml(title)}</h1>\n${html}` : html;
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
