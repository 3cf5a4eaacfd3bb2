/**
 * What `context=true` costs in model calls and prompt tokens, per document, on the ai tier:
 *
 *   tsx scripts/measure-context.ts [FILE[:MAX_TOKENS] ...]
 *
 * Without files: two development fixtures and a generated 200-section document of about 92,000 tokens. Each document
 * is chunked in process with the stand-in model (standin/, started here) answering; every call's prompt (system and
 * user message) is counted in o200k tokens, the contexts' apart from the boundaries'. The stand-in's answers are
 * heuristics, so the figures say what is sent, not how good the contexts are.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { type ModelClient, createModelClients } from "@/lib/ai/model-client";
import { CHUNK_CONTEXT_TASK } from "@/lib/ai/prompts";
import { buildResult, extractDocument, loaded, resolveOptions } from "@/lib/pipeline/chunk-result";
import { loadConfig } from "@/lib/ground/config";
import { createEmbedder } from "@/lib/embeddings";
import { countTokens } from "@/lib/tokens";
import { startModelStandin } from "@/standin/model-server";

const WORDS = "harbour ledger tide ship cargo captain crane dock customs manifest pilot anchor".split(" ");

/** 200 sections of 5 paragraphs of 90 words, the same every run (a fixed linear congruential sequence). */
function generated(): Uint8Array {
  let seed = 1;
  const word = () => WORDS[(seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % WORDS.length]!;
  const parts = ["# Harbour records"];
  for (let s = 0; s < 200; s++) {
    parts.push(`## Section ${s + 1}`);
    for (let p = 0; p < 5; p++) parts.push(`${Array.from({ length: 90 }, word).join(" ")}.`);
  }
  return new TextEncoder().encode(parts.join("\n\n"));
}

async function main() {
  const args = process.argv.slice(2);
  const inputs = args.length
    ? args.map((arg) => {
        const [path, max] = arg.split(":");
        return { name: basename(path!), bytes: new Uint8Array(readFileSync(path!)), maxTokens: Number(max ?? 512) };
      })
    : [
        ...["chatlogs-excerpt.md", "wikitext-excerpt.md"].map((name) => ({
          name,
          bytes: new Uint8Array(readFileSync(`tests/fixtures/${name}`)),
          maxTokens: 512,
        })),
        { name: "generated.md", bytes: generated(), maxTokens: 512 },
      ];
  const standin = await startModelStandin({ port: 0 });
  try {
    const config = loadConfig({ AI_BASE_URL: standin.url, AI_MODEL: "standin-small" });
    const model = createModelClients(config.ai).ai!;
    const tally = { contextCalls: 0, contextTokens: 0, otherCalls: 0, otherTokens: 0 };
    const counting: ModelClient = {
      model: model.model,
      ask: (task, message, signal) => {
        const tokens = countTokens(`${task.system}\n${message}`);
        if (task.name === CHUNK_CONTEXT_TASK.name) {
          tally.contextCalls++;
          tally.contextTokens += tokens;
        } else {
          tally.otherCalls++;
          tally.otherTokens += tokens;
        }
        return model.ask(task, message, signal);
      },
    };
    console.log(
      "| document | its tokens | max_tokens | chunks | context calls | context prompt tokens | boundary calls | boundary prompt tokens |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (const input of inputs) {
      Object.assign(tally, { contextCalls: 0, contextTokens: 0, otherCalls: 0, otherTokens: 0 });
      const doc = loaded({ bytes: input.bytes, filename: input.name });
      const extracted = await extractDocument(doc, config);
      const options = resolveOptions({ max_tokens: input.maxTokens, context: true }, config.chunking);
      const result = await buildResult(doc, extracted, "ai", options, {
        embedder: createEmbedder(config.embeddings),
        models: { ai: counting },
        modelConcurrency: config.ai.concurrency,
        situating: config.ai.context,
      });
      console.log(
        `| ${input.name} | ${countTokens(extracted.text)} | ${input.maxTokens} | ${result.total_chunks} | ${tally.contextCalls} | ${tally.contextTokens} | ${tally.otherCalls} | ${tally.otherTokens} |`,
      );
    }
  } finally {
    await standin.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
