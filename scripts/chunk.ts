/**
 * Offline entry to the same core as the API:
 *   npm run chunk -- FILE [--tier free] [--max-tokens N] [--overlap-tokens N] [--output-format raw|pinecone|weaviate|chroma|qdrant]
 * Prints the chunking result as JSON (always with the chunks inline). Nothing is paid or stored.
 * The AI tiers use the AI_* settings (e.g. the stand-in: `npm run model:standin`), ai-pro inline rather than as a job.
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { ChunkOptionsSchema, describeIssues } from "@/lib/api-schema";
import { createModelClients } from "@/lib/ai/model-client";
import { loadConfig } from "@/lib/ground/config";
import { createEmbedder } from "@/lib/embeddings";
import { ApiError } from "@/lib/ground/errors";
import { buildResult, extractDocument, loaded, resolveOptions } from "@/lib/pipeline/chunk-result";
import { TIER_IDS } from "@/lib/tiers";

const USAGE =
  "usage: npm run chunk -- FILE [--tier free|structure|semantic|ai|ai-pro] [--max-tokens N] [--overlap-tokens N] [--output-format raw|pinecone|weaviate|chroma|qdrant]";

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      tier: { type: "string", default: "free" },
      "max-tokens": { type: "string" },
      "overlap-tokens": { type: "string" },
      "output-format": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help || positionals.length !== 1) {
    console.error(USAGE);
    return values.help ? 0 : 2;
  }
  const tier = z.enum(TIER_IDS).safeParse(values.tier);
  const options = ChunkOptionsSchema.safeParse({
    max_tokens: values["max-tokens"],
    overlap_tokens: values["overlap-tokens"],
    output_format: values["output-format"],
  });
  if (!tier.success || !options.success) {
    console.error(tier.success ? describeIssues(options.error!) : `--tier must be one of ${TIER_IDS.join(", ")}`);
    console.error(USAGE);
    return 2;
  }

  const config = loadConfig();
  const path = positionals[0]!;
  const bytes = new Uint8Array(await readFile(path));
  const doc = loaded({ bytes, filename: basename(path) });
  const extracted = await extractDocument(doc, config);
  const context = {
    embedder: createEmbedder(config.embeddings),
    models: createModelClients(config.ai),
    modelConcurrency: tier.data === "ai-pro" ? config.ai.proConcurrency : config.ai.concurrency,
  };
  const { chunksJson, ...result } = await buildResult(
    doc,
    extracted,
    tier.data,
    resolveOptions(options.data, config.chunking),
    context,
  );
  const payment = { amount: 0, asset: "USDC", network: "offline", transaction: null };
  await writeAll(`${JSON.stringify({ ...result, chunks: JSON.parse(chunksJson) as unknown, payment }, null, 2)}\n`);
  return 0;
}

/**
 * Resolves once the kernel has taken every byte. Writes to a pipe are
 * asynchronous: a pipe holds 64 KB, and exiting before the rest is flushed
 * cuts the JSON short for `| jq`.
 */
const writeAll = (text: string) =>
  new Promise<void>((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())));

// A reader that stops early (`| head`) closes the pipe: nothing is left to print to, so stop quietly.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ApiError) console.error(`${error.code}: ${error.message}`);
    else console.error(error);
    process.exit(1);
  },
);
