import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { v5 as uuidv5, version as uuidVersion } from "uuid";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadConfig } from "@/lib/ground/config";
import { createEmbedder } from "@/lib/embeddings";
import { type DocumentRef, type Entity, type OutputFormat, formatChunks } from "@/lib/formats";
import { fitJsonString, truncateUtf8 } from "@/lib/formats/fit";
import { buildResult, extractDocument, loaded } from "@/lib/pipeline/chunk-result";
import type { TierId } from "@/lib/tiers";
import type { Chunk } from "@/lib/chunking/types";

const root = path.join(import.meta.dirname, "..");
const config = loadConfig({});
const context = { embedder: createEmbedder(config.embeddings) };
const bytes = (s: string) => Buffer.byteLength(s, "utf8");
const jsonBytes = (value: unknown) => bytes(JSON.stringify(value));

interface Chunking {
  tier?: TierId;
  maxTokens?: number;
  overlapTokens?: number;
  format?: OutputFormat;
}

/** The pipeline's core, as the API and the command line run it: load, extract, chunk, format. */
async function chunkDocument(
  source: Uint8Array,
  filename: string,
  { tier = "free", maxTokens = 64, overlapTokens = 8, format = "raw" }: Chunking = {},
) {
  const doc = loaded({ bytes: source, filename });
  const extracted = await extractDocument(doc, config);
  const result = await buildResult(
    doc,
    extracted,
    tier,
    { maxTokens, overlapTokens, outputFormat: format, includeNotes: true },
    context,
  );
  const ref: DocumentRef = { documentId: doc.documentId, filename: doc.filename, tier, maxTokens, overlapTokens };
  return { records: JSON.parse(result.chunksJson) as unknown[], ref };
}

const fixture = (name: string) => new Uint8Array(readFileSync(path.join(root, "tests/fixtures", name)));
const chunkFixture = (name: string, chunking: Chunking = {}) => chunkDocument(fixture(name), name, chunking);
const rawChunks = async (name: string, chunking: Omit<Chunking, "format"> = {}) => {
  const { records, ref } = await chunkFixture(name, chunking);
  return { chunks: records as Chunk[], ref };
};

// ---- Each store's value rules, written from its documentation, independent of the formatter ----

const utf8Max = (max: number) => (s: string) => bytes(s) <= max;
const finite = z.number().finite();

/** Pinecone: string, number, boolean or list of strings; no null, no nested objects; keys not starting with "$"; id up to 512 characters; metadata up to 40 KB. */
const PineconeRule = z
  .object({ _id: z.string().min(1).max(512), chunk_text: z.string().min(1) })
  .catchall(z.union([z.string(), finite, z.boolean(), z.array(z.string()).min(1)]))
  .refine((record) => Object.keys(record).every((key) => !key.startsWith("$")), "metadata key starts with $")
  .refine(({ _id, ...metadata }) => jsonBytes(metadata) <= 40_000, "record over 40 KB");

/** Chroma (scalars, Chroma Cloud quotas): values string ≤ 4 KB, number, boolean; no null; keys ≤ 36 bytes, at most 32; id ≤ 128 bytes. */
const ChromaRule = z.strictObject({
  id: z.string().min(1).refine(utf8Max(128), "id over 128 bytes"),
  document: z.string().min(1),
  metadata: z
    .record(
      z.string().refine(utf8Max(36), "key over 36 bytes"),
      z.union([z.string().refine(utf8Max(4096), "value over 4 KB"), finite, z.boolean()]),
    )
    .refine((m) => Object.keys(m).length >= 1 && Object.keys(m).length <= 32, "1 to 32 keys"),
});

/** Weaviate: property names are GraphQL names and not reserved; values text, number, boolean, their non-empty lists, nested objects; UUID ids. */
const graphqlName = z
  .string()
  .regex(/^[_A-Za-z][_0-9A-Za-z]*$/)
  .refine((name) => !["id", "_id", "_additional"].includes(name), "reserved property name");
const weaviateScalar = z.union([z.string(), finite, z.boolean()]);
const weaviateNested = z.record(graphqlName, weaviateScalar);
const WeaviateRule = z.strictObject({
  id: z.uuid(),
  properties: z.record(
    graphqlName,
    z.union([weaviateScalar, z.array(z.string()).min(1), z.array(finite).min(1), z.array(weaviateNested).min(1)]),
  ),
});

/** Qdrant: id a UUID or an unsigned integer; payload JSON (we also promise no nulls). */
type Json = string | number | boolean | Json[] | { [key: string]: Json };
const json: z.ZodType<Json> = z.lazy(() =>
  z.union([z.string(), finite, z.boolean(), z.array(json), z.record(z.string(), json)]),
);
const QdrantRule = z.strictObject({
  id: z.union([z.uuid(), z.number().int().nonnegative()]),
  payload: z.record(z.string(), json),
});

const RULES = { pinecone: PineconeRule, chroma: ChromaRule, weaviate: WeaviateRule, qdrant: QdrantRule } as const;
const STORES = Object.keys(RULES) as (keyof typeof RULES)[];

function expectStoreRules(format: keyof typeof RULES, records: unknown[]) {
  for (const [i, record] of records.entries()) {
    const parsed = RULES[format].safeParse(record);
    expect(parsed.success, `${format} record ${i}: ${parsed.error?.message}`).toBe(true);
    // What goes over the wire: nothing undefined, NaN or otherwise lost in JSON.
    expect(JSON.parse(JSON.stringify(record))).toStrictEqual(record);
  }
}

const idOf = (format: keyof typeof RULES, record: any): string => (format === "pinecone" ? record._id : record.id);
/** The chunk to show: Pinecone's and Chroma's embedded field holds the text to embed, the chunk from `text_offset`. */
const textOf = (format: keyof typeof RULES, record: any): string =>
  format === "pinecone"
    ? record.chunk_text.slice(record.text_offset)
    : format === "chroma"
      ? record.document.slice(record.metadata.text_offset)
      : format === "weaviate"
        ? record.properties.text
        : record.payload.text;
/** Where each store embeds from: what its client or vectorizer is pointed at. */
const embeddedOf = (format: keyof typeof RULES, record: any): string =>
  format === "pinecone"
    ? record.chunk_text
    : format === "chroma"
      ? record.document
      : format === "weaviate"
        ? record.properties.embed_text
        : record.payload.embed_text;
const fieldsOf = (format: keyof typeof RULES, record: any): Record<string, unknown> =>
  format === "pinecone"
    ? record
    : format === "chroma"
      ? record.metadata
      : format === "weaviate"
        ? record.properties
        : record.payload;

const FIXTURES = ["multipage.pdf", "notes.md", "report.docx", "page.html", "cjk.txt", "emoji.txt"];

describe("vector-store records from real chunking results", () => {
  it("obey each store's value rules, keep every chunk's text whole, and leave absent fields out", async () => {
    for (const name of FIXTURES) {
      const { chunks } = await rawChunks(name);
      expect(chunks.length, name).toBeGreaterThan(1);
      for (const format of STORES) {
        const { records } = await chunkFixture(name, { format });
        expect(records, `${name} ${format}`).toHaveLength(chunks.length);
        expectStoreRules(format, records);
        expect(new Set(records.map((r) => idOf(format, r))).size, `${name} ${format}: ids unique`).toBe(records.length);
        records.forEach((record, i) => {
          const fields = fieldsOf(format, record);
          expect(textOf(format, record)).toBe(chunks[i]!.text);
          expect(embeddedOf(format, record)).toBe((chunks[i] as Chunk & { embed_text: string }).embed_text);
          expect(fields).toMatchObject({
            chunk_index: i,
            token_count: chunks[i]!.metadata.token_count,
            start: chunks[i]!.metadata.start,
            end: chunks[i]!.metadata.end,
            filename: name,
          });
          if (name.endsWith(".pdf")) {
            expect(fields).toMatchObject({
              page_start: chunks[i]!.metadata.page_start,
              page_end: chunks[i]!.metadata.page_end,
            });
            // Lists of objects where the store takes them, a JSON string where it does not.
            const boxes =
              format === "pinecone" || format === "chroma" ? JSON.parse(String(fields.boxes)) : fields.boxes;
            expect(boxes).toEqual(chunks[i]!.metadata.boxes);
            expect(boxes.length).toBeGreaterThan(0);
          } else {
            expect(Object.keys(fields)).not.toContain("page_start");
            expect(Object.keys(fields)).not.toContain("boxes");
          }
        });
      }
    }
  });
});

const HEADINGS = ["Release checklist", "Commands"];
const SUMMARY = "How to type-check and test before tagging a release.";
const ENTITIES: Entity[] = [
  { text: "Ana", type: "people" },
  { text: "Bo", type: "people" },
  { text: "npm", type: "products" },
];
const enrich = (chunks: Chunk[], extra: Pick<Chunk["metadata"], "headings" | "summary" | "entities">): Chunk[] =>
  chunks.map((chunk) => ({ text: chunk.text, metadata: { ...chunk.metadata, ...extra } }));

describe("headings, summary and entities", () => {
  it("take the shape each store accepts: lists where allowed, strings where only scalars are", async () => {
    const { chunks, ref } = await rawChunks("notes.md");
    const enriched = enrich(chunks, { headings: HEADINGS, summary: SUMMARY, entities: ENTITIES });

    const pinecone = formatChunks(enriched, "pinecone", ref);
    expectStoreRules("pinecone", pinecone);
    expect(pinecone[0]).toMatchObject({
      headings: HEADINGS,
      summary: SUMMARY,
      entities: ["people:Ana", "people:Bo", "products:npm"],
    });

    const chroma = formatChunks(enriched, "chroma", ref);
    expectStoreRules("chroma", chroma);
    expect(chroma[0]!.metadata).toMatchObject({ headings: "Release checklist > Commands", summary: SUMMARY });
    expect(JSON.parse(String(chroma[0]!.metadata.entities))).toEqual(ENTITIES);

    for (const format of ["weaviate", "qdrant"] as const) {
      const records = formatChunks(enriched, format, ref);
      expectStoreRules(format, records);
      expect(fieldsOf(format, records[0])).toMatchObject({ headings: HEADINGS, summary: SUMMARY, entities: ENTITIES });
    }
    for (const format of STORES)
      expect(Object.keys(fieldsOf(format, formatChunks(enriched, format, ref)[0]))).not.toContain("truncated_fields");
  });

  it("are left out, not sent empty or null, when a chunk has none", async () => {
    const { chunks, ref } = await rawChunks("notes.md");
    const empty = enrich(chunks, { headings: [], summary: "", entities: [] });
    for (const format of STORES) {
      const records = formatChunks(empty, format, ref);
      expectStoreRules(format, records);
      for (const key of ["headings", "summary", "entities"])
        expect(Object.keys(fieldsOf(format, records[0]))).not.toContain(key);
    }
  });
});

describe("boxes and OCR confidence", () => {
  it("carry every box where the store has room, and as many whole boxes as fit where it has not", async () => {
    const { chunks, ref } = await rawChunks("multipage.pdf");
    // A chunk of 400 lines (a page of small print): its boxes are over Pinecone's and Chroma's per-field budgets.
    const boxes = Array.from({ length: 400 }, (_, i) => ({
      page: 1,
      x0: 0.1,
      y0: i / 400,
      x1: 0.9,
      y1: (i + 1) / 400,
    }));
    const many: Chunk[] = [
      { text: chunks[0]!.text, metadata: { ...chunks[0]!.metadata, boxes, ocr_confidence: 91.5 } },
    ];
    for (const format of STORES) {
      const [record] = formatChunks(many, format, ref);
      expectStoreRules(format, [record]);
      const fields = fieldsOf(format, record);
      expect(fields.ocr_confidence).toBe(91.5);
      if (format === "weaviate" || format === "qdrant") {
        expect(fields.boxes).toEqual(boxes);
        expect(Object.keys(fields)).not.toContain("truncated_fields");
        continue;
      }
      const kept = JSON.parse(String(fields.boxes)) as typeof boxes;
      expect(kept.length).toBeGreaterThan(10);
      expect(kept).toEqual(boxes.slice(0, kept.length));
      expect(kept.length).toBeLessThan(boxes.length);
      expect(format === "pinecone" ? fields.truncated_fields : String(fields.truncated_fields).split(",")).toEqual([
        "boxes",
      ]);
    }
  });
});

/** Where a grapheme cluster starts in `text`, plus its end: the only places a cut may fall. Memoised: the long originals are segmented once. */
const boundaryCache = new Map<string, Set<number>>();
function graphemeBoundaries(text: string): Set<number> {
  let found = boundaryCache.get(text);
  if (!found)
    boundaryCache.set(
      text,
      (found = new Set(
        [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text)]
          .map((s) => s.index)
          .concat(text.length),
      )),
    );
  return found;
}

/** `cut` is `original`, or a prefix of it ending between graphemes followed by "…". */
function expectCutOf(cut: string, original: string) {
  if (cut === original) return;
  expect(cut.endsWith("…"), cut.slice(-20)).toBe(true);
  const kept = cut.slice(0, -1);
  expect(original.startsWith(kept)).toBe(true);
  expect(graphemeBoundaries(original).has(kept.length)).toBe(true);
  expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/); // no lone surrogate
}

describe("size limits", () => {
  it('cut text at every byte budget to the longest whole-grapheme prefix that fits with its "…"', () => {
    // ZWJ family, flag, keycap, combining accent, CJK, a quote JSON must escape.
    const text = `a👩‍👩‍👧‍👦b🇳🇴c1️⃣de\u0301東"e\\`;
    const starts = [...graphemeBoundaries(text)].sort((x, y) => x - y);
    for (let budget = 0; budget <= bytes(text) + 1; budget++) {
      const cut = truncateUtf8(text, budget);
      if (bytes(text) <= budget) {
        expect(cut).toBe(text);
        continue;
      }
      expect(bytes(cut), `budget ${budget}`).toBeLessThanOrEqual(budget);
      if (budget < 3) {
        expect(cut).toBe("");
        continue;
      }
      expectCutOf(cut, text);
      // Longest: the next whole grapheme would not have fitted.
      const kept = cut.length - 1;
      const next = starts.find((p) => p > kept)!;
      expect(bytes(text.slice(0, next)) + 3, `budget ${budget}`).toBeGreaterThan(budget);

      const quoted = fitJsonString(text, budget);
      expect(jsonBytes(quoted), `JSON budget ${budget}`).toBeLessThanOrEqual(budget);
      if (quoted) expectCutOf(quoted, text);
    }
  });

  // Multi-byte text, ZWJ emoji and combining marks, and characters JSON escapes, so byte counts, grapheme edges and escapes all matter.
  const unit = 'Fjörð "quoted" \\ 東京 👩‍👩‍👧‍👦 🇳🇴 é ';
  const hugeHeadings = Array.from({ length: 60 }, (_, i) => `${i + 1}. ${unit.repeat(8)}`);
  const hugeSummary = unit.repeat(800);
  const hugeEntities: Entity[] = Array.from({ length: 3000 }, (_, i) => ({
    text: `Entity ${i} ${unit}`,
    type: i % 2 ? "organisations" : "places",
  }));

  it("cut the derived fields to Pinecone's 40 KB and Chroma's 4 KB per value, say so, and never cut the chunk", async () => {
    const { chunks, ref } = await rawChunks("cjk.txt", { maxTokens: 1024, overlapTokens: 0 });
    const enriched = enrich(chunks, { headings: hugeHeadings, summary: hugeSummary, entities: hugeEntities });

    const pinecone = formatChunks(enriched, "pinecone", ref);
    expectStoreRules("pinecone", pinecone);
    for (const [i, record] of pinecone.entries()) {
      expect(textOf("pinecone", record)).toBe(chunks[i]!.text);
      expect(record.truncated_fields).toEqual(["headings", "summary", "entities"]);
      const headings = record.headings as string[];
      expect(headings.length).toBeGreaterThan(0);
      headings.forEach((heading, h) => expectCutOf(heading, hugeHeadings[h]!));
      expectCutOf(record.summary as string, hugeSummary);
      expect(record.entities).toEqual(
        hugeEntities.slice(0, (record.entities as string[]).length).map((e) => `${e.type}:${e.text}`),
      );
    }

    const chroma = formatChunks(enriched, "chroma", ref);
    expectStoreRules("chroma", chroma);
    for (const [i, { document, metadata }] of chroma.entries()) {
      expect(document.slice(Number(metadata.text_offset))).toBe(chunks[i]!.text);
      expect(metadata.truncated_fields).toBe("headings,summary,entities");
      expectCutOf(String(metadata.headings), hugeHeadings.join(" > "));
      expectCutOf(String(metadata.summary), hugeSummary);
      const entities = JSON.parse(String(metadata.entities)) as Entity[];
      expect(entities.length).toBeGreaterThan(0);
      expect(entities).toEqual(hugeEntities.slice(0, entities.length));
    }

    // No small limits there: everything arrives whole.
    for (const format of ["weaviate", "qdrant"] as const) {
      const records = formatChunks(enriched, format, ref);
      expectStoreRules(format, records);
      expect(fieldsOf(format, records[0])).toMatchObject({
        text: chunks[0]!.text,
        headings: hugeHeadings,
        summary: hugeSummary,
        entities: hugeEntities,
      });
    }
  });

  it("keep a Pinecone record with a near-40 KB chunk within 40 KB by giving the derived fields only what the chunk leaves", async () => {
    // One long chunk through the real pipeline: ~30 KB of prose at max_tokens 8192.
    const prose = Array.from(
      { length: 400 },
      (_, i) => `Paragraph ${i} explains the release steps in plain words, one after another.`,
    ).join("\n\n");
    const { records, ref } = await chunkDocument(new TextEncoder().encode(prose), "long.txt", {
      maxTokens: 8192,
      overlapTokens: 0,
    });
    const chunks = records as Chunk[];
    const chunkBytes = bytes(chunks[0]!.text);
    expect(chunkBytes).toBeGreaterThan(25_000);
    expect(chunkBytes).toBeLessThan(38_000);

    const [record] = formatChunks(
      enrich(chunks, { headings: hugeHeadings, summary: hugeSummary, entities: hugeEntities }),
      "pinecone",
      ref,
    );
    expectStoreRules("pinecone", [record]);
    expect(textOf("pinecone", record)).toBe(chunks[0]!.text);
    const { _id, ...metadata } = record!;
    expect(jsonBytes(metadata)).toBeLessThanOrEqual(40_000);
    expect(record!.truncated_fields).toEqual(expect.arrayContaining(["headings", "summary", "entities"]));
  });
});

describe("embed_text", () => {
  type Raw = Chunk & { embed_text: string };
  it("is the chunk after lines naming the document, its section path and its pages, on every tier", async () => {
    const { records } = await chunkFixture("notes.md", { tier: "structure", maxTokens: 64, overlapTokens: 0 });
    const chunks = records as Raw[];
    const sectioned = chunks.filter((chunk) => chunk.metadata.headings?.length);
    expect(sectioned.length).toBeGreaterThan(1);
    for (const chunk of sectioned)
      expect(chunk.embed_text).toBe(
        `Document: notes\nSection: ${chunk.metadata.headings!.join(" > ")}\n\n${chunk.text}`,
      );

    const pdf = (await chunkFixture("multipage.pdf")).records as Raw[];
    for (const chunk of pdf) {
      const { page_start: first, page_end: last } = chunk.metadata;
      const pages = first === last ? `${first}` : `${first}-${last}`;
      expect(chunk.embed_text).toBe(`Document: multipage\nPage ${pages}\n\n${chunk.text}`);
    }
    expect(new Set(pdf.map((chunk) => chunk.metadata.page_start)).size).toBeGreaterThan(1);
  });

  it("says nothing of a document with no name, and is the text alone then", async () => {
    const { records } = await chunkDocument(new TextEncoder().encode("One line.\n\nAnother line."), "document");
    for (const chunk of records as Raw[]) expect(chunk.embed_text).toBe(chunk.text);
  });
});

describe("record ids", () => {
  it("are the same for the same document and settings, and differ across documents, tiers and sizes", async () => {
    for (const format of STORES) {
      const ids = async (name: string, chunking: Chunking = {}) =>
        (await chunkFixture(name, { ...chunking, format })).records.map((r) => idOf(format, r));
      const first = await ids("notes.md");
      expect(await ids("notes.md"), format).toEqual(first);
      // The id comes from the bytes, not the file name.
      const renamed = (await chunkDocument(fixture("notes.md"), "renamed.md", { format })).records.map((r) =>
        idOf(format, r),
      );
      expect(renamed).toEqual(first);

      for (const other of [
        await ids("report.docx"),
        await ids("notes.md", { tier: "structure" }),
        await ids("notes.md", { maxTokens: 48 }),
        await ids("notes.md", { overlapTokens: 0 }),
      ]) {
        expect(
          other.filter((id) => first.includes(id)),
          format,
        ).toEqual([]);
      }
    }
  });

  it("name the same chunk alike in every store: one key for Pinecone and Chroma, its v5 UUID for Weaviate and Qdrant", async () => {
    const { chunks, ref } = await rawChunks("multipage.pdf");
    const [pinecone, chroma, weaviate, qdrant] = STORES.map((format) =>
      formatChunks(chunks, format, ref).map((r) => idOf(format, r)),
    );
    expect(chroma).toEqual(pinecone);
    expect(qdrant).toEqual(weaviate);
    for (const [i, key] of pinecone!.entries()) {
      expect(key).toBe(`${ref.documentId}#free:64:8#${i}`);
      // The namespace is pinned: changing it would silently re-id every record users already stored.
      expect(weaviate![i]).toBe(uuidv5(key, "6f1c3c52-6a4e-4d2b-9a55-2f0c7a1d9e01"));
      expect(uuidVersion(weaviate![i]!)).toBe(5);
    }
  });
});

describe("the records against the official clients' TypeScript types", () => {
  const tsc = (project: string) =>
    new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        path.join(root, "node_modules/.bin/tsc"),
        ["--noEmit", "-p", project],
        { cwd: root, timeout: 180_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: stdout + stderr }),
      );
    });

  it("compile where each client takes them (tests/formats-typed/fits-clients.ts)", { timeout: 200_000 }, async () => {
    const { code, output } = await tsc("tests/formats-typed/tsconfig.json");
    expect(output).toBe("");
    expect(code).toBe(0);
  });

  it(
    "fail to compile where a client refuses them, so the check above can fail (must-fail/)",
    { timeout: 200_000 },
    async () => {
      const { code, output } = await tsc("tests/formats-typed/must-fail/tsconfig.json");
      expect(code).not.toBe(0);
      expect(output).toMatch(/qdrant-points-to-pinecone\.ts\(\d+,\d+\): error TS2322/);
      expect(output.match(/error TS/g)).toHaveLength(1);
    },
  );
});
