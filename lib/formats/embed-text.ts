import type { DocumentKind } from "@/lib/extract/types";
import type { DocumentRef } from "./fields";
import { truncateUtf8 } from "./fit";
import type { Chunk } from "@/lib/chunking/types";

/** The most a prefix line may take: a path of real headings fits; a pathological one does not crowd out the chunk. */
const LINE_BYTES = 512;

/**
 * The text to embed for a chunk: a few lines saying where it sits (the document, its section path, its page),
 * then the chunk. A chunk cut from the middle of a manual ("Set it to 30 seconds.") is found by a question that
 * names the product or the section only if its vector knows them; the display text stays `text`. Deterministic
 * (no model): the same chunk of the same document always embeds the same way. The prefix adds a few to a few
 * dozen tokens to `max_tokens` (each line at most 512 bytes, cut with "…"). With `context=true` the model's context
 * (`metadata.context`, at most 600 characters) comes first.
 */
export function embedText(chunk: Chunk, doc: DocumentRef): string {
  const { headings, page_start: first, page_end: last, email, attachment } = chunk.metadata;
  const lines: string[] = [];
  if (doc.title) lines.push(truncateUtf8(`Document: ${doc.title}`, LINE_BYTES));
  if (email?.subject) lines.push(truncateUtf8(`E-mail: ${email.subject}`, LINE_BYTES));
  if (attachment) lines.push(truncateUtf8(`Attachment: ${attachment}`, LINE_BYTES));
  if (headings?.length) lines.push(truncateUtf8(`Section: ${headings.join(" > ")}`, LINE_BYTES));
  if (first !== undefined)
    lines.push(`${doc.pageUnit ?? "Page"} ${last === undefined || last === first ? first : `${first}-${last}`}`);
  const prefixed = lines.length ? `${lines.join("\n")}\n\n${chunk.text}` : chunk.text;
  // `context=true`: the model's situating sentences first, as contextual retrieval embeds them.
  return chunk.metadata.context ? `${chunk.metadata.context}\n\n${prefixed}` : prefixed;
}

/** What `page_start` counts in each kind of document, as the prefix names it. */
const PAGE_UNITS: Partial<Record<DocumentKind, string>> = {
  pdf: "Page",
  image: "Page",
  epub: "Chapter",
  pptx: "Slide",
  odp: "Slide",
  xlsx: "Sheet",
  ods: "Sheet",
  csv: "Sheet",
};

export const pageUnit = (kind: DocumentKind): string => PAGE_UNITS[kind] ?? "Page";

/**
 * A document's title for the prefix: its file name without the extension, unless it is the stand-in name a
 * document without one gets ("document"), which says nothing.
 */
export function documentTitle(filename: string): string | undefined {
  const title = filename.replace(/\.[A-Za-z0-9]{1,5}$/, "").trim();
  return title && title !== "document" ? title : undefined;
}
