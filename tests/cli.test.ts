import { execFile, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startModelStandin } from "@/standin/model-server";
import { call, upload } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";

const root = join(import.meta.dirname, "..");
const fixture = join(root, "tests/fixtures/multipage.pdf");

function chunkCli(...args: string[]) {
  const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/chunk.ts", ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

serviceHarness({ store: "memory" });

describe("npm run chunk", () => {
  it("prints the same chunks and metadata as the API, with options before or after the file", async () => {
    const before = chunkCli("--max-tokens", "64", "--overlap-tokens", "8", fixture, "--output-format", "chroma");
    expect(before.status, before.stderr).toBe(0);
    const after = chunkCli(
      fixture,
      "--tier",
      "free",
      "--max-tokens=64",
      "--overlap-tokens",
      "8",
      "--output-format",
      "chroma",
    );
    expect(after.status, after.stderr).toBe(0);
    const offline = JSON.parse(before.stdout);
    expect(JSON.parse(after.stdout)).toEqual(offline);

    const response = await call("POST", "/api/chunk/free", {
      body: upload(new Uint8Array(readFileSync(fixture)), "multipage.pdf", {
        max_tokens: "64",
        overlap_tokens: "8",
        output_format: "chroma",
      }),
    });
    expect(response.status).toBe(200);
    const online = await response.json();
    expect(offline.chunks).toEqual(online.chunks);
    expect(offline.metadata).toEqual(online.metadata);
    expect(offline.total_chunks).toBe(online.total_chunks);
    expect(offline.tier).toBe("free");
  });

  it("runs the AI tiers with the AI_* settings (ai-pro inline, enriched), and says when no model is set", async () => {
    const cli = (env: Record<string, string>, ...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        // Not spawnSync: the stand-in answers from this process's event loop.
        execFile(
          process.execPath,
          ["--import", "tsx", "scripts/chunk.ts", ...args],
          {
            cwd: root,
            env: { PATH: process.env.PATH, ...env } as Record<string, string | undefined> as NodeJS.ProcessEnv,
            timeout: 60_000,
            encoding: "utf8",
          },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
      });
    const unconfigured = await cli({}, fixture, "--tier", "ai");
    expect(unconfigured.code).toBe(1);
    expect(unconfigured.stderr).toContain("ai_not_configured");

    const model = await startModelStandin({ port: 0 });
    try {
      const run = await cli(
        { AI_BASE_URL: model.url, AI_PRO_MODEL: "standin-large" },
        fixture,
        "--tier",
        "ai-pro",
        "--max-tokens",
        "128",
      );
      expect(run.code, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout);
      expect(result.metadata.ai.model).toBe("standin-large");
      expect(result.document_summary.length).toBeGreaterThan(10);
      expect(
        result.chunks.every((c: { metadata: { summary?: string } }) => typeof c.metadata.summary === "string"),
      ).toBe(true);
      expect(model.counters().bySchema.chunk_enrichment).toBeGreaterThan(0);
    } finally {
      await model.close();
    }
  });

  it("prints the whole result into a pipe, however large", async () => {
    // ~0.5 MB of Markdown gives a result of several MB: far beyond what a pipe holds at once (64 KB).
    const dir = mkdtempSync(join(tmpdir(), "chunkwise-cli-"));
    const big = join(dir, "big.md");
    const section = (n: number) =>
      `## Section ${n}\n\n${Array.from({ length: 40 }, (_, k) => `Sentence ${k} of section ${n} says something.`).join(" ")}\n`;
    writeFileSync(big, Array.from({ length: 300 }, (_, n) => section(n)).join("\n"));
    try {
      // The chunker writes into a pipe a second process reads, as `npm run -s chunk -- big.md | jq .` does.
      const reader = spawn(
        process.execPath,
        [
          "-e",
          "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write(String(s.length)+' '+JSON.parse(s).chunks.length))",
        ],
        { stdio: ["pipe", "pipe", "pipe"] },
      );
      const writer = spawn(process.execPath, ["--import", "tsx", "scripts/chunk.ts", big, "--max-tokens", "64"], {
        cwd: root,
        stdio: ["ignore", reader.stdin, "pipe"],
      });
      // The writer holds its own copy of the pipe; ours must close for the reader to see the end.
      reader.stdin.destroy();
      const exited = (child: ReturnType<typeof spawn>, out?: NodeJS.ReadableStream) =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
          let text = "";
          out?.on("data", (d: Buffer) => (text += d.toString()));
          child.on("close", (code) => resolve({ code, out: text }));
        });
      const [written, read] = await Promise.all([exited(writer), exited(reader, reader.stdout)]);
      expect(written.code).toBe(0);
      expect(read.code).toBe(0);
      const [length, chunks] = read.out.split(" ").map(Number);
      expect(length).toBeGreaterThan(1024 * 1024);
      expect(chunks).toBeGreaterThan(100);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits non-zero with the error code on bad input and bad options", () => {
    const corrupted = chunkCli(join(root, "tests/fixtures/corrupted.pdf"));
    expect(corrupted.status).toBe(1);
    expect(corrupted.stderr).toContain("corrupted_pdf");
    const badTier = chunkCli(fixture, "--tier", "gold");
    expect(badTier.status).toBe(2);
    expect(badTier.stderr).toContain("--tier must be one of");
    const badSize = chunkCli(fixture, "--max-tokens", "4");
    expect(badSize.status).toBe(1);
    expect(badSize.stderr).toContain("invalid_options");
  });
});
