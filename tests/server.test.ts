import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prose, upload } from "./helpers/api";
import { freePort } from "./helpers/redis-server";

/**
 * The built app (`npm run build`, which `npm test` runs first) served by
 * `npm start` with no environment variables at all: the embedded defaults.
 */
const root = join(import.meta.dirname, "..");
let server: ChildProcess;
let base: string;
let output = "";

beforeAll(async () => {
  if (!existsSync(join(root, ".next", "BUILD_ID"))) throw new Error("No build found: run `npm run build` first (`npm test` does).");
  const port = await freePort();
  server = spawn(process.execPath, ["server.mjs"], {
    cwd: root,
    // Nothing but PATH (to find node) and PORT (to run beside other tests): the embedded defaults.
    env: { PATH: process.env.PATH, PORT: String(port) } as Record<string, string | undefined> as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  server.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`server did not become healthy within 30 s:\n${output}`);
});

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
});

describe("npm start with no environment", () => {
  it("serves GET /api, /api/health and the front page", async () => {
    const info = await fetch(`${base}/api`);
    expect(info.status).toBe(200);
    expect(((await info.json()) as { network: string }).network).toBe("solana-localnet");
    const health = await fetch(`${base}/api/health`);
    expect(await health.json()).toEqual({ status: "healthy", network: "solana-localnet" });
    const page = await fetch(base);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Chunkwise");
  });

  it("chunks an upload and a PDF, and answers unknown API paths with JSON", async () => {
    const response = await fetch(`${base}/api/chunk/demo`, { method: "POST", body: upload(prose(1), "a.txt") });
    expect(response.status).toBe(200);
    const result = (await response.json()) as { total_chunks: number; chunks: unknown[] };
    expect(result.chunks).toHaveLength(result.total_chunks);

    const missing = await fetch(`${base}/api/nope`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe("not_found");
  });

  it("keys the free quota on the socket address, not on a forged X-Forwarded-For", async () => {
    // 100 pages use up the whole day's allowance of this (loopback) client.
    const big = await fetch(`${base}/api/chunk/free`, { method: "POST", body: upload(prose(99), "big.txt") });
    expect(big.status).toBe(200);
    const forged = await fetch(`${base}/api/chunk/free`, { method: "POST", body: upload(prose(1), "a.txt"), headers: { "x-forwarded-for": "192.0.2.1", "x-chunkwise-peer": "192.0.2.2" } });
    expect(forged.status).toBe(429);
    expect(forged.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});
