import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiInfoSchema } from "@/lib/api-schema";
import { associatedTokenAccount } from "@/lib/payments/usdc-transfer";
import { TIERS } from "@/lib/tiers";
import {
  agentExample,
  batchExample,
  mcpBatchExample,
  mcpExample,
  x402Example,
  x402V2Example,
} from "@/web/docs-examples";
import { call, prose } from "./helpers/api";
import { chain, openApiSuite, root, rpc, useServices } from "./helpers/openapi";

/**
 * The docs page's TypeScript examples, run as a reader would run them: each pays on the local chain through the
 * route handlers over real HTTP and prints the chunks.
 */

openApiSuite();

describe("the docs page's examples", () => {
  let server: Server;
  let base: string;
  let workdir: string;
  const PAPER = `# Field notes\n\n${prose(2, 7)}`;

  /** The route handlers over real HTTP, as the examples call them; `/paper.md` is the document the URL example fetches. */
  beforeAll(async () => {
    server = createServer(async (request, response) => {
      if (request.url === "/paper.md") {
        response.writeHead(200, { "content-type": "text/markdown" }).end(PAPER);
        return;
      }
      const parts: Buffer[] = [];
      for await (const part of request) parts.push(part as Buffer);
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(
          (entry): entry is [string, string] =>
            typeof entry[1] === "string" && !["content-length", "connection", "transfer-encoding"].includes(entry[0]),
        ),
      );
      const answer = await call(request.method!, request.url!, {
        body: parts.length ? Buffer.concat(parts) : undefined,
        headers,
      });
      response
        .writeHead(answer.status, Object.fromEntries(answer.headers))
        .end(Buffer.from(await answer.arrayBuffer()));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // A reader's project: the examples' packages resolvable, a report.pdf beside them.
    workdir = mkdtempSync(join(tmpdir(), "chunkwise-docs-"));
    symlinkSync(join(root, "node_modules"), join(workdir, "node_modules"), "dir");
    writeFileSync(join(workdir, "package.json"), JSON.stringify({ type: "module" }));
    copyFileSync(join(root, "tests/fixtures/multipage.pdf"), join(workdir, "report.pdf"));
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    if (workdir) rmSync(workdir, { recursive: true, force: true });
  });

  /** Runs an example as a file of the reader's project; asynchronously, since the service answers from this process. */
  function run(name: string, code: string): Promise<{ code: number; stdout: string; stderr: string }> {
    writeFileSync(join(workdir, name), code);
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", name],
        { cwd: workdir, timeout: 60_000, encoding: "utf8" },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  const usdcOf = async (owner: string) =>
    BigInt((await rpc.getTokenAccountBalance(await associatedTokenAccount(owner, chain.usdcMint)).send()).value.amount);

  it("the agent flow pays for a URL on the local chain and prints the chunks", async () => {
    useServices({ URL_FETCH_ALLOW_PRIVATE: "true" });
    const info = ApiInfoSchema.parse(
      await (await call("GET", "/api", { headers: { host: new URL(base).host } })).json(),
    );
    const example = agentExample({
      apiBase: `${base}/api`,
      rpcUrl: info.payment.rpc_url,
      faucetUrl: info.localnet?.faucet_url,
      documentUrl: `${base}/paper.md`,
    });
    expect(example.code).toContain(`${base}/api/dev/faucet`);
    const before = await usdcOf(chain.payTo);
    const result = await run("agent.mts", example.code);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^\d+ chunks, paid with [1-9A-HJ-NP-Za-km-z]{64,88}\n$/);
    expect((await usdcOf(chain.payTo)) - before).toBe(BigInt(TIERS.structure.priceBaseUnits));
  }, 90_000);

  it("x402-fetch pays for an upload and prints the settled transaction", async () => {
    const info = ApiInfoSchema.parse(
      await (await call("GET", "/api", { headers: { host: new URL(base).host } })).json(),
    );
    expect(info.payment.x402?.network).toBe("solana-devnet");
    const example = x402Example({
      apiBase: `${base}/api`,
      rpcUrl: info.payment.rpc_url,
      x402Network: info.payment.x402?.network,
      faucetUrl: info.localnet?.faucet_url,
    });
    const before = await usdcOf(chain.payTo);
    const result = await run("x402.mts", example.code);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^\d+ chunks, paid in [1-9A-HJ-NP-Za-km-z]{64,88}\n$/);
    expect((await usdcOf(chain.payTo)) - before).toBe(BigInt(TIERS.structure.priceBaseUnits));
  }, 90_000);

  const PAID_IN = /^\d+ chunks, paid in [1-9A-HJ-NP-Za-km-z]{64,88}\n$/;
  it.each([
    ["@x402/fetch 2.x (v2 only) pays for an upload", x402V2Example, "v2.mts", PAID_IN, 1n],
    [
      "an MCP SDK client is offered the payment, pays it in _meta and gets the chunks",
      mcpExample,
      "mcp.mts",
      PAID_IN,
      1n,
    ],
    // Two documents pass the batch's free check: the price of two, paid once.
    [
      "a batch paid once with @x402/fetch 2.x",
      batchExample,
      "batch.mts",
      /^\d+ chunks of 2 documents, paid \d+\n$/,
      2n,
    ],
    [
      "an MCP SDK client pays chunk_documents' offer once and gets every document's chunks",
      mcpBatchExample,
      "mcp-batch.mts",
      /^\d+ chunks of 2 documents\n$/,
      2n,
    ],
  ])(
    "%s, as the docs show it",
    async (_name, example, file, printed, documents) => {
      const info = ApiInfoSchema.parse(
        await (await call("GET", "/api", { headers: { host: new URL(base).host } })).json(),
      );
      const { code } = example({
        apiBase: `${base}/api`,
        rpcUrl: info.payment.rpc_url,
        faucetUrl: info.localnet?.faucet_url,
      });
      const before = await usdcOf(chain.payTo);
      const result = await run(file, code);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(printed);
      expect((await usdcOf(chain.payTo)) - before).toBe(documents * BigInt(TIERS.structure.priceBaseUnits));
    },
    120_000,
  );
});
