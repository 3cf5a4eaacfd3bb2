import type { DocumentSource } from "@/web/api-client";
import { formatBytes } from "@/web/format";

/** The document picker's state: which way the document comes, and what was given each way (kept when switching). */
export interface SourceDraft {
  mode: "file" | "url";
  file: File | null;
  url: string;
}

export const emptySource: SourceDraft = { mode: "file", file: null, url: "" };

export const ACCEPTED_EXTENSIONS =
  ".pdf,.txt,.md,.html,.docx,.pptx,.odp,.xlsx,.ods,.csv,.tsv,.png,.jpg,.jpeg,.tif,.tiff,.webp,.epub,.odt,.rtf,.eml,.msg";

/** What is wrong with the draft, in words that say what to do; null when it can be sent. */
export function sourceProblem(draft: SourceDraft, maxUploadBytes: number): string | null {
  if (draft.mode === "file") {
    if (!draft.file) return "Choose a document to chunk: drop it on the box above or use “Choose a file”.";
    if (draft.file.size === 0) return `${draft.file.name} is empty. Choose a file with some text in it.`;
    if (draft.file.size > maxUploadBytes) {
      // Just over the limit rounds to the same figure ("25 MB … at most 25 MB"): then say it in bytes.
      const [size, limit] =
        formatBytes(draft.file.size) === formatBytes(maxUploadBytes)
          ? [`${draft.file.size.toLocaleString("en-US")} bytes`, `${maxUploadBytes.toLocaleString("en-US")} bytes`]
          : [formatBytes(draft.file.size), formatBytes(maxUploadBytes)];
      return `${draft.file.name} is ${size}; uploads can be at most ${limit}. Split or compress it, or give its URL instead.`;
    }
    return null;
  }
  const url = draft.url.trim();
  if (!url) return "Enter the address of the document, starting with https:// or http://.";
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "That is not a complete web address. It should look like https://example.com/paper.pdf.";
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
    return "Only http:// and https:// addresses can be fetched.";
  return null;
}

export function toDocumentSource(draft: SourceDraft): DocumentSource | null {
  if (draft.mode === "file") return draft.file ? { kind: "file", file: draft.file } : null;
  const url = draft.url.trim();
  return url ? { kind: "url", url } : null;
}
