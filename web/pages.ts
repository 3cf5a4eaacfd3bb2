/**
 * A page count shown before upload, the way the service counts them
 * (DESIGN.md: a PDF's real page count; otherwise ceil(characters / 3000), at
 * least 1, EPUB, ODT, RTF and e-mail included). Only an estimate: the service's count after extraction is what
 * the free quota charges.
 */
const CHARS_PER_PAGE = 3000;

export type DocumentKind =
  "pdf" | "docx" | "pptx" | "odp" | "workbook" | "csv" | "html" | "text" | "image" | "epub" | "odt" | "rtf" | "email";

/** Rows of a sheet the service counts as one page (lib/extract/office/sheet-table.ts). */
const ROWS_PER_PAGE = 50;

export type PageEstimate =
  /** `approximate`: a count from raw bytes or markup the service will read differently. */
  { kind: "pages"; pages: number; approximate: boolean } | { kind: "after-upload"; reason: string };

const EXTENSION_KINDS: Record<string, DocumentKind> = {
  pdf: "pdf",
  docx: "docx",
  pptx: "pptx",
  odp: "odp",
  xlsx: "workbook",
  ods: "workbook",
  csv: "csv",
  tsv: "csv",
  html: "html",
  htm: "html",
  md: "text",
  markdown: "text",
  txt: "text",
  png: "image",
  jpg: "image",
  jpeg: "image",
  webp: "image",
  tif: "image",
  tiff: "image",
  epub: "epub",
  odt: "odt",
  rtf: "rtf",
  eml: "email",
  msg: "email",
};

/** From the name first (what the picker filtered on), else the browser's media type; unknown files are treated as text and the service decides. */
export function documentKind(name: string, mediaType = ""): DocumentKind | null {
  const extension = name.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  if (extension && extension in EXTENSION_KINDS) return EXTENSION_KINDS[extension]!;
  if (mediaType === "application/pdf") return "pdf";
  if (mediaType === "application/vnd.openxmlformats-officedocument.wordprocessingml.document") return "docx";
  if (mediaType === "application/vnd.openxmlformats-officedocument.presentationml.presentation") return "pptx";
  if (
    mediaType === "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" ||
    mediaType === "application/vnd.oasis.opendocument.spreadsheet"
  )
    return "workbook";
  if (mediaType === "application/vnd.oasis.opendocument.presentation") return "odp";
  if (mediaType === "text/csv" || mediaType === "text/tab-separated-values") return "csv";
  if (mediaType === "text/html") return "html";
  if (mediaType === "application/epub+zip") return "epub";
  if (mediaType === "application/vnd.oasis.opendocument.text") return "odt";
  if (mediaType === "application/rtf" || mediaType === "text/rtf") return "rtf";
  if (mediaType === "message/rfc822" || mediaType === "application/vnd.ms-outlook") return "email";
  if (/^image\/(png|jpeg|webp|tiff)$/.test(mediaType)) return "image";
  if (mediaType.startsWith("text/")) return "text";
  return null;
}

/**
 * Page objects in a PDF's bytes (`/Type /Page`, not `/Pages`). Null when none
 * is visible, as in PDFs that keep their objects in compressed object streams.
 */
export function pagesFromPdf(bytes: Uint8Array): number | null {
  const text = new TextDecoder("latin1").decode(bytes);
  const count = text.match(/\/Type\s*\/Page(?![A-Za-z])/g)?.length ?? 0;
  return count > 0 ? count : null;
}

/**
 * Slides in a PPTX: the slide parts (ppt/slides/slideN.xml) its zip directory
 * names, read without unpacking anything. Null when none is found (not a
 * PPTX, or a damaged one): the service decides.
 */
export function slidesFromPptx(bytes: Uint8Array): number | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder();
  let slides = 0;
  for (let p = 0; p + 46 <= bytes.length; p++) {
    // Central directory records: signature, then the name's length at +28 and the name at +46.
    if (view.getUint32(p, true) !== 0x02014b50) continue;
    const nameLength = view.getUint16(p + 28, true);
    const name = decoder.decode(bytes.subarray(p + 46, p + 46 + nameLength));
    if (/^ppt\/slides\/slide\d+\.xml$/.test(name)) slides++;
  }
  return slides > 0 ? slides : null;
}

/** A CSV's pages as the service counts them: its rows after the header, ROWS_PER_PAGE a page, at least 1. */
export function pagesFromCsv(text: string): number {
  const lines = text.split(/\r\n|\r|\n/).filter((line) => line.trim() !== "").length;
  return Math.max(1, Math.ceil((lines - 1) / ROWS_PER_PAGE));
}

/** Characters are Unicode code points, as the service counts them. */
export function pagesFromText(text: string): number {
  let characters = 0;
  for (const _ of text) characters++;
  return Math.max(1, Math.ceil(characters / CHARS_PER_PAGE));
}

/**
 * An RTF's text, roughly: the groups the reader skips (fonts, colours, styles, pictures, document info, `\\*`
 * destinations) left out whole, then control words removed.
 */
const SKIPPED_RTF_GROUP =
  /^\{\\(?:\*|fonttbl|colortbl|stylesheet|info|pict|listtable|listoverridetable|themedata|datastore)/;
export function visibleRtfText(rtf: string): string {
  let kept = "";
  let skipDepth = 0;
  let depth = 0;
  for (let i = 0; i < rtf.length; i++) {
    const c = rtf[i];
    if (c === "\\" && (rtf[i + 1] === "{" || rtf[i + 1] === "}" || rtf[i + 1] === "\\")) {
      if (skipDepth === 0) kept += rtf.slice(i, i + 2);
      i++;
    } else if (c === "{") {
      depth++;
      if (skipDepth === 0 && SKIPPED_RTF_GROUP.test(rtf.slice(i, i + 24))) skipDepth = depth;
    } else if (c === "}") {
      if (skipDepth === depth) skipDepth = 0;
      depth--;
    } else if (skipDepth === 0) kept += c;
  }
  return (
    kept
      .replace(/\\'[0-9a-f]{2}/gi, "x")
      // A control word and the space that ends it are no text (a word may be split by formatting around it).
      .replace(/\\[a-z]+-?\d* ?/gi, "")
      .replace(/\\./g, " ")
      .replace(/\s+/g, " ")
      .trim()
  );
}

/** Markup, scripts and styles do not become text on the service's side; a rough strip gets close enough for an estimate. */
export function visibleHtmlText(html: string): string {
  return html
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&[#a-z0-9]+;/gi, " ")
    .replace(/\s+/g, " ")
    .trim();
}

export async function estimatePages(file: File): Promise<PageEstimate> {
  switch (documentKind(file.name, file.type)) {
    case "pdf": {
      const pages = pagesFromPdf(new Uint8Array(await file.arrayBuffer()));
      return pages === null
        ? { kind: "after-upload", reason: "This PDF keeps its page list compressed" }
        : { kind: "pages", pages, approximate: false };
    }
    case "docx":
      return { kind: "after-upload", reason: "Word documents are paginated once their text is extracted" };
    case "epub":
      return { kind: "after-upload", reason: "E-books are paginated once their chapters are read" };
    case "odt":
      return { kind: "after-upload", reason: "OpenDocument files are paginated once their text is extracted" };
    case "email":
      return { kind: "after-upload", reason: "E-mails are paginated once their body and attachments are read" };
    case "rtf":
      return { kind: "pages", pages: pagesFromText(visibleRtfText(await file.text())), approximate: true };
    case "pptx": {
      const slides = slidesFromPptx(new Uint8Array(await file.arrayBuffer()));
      return slides === null
        ? { kind: "after-upload", reason: "This deck's slides are counted once it is read" }
        : { kind: "pages", pages: slides, approximate: false };
    }
    case "odp":
      return { kind: "after-upload", reason: "An OpenDocument deck's slides are counted once it is read" };
    case "workbook":
      return {
        kind: "after-upload",
        reason: `Spreadsheets are counted once read: ${ROWS_PER_PAGE} rows of a sheet a page`,
      };
    case "csv":
      // Quoted fields may span lines, and the encoding may not be UTF-8: close, not exact.
      return { kind: "pages", pages: pagesFromCsv(await file.text()), approximate: true };
    case "html":
      return { kind: "pages", pages: pagesFromText(visibleHtmlText(await file.text())), approximate: true };
    case "text":
      return { kind: "pages", pages: pagesFromText(await file.text()), approximate: false };
    case "image":
      // A TIFF may hold several pages; the other formats one.
      return /\.tiff?$/i.test(file.name) || file.type === "image/tiff"
        ? { kind: "after-upload", reason: "A TIFF's pages are counted once it is read" }
        : { kind: "pages", pages: 1, approximate: false };
    default:
      return { kind: "after-upload", reason: "The service reads the file type from its bytes" };
  }
}

export function describePages(estimate: PageEstimate): string {
  if (estimate.kind === "after-upload") return "pages counted after upload";
  const noun = estimate.pages === 1 ? "page" : "pages";
  return `${estimate.approximate ? "about " : ""}${estimate.pages.toLocaleString("en-US")} ${noun}`;
}
