/**
 * Compile-only proof that the formatter's records are what each store's
 * official JS client accepts: every function hands `formatChunks` output to
 * the real client method, typed by the client's own declarations. Never run;
 * `tsc -p tests/formats-typed` checks it (tests/formats.test.ts). Installed:
 * @pinecone-database/pinecone 9, weaviate-client 3, chromadb 3, @qdrant/js-client-rest 1.
 */
import type { Index } from "@pinecone-database/pinecone";
import type { Collection as ChromaCollection, Metadata as ChromaMetadata } from "chromadb";
import type { QdrantClient, Schemas } from "@qdrant/js-client-rest";
import type { Collection as WeaviateCollection } from "weaviate-client";
import { type DocumentRef, type WeaviateObject, formatChunks } from "@/lib/formats";
import type { Chunk } from "@/lib/chunking/types";

export interface StoreInput {
  chunks: Chunk[];
  doc: DocumentRef;
}

/** Pinecone `index.upsertRecords()` on an integrated-embedding index (field map: `chunk_text`). */
export async function toPinecone(index: Index, { chunks, doc }: StoreInput): Promise<void> {
  await index.upsertRecords({ records: formatChunks(chunks, "pinecone", doc) });
}

/** Weaviate v3 `collection.data.insertMany()` on an untyped collection (properties `Record<string, WeaviateField>`)… */
export async function toWeaviate(collection: WeaviateCollection, { chunks, doc }: StoreInput): Promise<void> {
  await collection.data.insertMany(formatChunks(chunks, "weaviate", doc));
}

/** …and on one typed with our properties. */
export async function toTypedWeaviate(
  collection: WeaviateCollection<WeaviateObject["properties"]>,
  { chunks, doc }: StoreInput,
): Promise<void> {
  await collection.data.insertMany(formatChunks(chunks, "weaviate", doc));
}

/** Chroma 3 `collection.add({ ids, documents, metadatas })`, from our per-chunk records. */
export async function toChroma(collection: ChromaCollection, { chunks, doc }: StoreInput): Promise<void> {
  const records = formatChunks(chunks, "chroma", doc);
  const metadatas: ChromaMetadata[] = records.map((r) => r.metadata);
  await collection.add({ ids: records.map((r) => r.id), documents: records.map((r) => r.document), metadatas });
}

/** Qdrant `client.upsert(collection, { points })`, once each point has the caller's vector. */
export async function toQdrant(client: QdrantClient, { chunks, doc }: StoreInput, vectors: number[][]): Promise<void> {
  const points: Schemas["PointStruct"][] = formatChunks(chunks, "qdrant", doc).map((point, i) => ({
    ...point,
    vector: vectors[i]!,
  }));
  await client.upsert("chunks", { wait: true, points });
}
