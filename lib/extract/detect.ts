import { fileTypeFromBuffer } from "file-type";
import { failures } from "@/lib/extract/failures";
import { decodeCsv } from "@/lib/extract/office/csv";
import { decodeHead, decodeText, isBlank } from "@/lib/extract/text";
import { MEDIA_TYPES } from "@/lib/extract/types";

/**
 * What a document is, decided from its bytes. The client's file name and
 * content type are only consulted to tell Markdown from plain text, which
 * bytes cannot do; they never turn one format into another.
 */
export type Detected =
  | { kind: "pdf" }
  | { kind: "docx" }
  | { kind: "epub" | "odt" | "rtf" }
  | { kind: "email"; format: "eml" | "msg" }
  | { kind: "pptx" | "odp" | "xlsx" | "ods" }
  /** `name`: the table's, from the file name; `tab`: the name or type says TSV. */
  | { kind: "csv"; text: string; encoding: string; name: string; tab: boolean }
  | { kind: "image"; mediaType: string }
  | { kind: "html" | "markdown" | "text"; text: string };

/** Images read by OCR. */
const OCR_IMAGES = new Set(["image/png", "image/jpeg", "image/tiff", "image/webp"]);

export interface Hint {
  filename?: string;
  contentType?: string;
}

/**
 * Text takes at most 4 bytes a character (UTF-16 "\r\n", which becomes one
 * "\n"; UTF-8 takes at most 3).
 */
const MIN_BYTES_PER_CHAR = 4;

/**
 * `maxChars`: text and Markdown longer than this are refused here, so a
 * request never holds a text it cannot chunk: before decoding when the size
 * alone says so, else as soon as decoded. Twenty 25 MB uploads at once, each
 * decoded and dropped, left ~2 GB of strings for the garbage collector (peak
 * RSS ~3 GB; 1.2-1.3 GB refused undecoded). HTML is refused only once
 * converted: its text is shorter than its markup.
 */
export async function detect(bytes: Uint8Array, hint: Hint, maxChars = Infinity): Promise<Detected> {
  if (bytes.length === 0) throw failures.emptyDocument();

  const type = await fileTypeFromBuffer(bytes);
  if (type?.mime === MEDIA_TYPES.pdf) return { kind: "pdf" };
  if (type?.mime === MEDIA_TYPES.docx) return { kind: "docx" };
  if (type?.mime === MEDIA_TYPES.epub) return { kind: "epub" };
  if (type?.mime === MEDIA_TYPES.odt) return { kind: "odt" };
  if (type?.ext === "rtf") return { kind: "rtf" };
  if (type?.ext === "cfb" && isOutlookMessage(bytes)) return { kind: "email", format: "msg" };
  if (!type && looksLikeEmail(bytes)) return { kind: "email", format: "eml" };
  if (type?.mime === MEDIA_TYPES.pptx) return { kind: "pptx" };
  if (type?.mime === MEDIA_TYPES.xlsx) return { kind: "xlsx" };
  if (type?.mime === MEDIA_TYPES.ods) return { kind: "ods" };
  if (type?.mime === MEDIA_TYPES.odp) return { kind: "odp" };
  if (type && OCR_IMAGES.has(type.mime)) return { kind: "image", mediaType: type.mime };
  if (type && MARKUP_FORMATS.has(type.ext)) throw failures.unsupportedType(...describe(type));

  if (bytes.length > MIN_BYTES_PER_CHAR * (maxChars + 1) && (!type || isTextual(type.mime)))
    if (!looksLikeHtml(decodeHead(bytes, PROLOG_SCAN_CHARS)))
      throw failures.tooManyCharacters(Math.floor((bytes.length - 3) / MIN_BYTES_PER_CHAR), maxChars, true);
  const table = tableHinted(hint);
  if (table && (!type || isTextual(type.mime))) {
    // A CSV's bytes cannot be told from any other text's: the name or type says it is one, the bytes how to read it.
    const { text, encoding } = decodeCsv(bytes);
    if (isBlank(text)) throw failures.emptyDocument();
    if (text.length > maxChars) throw failures.tooManyCharacters(text.length, maxChars);
    return { kind: "csv", text, encoding, name: table.name, tab: table.tab };
  }
  let text: string;
  try {
    text = await decodeText(bytes);
  } catch (error) {
    // A binary type from file-type is believed only once the bytes turn out not to be text: some of its
    // signatures are two letters ("BM" is BMP, "MZ" an .exe, FF FE MPEG audio as well as the UTF-16 BOM),
    // and a report starting "BMW sales" is text. Real binaries have NULs or invalid UTF-8.
    if (type && !isTextual(type.mime)) throw failures.unsupportedType(...describe(type));
    throw error;
  }
  if (isBlank(text)) throw failures.emptyDocument();
  if (looksLikeHtml(text)) return { kind: "html", text };
  if (text.length > maxChars) throw failures.tooManyCharacters(text.length, maxChars);
  return { kind: markdownHinted(hint) ? "markdown" : "text", text };
}

/** Text formats whose content is markup, not prose: read as plain text, they would be chunked control words. */
const MARKUP_FORMATS = new Set(["ps", "eps"]);

/** Text formats file-type knows (XML, calendars, subtitles): read as text, and XHTML as HTML. */
function isTextual(mime: string): boolean {
  return mime.startsWith("text/") || mime === "application/xml";
}

/** What the file is and, where there is a better one than the generic list, what to send instead. */
function describe(type: { ext: string; mime: string }): [what: string, advice?: string] {
  switch (type.ext) {
    case "cfb":
      // Password-protected .docx files are not zips but OLE containers, like old .doc files.
      return [
        "an old-style Office file (.doc) or a password-protected document",
        "Save it as .docx without a password and send it again.",
      ];
    case "zip":
      return [
        "a ZIP archive but not a Word document, OpenDocument text, EPUB, slide deck or spreadsheet (or a damaged one)",
      ];
    case "xls":
    case "ppt":
      return [`an old-style Office file (.${type.ext})`, `Save it as .${type.ext}x and send it again.`];
    case "xlsm":
    case "xltx":
    case "xltm":
    case "pptm":
    case "potx":
    case "potm":
    case "ppsx":
    case "ppsm":
      return [
        `an Office .${type.ext} file`,
        `Save it as a plain .${type.ext.startsWith("x") ? "xlsx" : "pptx"} and send it again.`,
      ];
    case "docm":
    case "dotx":
    case "dotm":
      return [`a Word .${type.ext} file`, "Save it as a plain .docx and send it again."];
    default:
      return [`${type.ext.toUpperCase()} (${type.mime})`];
  }
}

/**
 * An Outlook item: a compound file whose directory names its properties "__substg1.0_…" (UTF-16LE, as
 * compound-file names are). Old .doc files and encrypted Office files are compound files too, without them.
 */
const MSG_PROPERTY_NAME = Buffer.from("__substg1.0_", "utf16le");
function isOutlookMessage(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(MSG_PROPERTY_NAME);
}

/**
 * An RFC 5322 message: from its first line, a block of header fields (or folded continuations) that holds a
 * From: field and one more of the fields every mail client writes, ended by a blank line. Read before the
 * text is decoded: mail may carry 8-bit text in any charset, which the decoder would refuse.
 */
const EMAIL_HEAD_BYTES = 64 * 1024;
const HEADER_LINE = /^(?:[!-9;-~]+:|[ \t])/;
const MAIL_FIELDS = /^(?:to|date|subject|message-id|mime-version|received|return-path|cc):/i;
function looksLikeEmail(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, EMAIL_HEAD_BYTES))
    .toString("latin1")
    .replace(/^\uFEFF/, "");
  const end = head.search(/\r?\n\r?\n/);
  if (end <= 0) return false;
  const lines = head.slice(0, end).split(/\r?\n/);
  if (!lines.every((line) => HEADER_LINE.test(line)) || /^[ \t]/.test(lines[0]!)) return false;
  return lines.some((line) => /^from:/i.test(line)) && lines.some((line) => MAIL_FIELDS.test(line));
}

/**
 * HTML if, after whitespace, comments and an XML declaration, the text opens
 * with a doctype or an html/head/body tag. Looking for those tags anywhere
 * near the start would also catch Markdown that shows HTML in a code block.
 */
const PROLOG = /^(?:\s+|<!--[\s\S]*?-->|<\?xml[^>]*\?>)*/;
const HTML_START = /^<(?:!doctype\s+html|html|head|body)(?=[\s>/])/i;
/** Bounds the prolog scan; no real page has 64 KB of comments before its first tag. */
const PROLOG_SCAN_CHARS = 64 * 1024;

function looksLikeHtml(text: string): boolean {
  const head = text.slice(0, PROLOG_SCAN_CHARS);
  const prolog = PROLOG.exec(head)?.[0].length ?? 0;
  return HTML_START.test(head.slice(prolog));
}

const TABLE_EXTENSION = /\.(csv|tsv|tab)$/i;
const TABLE_TYPES = new Set(["text/csv", "application/csv", "text/tab-separated-values"]);

/** Whether the name or type says CSV or TSV, and the table's name: the file's, without its extension. */
function tableHinted(hint: Hint): { name: string; tab: boolean } | undefined {
  const mediaType = hint.contentType?.split(";")[0]?.trim().toLowerCase();
  const filename = hint.filename?.trim() ?? "";
  const byName = TABLE_EXTENSION.test(filename);
  if (!byName && !(mediaType && TABLE_TYPES.has(mediaType))) return undefined;
  const base = filename.replace(/^.*[\\/]/, "").replace(TABLE_EXTENSION, "");
  return {
    name: base || "Table",
    tab: /\.(tsv|tab)$/i.test(filename) || mediaType === "text/tab-separated-values",
  };
}

const MARKDOWN_EXTENSION = /\.(md|markdown)$/i;
const MARKDOWN_TYPES = new Set(["text/markdown", "text/x-markdown"]);

function markdownHinted(hint: Hint): boolean {
  const mediaType = hint.contentType?.split(";")[0]?.trim().toLowerCase();
  if (mediaType && MARKDOWN_TYPES.has(mediaType)) return true;
  return hint.filename !== undefined && MARKDOWN_EXTENSION.test(hint.filename.trim());
}
