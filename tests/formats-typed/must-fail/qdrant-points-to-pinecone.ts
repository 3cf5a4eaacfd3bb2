/**
 * Deliberately wrong, and must stay the only error here: Qdrant points (a
 * nested `payload` object, `id` beside it) handed to Pinecone, whose records
 * are flat. `tsc -p tests/formats-typed/must-fail` has to reject this with
 * TS2322; if it compiles, the type check in fits-clients.ts proves nothing.
 */
import type { Index } from "@pinecone-database/pinecone";
import type { Chunk } from "@/lib/chunking/types";
import { type DocumentRef, formatChunks } from "@/lib/formats";

export async function qdrantPointsToPinecone(index: Index, chunks: Chunk[], doc: DocumentRef): Promise<void> {
  await index.upsertRecords({ records: formatChunks(chunks, "qdrant", doc) });
}
