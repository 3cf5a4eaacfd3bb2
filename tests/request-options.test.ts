/**
 * The request options of issue 29 through the route handlers and the MCP
 * tool, on a real Redis and the local chain: `tokenizer` sizes and counts the
 * chunks and is echoed; `ocr_languages` is checked against the installed
 * Tesseract languages (an unknown one is a 400 naming them) and reaches OCR;
 * every chunk says its language.
 */
import fs from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { installedLanguages } from "@/lib/ground/ocr-language-data";
import { countTokens, loadTokenizer } from "@/lib/tokens";
import { call, connectMcp, newClient, pollUntilDone, prose, upload } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";

const read = (name: string) => fs.readFileSync(join(import.meta.dirname, "fixtures", name), "utf8");

// The chain is there for the paid tiers the tool offers; these tests use the free one.
serviceHarness({ chain: true });

beforeAll(async () => {
  await Promise.all([loadTokenizer("cl100k_base"), loadTokenizer("llama3")]);
}, 120_000);

async function chunkFree(text: string, filename: string, fields: Record<string, string>) {
  const response = await call("POST", "/api/chunk/free", { body: upload(text, filename, fields), client: newClient() });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe("tokenizer", () => {
  it("sizes chunks and counts tokens in the tokenizer asked for, and says which", async () => {
    const text = prose(1);
    for (const tokenizer of ["cl100k_base", "llama3"] as const) {
      const { status, body } = await chunkFree(text, "a.txt", { max_tokens: "64", overlap_tokens: "0", tokenizer });
      expect(status).toBe(200);
      expect(body.metadata.tokenizer).toBe(tokenizer);
      for (const chunk of body.chunks) {
        expect(chunk.metadata.token_count).toBe(countTokens(chunk.text, tokenizer));
        expect(chunk.metadata.token_count).toBeLessThanOrEqual(64);
      }
    }
    const plain = await chunkFree(text, "a.txt", { max_tokens: "64", overlap_tokens: "0" });
    expect(plain.body.metadata.tokenizer).toBe("o200k_base");
    // The first requests start the worker threads and load each tokenizer and the language detector there.
  }, 180_000);

  it("is kept with a job: an async request's result is sized in it", { timeout: 180_000 }, async () => {
    const { status, body: job } = await chunkFree(prose(1, 7), "a.txt", {
      max_tokens: "64",
      overlap_tokens: "0",
      tokenizer: "cl100k_base",
      ocr_languages: "deu+eng",
      async: "true",
    });
    expect([status, job.job_id]).toEqual([200, expect.any(String)]);
    expect((await pollUntilDone(job.job_id, 120_000)).at(-1)).toMatchObject({ status: "completed" });
    const result = (await (await call("GET", `/api/job/${job.job_id}/result`)).json()) as Record<string, any>;
    expect(result.metadata).toMatchObject({ tokenizer: "cl100k_base", ocr_languages: ["deu", "eng"] });
    for (const chunk of result.chunks) expect(chunk.metadata.token_count).toBe(countTokens(chunk.text, "cl100k_base"));
  });

  it("refuses a tokenizer it does not have, naming the ones it has", async () => {
    const { status, body } = await chunkFree("Some text.", "a.txt", { tokenizer: "gpt2" });
    expect(status).toBe(400);
    expect(body.code).toBe("invalid_options");
    expect(body.message).toMatch(/o200k_base.*cl100k_base.*llama3/);
  });
});

describe("ocr_languages", () => {
  it("refuses a language that is not installed with a 400 that lists the installed ones", async () => {
    const installed = installedLanguages();
    expect(installed).toEqual(expect.arrayContaining(["eng", "deu"]));
    for (const value of ["xyz", "eng+fra", "../eng", ""]) {
      const { status, body } = await chunkFree("Some text.", "a.txt", { ocr_languages: value });
      expect([value, status, body.code]).toEqual([value, 400, "invalid_options"]);
      for (const code of installed) expect(body.message).toContain(code);
    }
  });

  it("takes installed ones and echoes them", async () => {
    const { status, body } = await chunkFree("Some text for the notes.", "a.txt", { ocr_languages: "deu+eng" });
    expect(status).toBe(200);
    expect(body.metadata.ocr_languages).toEqual(["deu", "eng"]);
  });
});

describe("language", () => {
  it("gives each chunk the language it is written in", { timeout: 180_000 }, async () => {
    const english = prose(1, 4).slice(0, 1500);
    const chinese = read("udhr-zh.txt").slice(0, 1500);
    const thai = read("udhr-th.txt").slice(0, 3000);
    const text = `# English\n\n${english}\n\n# 中文\n\n${chinese}\n\n# ไทย\n\n${thai}\n\n# Numbers\n\n${"12 345 6789 ".repeat(10)}`;
    const { status, body } = await chunkFree(text, "mixed.md", { max_tokens: "128", overlap_tokens: "0" });
    expect(status).toBe(200);
    const languageOf = (marker: string) =>
      body.chunks.filter((c: any) => c.text.includes(marker)).map((c: any) => c.metadata.language);
    expect(languageOf(english.slice(0, 40))).toEqual(["en"]);
    // Markers well inside each section: a chunk where two sections meet may be undetermined.
    expect(languageOf(chinese.slice(600, 612))).toEqual(["zh"]);
    expect(languageOf(thai.slice(1500, 1520))).toEqual(["th"]);
    const numbers = body.chunks.find((c: any) => c.text.includes("12 345 6789 12"));
    expect(numbers.metadata).not.toHaveProperty("language");
  });
});

describe("over MCP", () => {
  it(
    "chunk_document takes tokenizer and ocr_languages, and refuses unknown OCR languages",
    { timeout: 180_000 },
    async () => {
      const sdk = await connectMcp(newClient());
      try {
        const ok = (await sdk.callTool({
          name: "chunk_document",
          arguments: { text: prose(1), filename: "a.txt", tier: "free", tokenizer: "llama3", max_tokens: 64 },
        })) as CallToolResult;
        expect(ok.isError).toBeFalsy();
        const result = ok.structuredContent as Record<string, any>;
        expect(result.metadata.tokenizer).toBe("llama3");
        for (const chunk of result.chunks) expect(chunk.metadata.token_count).toBe(countTokens(chunk.text, "llama3"));

        const refused = (await sdk.callTool({
          name: "chunk_document",
          arguments: { text: "Some text.", tier: "free", ocr_languages: "klingon" },
        })) as CallToolResult;
        expect(refused.isError).toBe(true);
        expect(JSON.stringify(refused.content)).toMatch(/invalid_options[\s\S]*eng/);
      } finally {
        await sdk.close();
      }
    },
  );
});
