/**
 * The stand-in's summaries: a chunk's is its first sentence or two (what the
 * chunk says, so headings, code and tables are passed over when there is
 * prose), a document's joins its first three section summaries. Extractive
 * and deterministic; a model would paraphrase.
 */
import { sentenceStarts } from "@/lib/chunking/text/prose-sentences";

export const CHUNK_SUMMARY_CHARS = 240;
export const DOCUMENT_SUMMARY_CHARS = 600;
/** How many section summaries the document summary is made of. */
const DOCUMENT_SUMMARY_PARTS = 3;

/** `text` cut to at most `max` characters at a word boundary, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  const space = head.lastIndexOf(" ");
  return `${(space > max / 2 ? head.slice(0, space) : head).replace(/[\s,;:.]+$/, "")}…`;
}

const flatten = (text: string) => text.replace(/\s+/g, " ").trim();

/** The chunk's prose lines, Markdown markers removed, and its heading lines, apart. */
function proseAndHeadings(text: string): { prose: string[]; headings: string[] } {
  const prose: string[] = [];
  const headings: string[] = [];
  let inCode = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (/^(?:```|~~~)/.test(line)) {
      inCode = !inCode;
      continue;
    }
    if (inCode || line === "" || line.startsWith("|") || /^[-=*_]{3,}$/.test(line)) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*$/.exec(line);
    if (heading) {
      headings.push(heading[1]!);
      continue;
    }
    prose.push(line.replace(/^(?:>\s*)+/, "").replace(/^(?:[-*+]|\d{1,3}[.)])\s+/, ""));
  }
  return { prose, headings };
}

/** The first sentence, and the second when both fit in CHUNK_SUMMARY_CHARS. */
export function summariseChunk(text: string): string {
  const { prose, headings } = proseAndHeadings(text);
  const body = flatten(prose.join("\n"));
  if (body === "") return clip(flatten(headings.join(". ")), CHUNK_SUMMARY_CHARS);
  const starts = [...sentenceStarts(body, 0, body.length), body.length];
  const first = body.slice(0, starts[0]).trim();
  const two = body.slice(0, starts[1] ?? body.length).trim();
  return clip(two.length <= CHUNK_SUMMARY_CHARS ? two : first, CHUNK_SUMMARY_CHARS);
}

export interface ShownChunk {
  index: number;
  text: string;
}

/** The `<chunk index="N">` elements of `chunkEnrichmentMessage`, in order. */
export function parseChunks(message: string): ShownChunk[] {
  return [...message.matchAll(/<chunk index="(\d+)">\n([^]*?)\n<\/chunk>/g)].map((m) => ({
    index: Number(m[1]),
    text: m[2]!,
  }));
}

/** The numbered lines of `documentSummaryMessage`. */
export function parseSectionSummaries(message: string): string[] {
  return [...message.matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]!.trim()).filter(Boolean);
}

/** The first three section summaries as one paragraph. */
export function summariseDocument(sectionSummaries: readonly string[]): string {
  const parts = sectionSummaries.slice(0, DOCUMENT_SUMMARY_PARTS).map((s) => (/[.!?…]$/.test(s) ? s : `${s}.`));
  return clip(parts.join(" "), DOCUMENT_SUMMARY_CHARS);
}

/** The first line of the document (or of its summary) a context message shows, clipped. */
export function documentOpening(message: string): string {
  const shown = /<(?:document|document_summary)>\n([^]*?)\n<\/(?:document|document_summary)>/.exec(message)?.[1] ?? "";
  // On the ai tier a long document's summary is its opening, under a line saying so.
  const line = shown.split("\n").find((l) => l.trim() !== "" && l !== "The document begins:") ?? "";
  return clip(flatten(line.replace(/^#+\s*/, "")), 80);
}

/** A context for a chunk: the document it is from (by its opening) and what the chunk says. */
export function situateChunk(opening: string, chunkText: string): string {
  const about = summariseChunk(chunkText);
  return opening ? `From the document that opens "${opening}": ${about}` : about;
}
