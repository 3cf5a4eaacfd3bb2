import type { ChunkBox } from "@/lib/api-schema";
import type { OutputFormat } from "@/web/api-client";

/**
 * One chunk as the results view shows it, whatever `output_format` the result
 * came in: raw chunks carry `{text, metadata}`, the vector-store formats carry
 * records (lib/formats/*.ts) that put the same fields in other places and
 * other value types. Reading them here keeps the list format-blind.
 */
export interface ChunkView {
  /** Position in the result, for keys and the "#n" label. */
  index: number;
  /** The record's id in a vector-store format. */
  recordId?: string;
  text: string;
  tokens?: number;
  characters: number;
  pageStart?: number;
  pageEnd?: number;
  /** Where its lines are on their pages (PDFs and images). */
  boxes: ChunkBox[];
  /** Lines read by OCR: Tesseract's confidence, 0-100. */
  ocrConfidence?: number;
  headings: string[];
  summary?: string;
  entities: Entity[];
  /** Lower-cased text for search, computed once. */
  searchText: string;
  /** The record as received, for copying and the "record" disclosure. */
  record: unknown;
}

export interface Entity {
  text: string;
  type: string;
}

/** A line of a chunk on its page: shares (0-1) of the page as shown, from its top left corner. */
export type { ChunkBox };

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const str = (value: unknown) => (typeof value === "string" ? value : undefined);
const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
const strings = (value: unknown) =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

function entityList(value: unknown): Entity[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item): Entity[] => {
    if (isObject(item) && typeof item.text === "string") return [{ text: item.text, type: str(item.type) ?? "other" }];
    // Pinecone keeps "type:text" strings (metadata takes no objects).
    if (typeof item === "string") {
      const colon = item.indexOf(":");
      return colon > 0
        ? [{ type: item.slice(0, colon), text: item.slice(colon + 1) }]
        : [{ type: "other", text: item }];
    }
    return [];
  });
}

/** Chroma keeps entities as a JSON string and headings as "A > B". */
function chromaEntities(value: unknown): Entity[] {
  if (typeof value !== "string") return [];
  try {
    return entityList(JSON.parse(value));
  } catch {
    return [];
  }
}

/** Boxes as objects (raw, Weaviate, Qdrant) or as one JSON string of them (Pinecone and Chroma take no objects). */
function boxList(value: unknown): ChunkBox[] {
  let list = value;
  if (typeof value === "string") {
    try {
      list = JSON.parse(value);
    } catch {
      return [];
    }
  }
  if (!Array.isArray(list)) return [];
  return list.flatMap((item): ChunkBox[] => {
    if (!isObject(item)) return [];
    const [page, x0, y0, x1, y1] = [item.page, item.x0, item.y0, item.x1, item.y1].map(num);
    return page !== undefined && x0 !== undefined && y0 !== undefined && x1 !== undefined && y1 !== undefined
      ? [{ page, x0, y0, x1, y1 }]
      : [];
  });
}

const fromOffset = (text: string | undefined, offset: unknown) => (text ?? "").slice(num(offset) ?? 0);

/** Where each format keeps the text, the id and the metadata fields. */
function locate(record: unknown, format: OutputFormat): { id?: string; text: string; fields: Fields } {
  const r = isObject(record) ? record : {};
  switch (format) {
    // Pinecone and Chroma embed the field holding the text, so it starts with embed_text's prefix: shown from `text_offset`.
    case "pinecone":
      return { id: str(r._id), text: fromOffset(str(r.chunk_text), r.text_offset), fields: r };
    case "chroma": {
      const fields = isObject(r.metadata) ? r.metadata : {};
      return { id: str(r.id), text: fromOffset(str(r.document), fields.text_offset), fields };
    }
    case "weaviate":
      return {
        id: str(r.id),
        text: str(isObject(r.properties) ? r.properties.text : undefined) ?? "",
        fields: isObject(r.properties) ? r.properties : {},
      };
    case "qdrant":
      return {
        id: str(r.id),
        text: str(isObject(r.payload) ? r.payload.text : undefined) ?? "",
        fields: isObject(r.payload) ? r.payload : {},
      };
    default:
      return { text: str(r.text) ?? "", fields: isObject(r.metadata) ? r.metadata : {} };
  }
}

function toChunkView(record: unknown, format: OutputFormat, position: number): ChunkView {
  const { id, text, fields } = locate(record, format);
  const headings =
    format === "chroma" ? (str(fields.headings)?.split(" > ").filter(Boolean) ?? []) : strings(fields.headings);
  const entities = format === "chroma" ? chromaEntities(fields.entities) : entityList(fields.entities);
  const index = num(fields.chunk_index) ?? position;
  return {
    index,
    recordId: id,
    text,
    tokens: num(fields.token_count),
    characters: num(fields.char_count) ?? [...text].length,
    pageStart: num(fields.page_start),
    pageEnd: num(fields.page_end),
    boxes: boxList(fields.boxes),
    ocrConfidence: num(fields.ocr_confidence),
    headings,
    summary: str(fields.summary) || undefined,
    entities,
    searchText: [text, headings.join(" "), str(fields.summary) ?? "", entities.map((e) => e.text).join(" ")]
      .join("\n")
      .toLowerCase(),
    record,
  };
}

export const toChunkViews = (records: readonly unknown[], format: OutputFormat): ChunkView[] =>
  records.map((record, i) => toChunkView(record, format, i));

/** Case-insensitive substring search over text, section path, summary and entities. */
export function filterChunks(chunks: readonly ChunkView[], query: string): readonly ChunkView[] {
  const needle = query.trim().toLowerCase();
  return needle ? chunks.filter((chunk) => chunk.searchText.includes(needle)) : chunks;
}

export function pagesLabel(chunk: Pick<ChunkView, "pageStart" | "pageEnd">): string | null {
  if (chunk.pageStart === undefined) return null;
  return chunk.pageEnd === undefined || chunk.pageEnd === chunk.pageStart
    ? `p. ${chunk.pageStart}`
    : `pp. ${chunk.pageStart}–${chunk.pageEnd}`;
}
