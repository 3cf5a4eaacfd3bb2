import type { ResultAnswer } from "@/web/api-client";

/** Files made in the browser from a result already on the page; nothing is fetched again. */
export interface DownloadFile {
  filename: string;
  mediaType: string;
  content: string;
}

/** The document's name without its extension, safe as a file name ("report" from "report.pdf"). */
export function baseName(filename: string | undefined): string {
  const stem = (filename ?? "").replace(/^.*[\\/]/, "").replace(/\.[^.]+$/, "");
  const safe = stem.replace(/[^\p{L}\p{N}._-]+/gu, "-").replace(/^-+|-+$/g, "");
  return safe || "document";
}

/** The whole result, as the API returned it, with the chunks inline. */
export function resultJson(result: ResultAnswer, chunks: readonly unknown[]): DownloadFile {
  return {
    filename: `${baseName(result.metadata.filename)}.${result.tier}.chunks.json`,
    mediaType: "application/json",
    content: `${JSON.stringify({ ...result, chunks }, null, 2)}\n`,
  };
}

/** One chunk (or record) per line. */
export function chunksJsonl(result: ResultAnswer, chunks: readonly unknown[]): DownloadFile {
  return {
    filename: `${baseName(result.metadata.filename)}.${result.tier}.chunks.jsonl`,
    mediaType: "application/jsonl",
    content: chunks.map((chunk) => `${JSON.stringify(chunk)}\n`).join(""),
  };
}

/** The vector-store records alone, ready for that store's client; null for raw output, which the JSON file already is. */
export function storeRecords(result: ResultAnswer, chunks: readonly unknown[]): DownloadFile | null {
  const format = result.metadata.output_format;
  if (format === "raw") return null;
  return {
    filename: `${baseName(result.metadata.filename)}.${result.tier}.${format}.json`,
    mediaType: "application/json",
    content: `${JSON.stringify(chunks, null, 2)}\n`,
  };
}

/** Saves through a Blob and an object URL, revoked once the browser has taken it. */
export function saveFile(file: DownloadFile): void {
  const url = URL.createObjectURL(new Blob([file.content], { type: `${file.mediaType};charset=utf-8` }));
  const link = document.createElement("a");
  link.href = url;
  link.download = file.filename;
  link.rel = "noopener";
  document.body.append(link);
  link.click();
  link.remove();
  // Revoking at once can cancel the download in some browsers.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
