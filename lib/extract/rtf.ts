import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import iconv from "iconv-lite";
import { Tokenize } from "rtf-stream-parser";
import { ToPlainText } from "rtf-stream-parser/dist/src/ToPlainText";
import { ignoreOptionalDestOutput } from "rtf-stream-parser/dist/src/features/ignoreOptionalDestOutput";
import type { ControlToken, Token } from "rtf-stream-parser/dist/src/tokenize";
import { ApiError } from "@/lib/ground/errors";
import { failures } from "@/lib/extract/failures";
import { htmlToMarkdown } from "@/lib/extract/html";
import type { ExtractLimits } from "@/lib/extract/types";
import { withWorker } from "@/lib/extract/worker";

/**
 * RTF → HTML → Markdown, in JavaScript (no system binary: it runs on Vercel).
 *
 * rtf-stream-parser (maintained, no dependencies; made for Outlook's RTF
 * bodies) tokenizes and decodes the text: code pages, \u escapes and their
 * fallbacks, font charsets, symbol fonts, hidden destinations. It has no notion
 * of paragraphs, tables or notes, and the packages that have one are
 * unmaintained and lose them (@iarna/rtf-to-html, on rtf-parser, drops tables
 * and headings: pandoc's table_simple.rtf came out empty); rtf.js needs a DOM.
 * So the structure is read here, from the control words, on top of its decoder:
 *
 * - headings: a paragraph whose style is named "heading N" / "Title", or that
 *   carries \outlinelevelN;
 * - lists: paragraphs with \ls (Word 97+) or \pntext (older), nested by
 *   \ilvl, numbered when their list text is a number;
 * - tables: \intbl paragraphs, \cell, \row; a \trhdr row is the header;
 *   nested tables (\nestcell) are flattened into their outer cell;
 * - footnotes: a numbered reference in place, the notes listed at the end.
 *
 * Groups nest at most `markup.maxDepth` deep (the decoder keeps a state per
 * open group, and each lookup walks them), and the whole read is bounded by the
 * extraction deadline.
 */

/** Destinations whose text is the document's; every other destination (fonts, styles, pictures, field codes, headers) is not. */
const TEXT_DESTINATIONS = new Set(["rtf", "footnote", "fldrslt", "field", "listtext", "pntext", "pntxta", "pntxtb"]);
const LIST_TEXT = new Set(["listtext", "pntext"]);

interface ParagraphProps {
  style: number;
  outline?: number;
  inTable: boolean;
  list?: { id: number; level: number };
}

const PLAIN: ParagraphProps = { style: 0, inTable: false };

interface Block {
  kind: "p" | "heading" | "item";
  html: string;
  level: number;
  ordered?: boolean;
  list?: number;
}

class RtfToHtml extends ToPlainText {
  private depth = 0;
  private tokens = 0;
  private readonly styles = new Map<number, string>();
  private styleName = "";
  private styleNumber = 0;
  private paragraph = "";
  private listText = "";
  private cell = "";
  private row: string[] = [];
  private rowIsHeader = false;
  private table: { head?: string[]; rows: string[][] } | undefined;
  private readonly notes: string[] = [];
  private readonly blocks: Block[] = [];

  constructor(
    private readonly maxDepth: number,
    private readonly deadline: number,
  ) {
    super({ decode: (buf, enc) => iconv.decode(buf, enc), warn: () => {}, allowCp0: true });
    // The decoder drops the style sheet's and the legacy list text's output; both are read here (style names,
    // list numbers). Ignorable destinations (\*) stay dropped; every other non-text destination is dropped below.
    const dropping = this._featureHandlers.indexOf(ignoreOptionalDestOutput);
    this._featureHandlers.splice(dropping, 1, {
      outputDataFilter: (global) => (global._state.destIgnorable ? true : undefined),
    });
    this._featureHandlers.splice(0, 0, {
      allTokenHandler: (_global, token) => this.count(token),
      controlHandlers: Object.fromEntries(
        [
          "cs",
          "ds",
          "ts",
          "par",
          "\n",
          "\r",
          "sect",
          "page",
          "pard",
          "s",
          "outlinelevel",
          "intbl",
          "ls",
          "ilvl",
          "cell",
          "nestcell",
          "row",
          "trhdr",
          "footnote",
          "chftn",
        ].map((word) => [word, (_global: unknown, token: ControlToken) => this.control(token)]),
      ),
    });
  }

  private get props(): ParagraphProps {
    return (this._state as unknown as { para?: ParagraphProps }).para ?? PLAIN;
  }

  private set props(value: ParagraphProps) {
    (this._state as unknown as { para?: ParagraphProps }).para = value;
  }

  private destinations(): Record<string, boolean> {
    return (this._state as unknown as { allDestinations?: Record<string, boolean> }).allDestinations ?? {};
  }

  private count(token: Token): void {
    // Token types are a const enum the package does not export at run time: 0 opens a group, 1 closes one.
    const type = token.type as number;
    if (type === 0 && ++this.depth > this.maxDepth) throw new GroupsTooDeep(this.maxDepth);
    if (type === 1) {
      this.depth--;
      if (this.destinations().stylesheet && this.styleName) {
        // Character, section and table styles (\cs, \ds, \ts) have numbers of their own.
        if (this.styleNumber >= 0) this.styles.set(this.styleNumber, this.styleName.replace(/;\s*$/, "").trim());
        this.styleName = "";
        this.styleNumber = 0;
      }
    }
    if (++this.tokens % 4096 === 0 && Date.now() > this.deadline) throw new ReadingTooSlow();
  }

  /** Structure words: true when handled (the decoder's own handling of them, text escapes, is skipped). */
  private control(token: ControlToken): true | undefined {
    const destinations = this.destinations();
    if (destinations.stylesheet) {
      if (token.word === "s") this.styleNumber = token.param ?? 0;
      else if (token.word !== "ls" && token.word !== "outlinelevel") this.styleNumber = -1;
      return undefined;
    }
    const inNote = destinations.footnote === true;
    switch (token.word) {
      case "footnote":
        // The decoder has already opened the footnote destination: a note inside a note is one whose outer group was one.
        if (
          !(Object.getPrototypeOf(this._state) as { allDestinations?: Record<string, boolean> }).allDestinations
            ?.footnote
        ) {
          this.notes.push("");
          this.paragraph += `<sup><a href="#note-${this.notes.length}">[${this.notes.length}]</a></sup>`;
        }
        return undefined;
      case "chftn":
        return true;
      case "cs":
      case "ds":
      case "ts":
        return undefined;
      case "pard":
        this.props = PLAIN;
        return true;
      case "s":
        this.props = { ...this.props, style: token.param ?? 0 };
        return true;
      case "outlinelevel":
        this.props = { ...this.props, outline: token.param ?? 0 };
        return true;
      case "intbl":
        this.props = { ...this.props, inTable: true };
        return true;
      case "ls":
        this.props = { ...this.props, list: { id: token.param ?? 0, level: this.props.list?.level ?? 0 } };
        return true;
      case "ilvl":
        this.props = { ...this.props, list: { id: this.props.list?.id ?? 0, level: Math.min(9, token.param ?? 0) } };
        return true;
      case "trhdr":
        this.rowIsHeader = true;
        return true;
      case "nestcell":
        this.cell += ` ${this.paragraph} `;
        this.paragraph = "";
        return true;
      case "cell":
        this.row.push((this.cell + this.paragraph).trim());
        this.cell = "";
        this.paragraph = "";
        return true;
      case "row":
        if (this.cell || this.paragraph) this.row.push((this.cell + this.paragraph).trim());
        this.table ??= { rows: [] };
        if (this.rowIsHeader && this.table.rows.length === 0 && !this.table.head) this.table.head = this.row;
        else this.table.rows.push(this.row);
        this.row = [];
        this.cell = "";
        this.paragraph = "";
        this.rowIsHeader = false;
        return true;
      default:
        // \par, \sect, \page: a paragraph ends.
        if (inNote) {
          this.notes[this.notes.length - 1] += `${this.paragraph} `;
          this.paragraph = "";
        } else this.endParagraph();
        return true;
    }
  }

  override _pushOutputData(text: string): void {
    const destinations = this.destinations();
    if (destinations.stylesheet) {
      this.styleName += text;
      return;
    }
    if (!Object.keys(allKeys(destinations)).every((name) => TEXT_DESTINATIONS.has(name))) return;
    if ([...LIST_TEXT].some((name) => destinations[name])) {
      this.listText += text;
      return;
    }
    const html = escapeHtml(text.replace(/\r\n/g, " "));
    if (destinations.footnote) this.notes[this.notes.length - 1] += html;
    else this.paragraph += html;
  }

  private endParagraph(): void {
    const props = this.props;
    if (props.inTable) {
      // A paragraph break inside a cell.
      this.paragraph += "<br>";
      return;
    }
    this.closeTable();
    const html = this.paragraph.trim();
    const listText = this.listText.trim();
    this.paragraph = "";
    this.listText = "";
    if (html === "") return;
    const style = this.styles.get(props.style) ?? "";
    const named = /^heading\s*(\d)/i.exec(style);
    const heading = named ? Number(named[1]) : /^title$/i.test(style) ? 1 : undefined;
    if (heading !== undefined || (props.outline !== undefined && props.outline < 9))
      this.blocks.push({ kind: "heading", html, level: Math.min(6, heading ?? props.outline! + 1) });
    else if (props.list || listText)
      this.blocks.push({
        kind: "item",
        html,
        level: props.list?.level ?? 0,
        list: props.list?.id,
        ordered: /^\(?\w{1,4}[.)]/.test(listText),
      });
    else this.blocks.push({ kind: "p", html, level: 0 });
  }

  private closeTable(): void {
    const table = this.table;
    if (!table) return;
    this.table = undefined;
    const row = (cells: string[], tag: "td" | "th") => `<tr>${cells.map((c) => `<${tag}>${c}</${tag}>`).join("")}</tr>`;
    const head = table.head ? `<thead>${row(table.head, "th")}</thead>` : "";
    this.blocks.push({
      kind: "p",
      level: 0,
      html: `<table>${head}<tbody>${table.rows.map((r) => row(r, "td")).join("")}</tbody></table>`,
    });
  }

  html(): string {
    this.endParagraph();
    this.closeTable();
    let out = "";
    const open: ("ul" | "ol")[] = [];
    let list: number | undefined;
    for (const block of this.blocks) {
      let depth = block.kind === "item" ? block.level + 1 : 0;
      // Another list (\ls) starts afresh.
      if (block.kind === "item" && block.list !== list) {
        while (open.length) out += `</li></${open.pop()}>`;
        depth = 1;
      }
      list = block.list;
      while (open.length > depth) out += `</li></${open.pop()}>`;
      if (block.kind === "item") {
        if (open.length === depth) out += "</li><li>";
        while (open.length < depth) {
          const tag = block.ordered ? "ol" : "ul";
          out += `<${tag}><li>`;
          open.push(tag);
        }
        out += block.html;
      } else if (block.kind === "heading") out += `<h${block.level}>${block.html}</h${block.level}>`;
      else out += block.html.startsWith("<table>") ? block.html : `<p>${block.html}</p>`;
    }
    while (open.length) out += `</li></${open.pop()}>`;
    if (this.notes.length)
      out += `<hr><ol>${this.notes.map((note, i) => `<li id="note-${i + 1}">${note.trim()}</li>`).join("")}</ol>`;
    return out;
  }
}

/** The destination flags of a group, its enclosing groups' included (they are inherited through the prototype chain). */
function allKeys(destinations: Record<string, boolean>): Record<string, boolean> {
  const keys: Record<string, boolean> = {};
  for (const key in destinations) keys[key] = true;
  return keys;
}

class GroupsTooDeep extends Error {
  constructor(readonly max: number) {
    super(`RTF groups nest more than ${max} deep`);
  }
}
class ReadingTooSlow extends Error {}

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Bytes fed to the tokenizer per step: the stream yields to the event loop between steps, so a large RTF does not stall the server. */
const SLICE_BYTES = 64 * 1024;

function* slices(bytes: Uint8Array): Generator<Buffer> {
  for (let at = 0; at < bytes.length; at += SLICE_BYTES)
    yield Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(SLICE_BYTES, bytes.length - at));
}

/** The RTF's HTML: structure as described above. Exported for tests. */
async function rtfToHtml(bytes: Uint8Array, maxDepth: number, timeoutMs: number): Promise<string> {
  const reader = new RtfToHtml(maxDepth, Date.now() + timeoutMs);
  try {
    await pipeline(Readable.from(slices(bytes)), new Tokenize(), reader);
  } catch (error) {
    if (error instanceof GroupsTooDeep)
      throw failures.markupTooComplex({ limit: "depth", found: error.max + 1, max: error.max });
    if (error instanceof ReadingTooSlow) throw failures.tooComplex("time");
    if (error instanceof ApiError) throw error;
    throw failures.corruptedDocument("This RTF document", error instanceof Error ? error.message : undefined);
  }
  return reader.html();
}

export async function extractRtf(
  bytes: Uint8Array,
  limits: Pick<ExtractLimits, "markup" | "timeoutMs">,
): Promise<string> {
  const html = await rtfToHtml(bytes, limits.markup.maxDepth, limits.timeoutMs);
  const damaged = () => failures.corruptedDocument("This RTF document");
  return withWorker({ timeoutMs: limits.timeoutMs, damaged }, (worker) => htmlToMarkdown(worker, html, limits.markup));
}
