import { type ChildProcess, execFile, spawn } from "node:child_process";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPairSigner } from "@solana/kit";
import { startLocalChain } from "@/localchain";
import { prose, upload } from "./helpers/api";
import { freePort } from "./helpers/redis-server";
import { startRecordingProxy } from "./helpers/rpc-proxy";
import { renderPages } from "./helpers/scans";
import { GENESIS_HASHES } from "@/lib/payments/chain-identity";

/**
 * The built app (`npm run build`, which `npm test` runs first) served by
 * `npm start` with no environment variables at all: the embedded defaults.
 */
const root = join(import.meta.dirname, "..");

interface Server {
  base: string;
  process: ChildProcess;
  output: () => string;
}

/** `npm start`'s server.mjs with exactly this environment (plus PATH to find node), ready once /api/health answers. */
async function startServer(env: Record<string, string>): Promise<Server> {
  if (!existsSync(join(root, ".next", "BUILD_ID")))
    throw new Error("No build found: run `npm run build` first (`npm test` does).");
  const port = await freePort();
  const child = spawn(process.execPath, ["server.mjs"], {
    cwd: root,
    env: { PATH: process.env.PATH, PORT: String(port), ...env } as Record<
      string,
      string | undefined
    > as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    try {
      if ((await fetch(`${base}/api/health`)).ok) return { base, process: child, output: () => output };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // Not left running: it would hold its ports (the local chain's 8899) for every later run.
  child.kill("SIGKILL");
  throw new Error(`server did not become healthy within 30 s:\n${output}`);
}

/** A child process to completion (bounded), with its output. */
function run(command: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = { PATH: process.env.PATH } as Record<string, string | undefined> as NodeJS.ProcessEnv;
    execFile(command, args, { cwd: root, env, timeout: 60_000, encoding: "utf8" }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") reject(new Error(error.message, { cause: error }));
      else resolve({ status: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

async function stopServer(server: Server | undefined): Promise<void> {
  if (!server || server.process.exitCode !== null) return;
  const exited = new Promise((resolve) => server.process.once("exit", resolve));
  server.process.kill("SIGTERM");
  await exited;
}

/** A socket from `localAddress` that sends an upload's headers, then a byte of its body every second; its answer, or a failure after 120 s. */
function trickle(port: number, localAddress: string) {
  const socket = net.connect({ host: "127.0.0.1", port, localAddress });
  // A reset after the answer is the server letting the socket go.
  socket.on("error", () => undefined);
  const sentHeaders = new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.once("connect", () =>
      socket.write(
        "POST /api/chunk/free HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\n" +
          "Content-Length: 100000\r\n\r\n--x\r\n",
        () => resolve(),
      ),
    );
  });
  const timer = setInterval(() => socket.write("a"), 1000);
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    let text = "";
    const giveUp = setTimeout(
      () => reject(new Error(`no answer to the trickling socket from ${localAddress}`)),
      120_000,
    );
    socket.on("data", (data: Buffer) => {
      text += data.toString("latin1");
      const head = /^HTTP\/1\.1 (\d{3})[\s\S]*?\r\n\r\n/.exec(text);
      if (!head) return;
      const rest = text.slice(head[0].length);
      const length = /content-length: (\d+)/i.exec(head[0])?.[1];
      // Next answers in chunked encoding: the body is whole at the zero-length chunk.
      const body =
        length !== undefined ? rest.slice(0, Number(length)) : /^[0-9a-f]+\r\n([\s\S]*?)\r\n0\r\n\r\n/.exec(rest)?.[1];
      if (body === undefined || (length !== undefined && rest.length < Number(length))) return;
      clearTimeout(giveUp);
      clearInterval(timer);
      resolve({ status: Number(head[1]), body });
    });
    socket.once("close", () => clearInterval(timer));
  });
  return { socket, sentHeaders, answer };
}

/** A multipart POST from `localAddress` (the address the service counts the client by). */
async function requestFrom(
  localAddress: string,
  url: string,
  form: FormData,
): Promise<{ status: number; body: string }> {
  const encoded = new Response(form);
  const body = Buffer.from(await encoded.arrayBuffer());
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: hostname,
        port,
        path: pathname,
        method: "POST",
        localAddress,
        headers: { "content-type": encoded.headers.get("content-type")!, "content-length": String(body.length) },
      },
      (res) => {
        let text = "";
        res.on("data", (part: Buffer) => (text += part.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

let defaults: Server;
let base: string;

beforeAll(async () => {
  // Nothing but PORT (to run beside other tests): the embedded defaults, local chain on 8899 included.
  defaults = await startServer({});
  base = defaults.base;
}, 40_000);

afterAll(() => stopServer(defaults));

describe("npm start with no environment", () => {
  it("serves GET /api, /api/health and the front page", async () => {
    const info = await fetch(`${base}/api`);
    expect(info.status).toBe(200);
    expect(((await info.json()) as { network: string }).network).toBe("solana-localnet");
    const health = await fetch(`${base}/api/health`);
    expect(await health.json()).toMatchObject({ status: "healthy", network: "solana-localnet" });
    expect(((await (await fetch(`${base}/api`)).json()) as { localnet: { rpc_url: string } }).localnet.rpc_url).toBe(
      "http://127.0.0.1:8899",
    );
    const page = await fetch(base);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Chunkwise");
  });

  it("serves the discovery documents and the MCP endpoint from the build", async () => {
    const wellKnown = await fetch(`${base}/.well-known/x402`);
    expect(wellKnown.status).toBe(200);
    expect(((await wellKnown.json()) as { resources: unknown[] }).resources.length).toBeGreaterThan(0);
    const llms = await fetch(`${base}/llms.txt`);
    expect(llms.status).toBe(200);
    expect(await llms.text()).toMatch(/^# Chunkwise/);
    const mcp = await fetch(`${base}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(mcp.status).toBe(200);
    const tools = (await mcp.json()) as { result: { tools: { name: string }[] } };
    expect(tools.result.tools.map((t) => t.name)).toContain("chunk_document");
  });

  // Longer than the default: it reads a scan by OCR on a machine the rest of the suite may be keeping busy.
  it(
    "chunks text, PDF, DOCX, HTML and scanned uploads, refuses a corrupted PDF with 400, and answers unknown API paths with JSON",
    { timeout: 90_000 },
    async () => {
      const response = await fetch(`${base}/api/chunk/demo`, { method: "POST", body: upload(prose(1), "a.txt") });
      expect(response.status).toBe(200);
      const result = (await response.json()) as { total_chunks: number; chunks: unknown[] };
      expect(result.chunks).toHaveLength(result.total_chunks);

      // PDF, DOCX and HTML go through the extraction worker thread, which the build must ship unbundled.
      const fixture = (name: string) => new Uint8Array(readFileSync(join(root, "tests", "fixtures", name)));
      for (const [name, type] of [
        ["multipage.pdf", "application/pdf"],
        ["report.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
        ["page.html", "text/html"],
      ] as const) {
        const extracted = await fetch(`${base}/api/chunk/demo`, { method: "POST", body: upload(fixture(name), name) });
        const body = (await extracted.json()) as { metadata?: { content_type: string }; code?: string };
        expect(extracted.status, `${name}: ${JSON.stringify(body)}`).toBe(200);
        expect(body.metadata?.content_type).toContain(type);
      }
      const corrupted = await fetch(`${base}/api/chunk/demo`, {
        method: "POST",
        body: upload(fixture("corrupted.pdf"), "corrupted.pdf"),
      });
      expect(corrupted.status).toBe(400);
      expect(((await corrupted.json()) as { code: string }).code).toBe("corrupted_pdf");

      // OCR: tesseract.js starts its own thread and reads its WebAssembly and language data from node_modules, sharp
      // and @napi-rs/canvas load native binaries: the build must ship all of them unbundled.
      const [scan] = await renderPages(fixture("structured.pdf"), [1], 200);
      for (const [bytes, name] of [
        [scan!, "scan.png"],
        [fixture("no-text.pdf"), "blank-scan.pdf"],
      ] as const) {
        const read = await fetch(`${base}/api/chunk/demo`, { method: "POST", body: upload(bytes, name) });
        const body = (await read.json()) as { metadata?: { ocr_pages: number[] }; code?: string };
        if (name === "scan.png") {
          expect(read.status, JSON.stringify(body)).toBe(200);
          expect(body.metadata?.ocr_pages).toEqual([1]);
        } else {
          // Both pages rendered and read; nothing on them.
          expect({ status: read.status, code: body.code }).toEqual({ status: 400, code: "no_text" });
        }
      }

      const missing = await fetch(`${base}/api/nope`);
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as { code: string }).code).toBe("not_found");
    },
  );

  it("serves other clients while 20 sockets from five addresses trickle their bodies, and cuts each trickler off with 408", async () => {
    const { port } = new URL(base);
    const tricklers = Array.from({ length: 20 }, (_, i) => trickle(Number(port), `127.0.5.${1 + (i % 5)}`));
    try {
      // All 20 have sent their headers: on the old order they held every place of the instance (2 threads + 16).
      await Promise.all(tricklers.map((t) => t.sentHeaders));
      const form = upload(prose(1), "note.txt");
      const served = await requestFrom("127.0.5.9", `${base}/api/chunk/free`, form);
      expect(served.status).toBe(200);
      expect(JSON.parse(served.body)).toHaveProperty("chunks");
      expect((await Promise.all(tricklers.map((t) => t.answer))).map((a) => a.status)).toEqual(Array(20).fill(408));
      expect(JSON.parse((await tricklers[0]!.answer).body)).toMatchObject({ code: "body_timeout" });
    } finally {
      for (const t of tricklers) t.socket.destroy();
    }
  });

  it("keys the free quota on the socket address, not on a forged X-Forwarded-For", async () => {
    // Whatever the day's allowance of this (loopback) client still holds, used up in one upload.
    const probe = await fetch(`${base}/api/chunk/free`, { method: "POST", body: upload(prose(1), "a.txt") });
    const remaining = Number(probe.headers.get("x-ratelimit-remaining"));
    expect(remaining).toBeGreaterThan(0);
    const big = await fetch(`${base}/api/chunk/free`, { method: "POST", body: upload(prose(remaining), "big.txt") });
    expect(big.status).toBe(200);
    expect(big.headers.get("x-ratelimit-remaining")).toBe("0");
    const forged = await fetch(`${base}/api/chunk/free`, {
      method: "POST",
      body: upload(prose(1), "a.txt"),
      headers: { "x-forwarded-for": "192.0.2.1", "x-chunkwise-peer": "192.0.2.2" },
    });
    expect(forged.status).toBe(429);
    expect(forged.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});

describe("a second instance with its own local chain, and the agent example paying it", () => {
  let second: Server | undefined;
  let documents: http.Server;
  afterAll(async () => {
    await stopServer(second);
    documents?.closeAllConnections();
    await new Promise((resolve) => documents?.close(resolve));
  });

  it("runs beside the first on LOCAL_CHAIN_PORT, and `npm run example:agent` pays for a URL and gets chunks, by signature and by x402 v2", async () => {
    const chainPort = await freePort();
    // Only loopback documents exist in tests, so this instance may fetch private addresses.
    second = await startServer({ LOCAL_CHAIN_PORT: String(chainPort), URL_FETCH_ALLOW_PRIVATE: "true" });
    const info = (await (await fetch(`${second.base}/api`)).json()) as { localnet: { rpc_url: string }; payTo: string };
    expect(info.localnet.rpc_url).toBe(`http://127.0.0.1:${chainPort}`);

    documents = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/markdown" });
      res.end(`# Agent test\n\n${prose(2)}`);
    });
    await new Promise<void>((resolve) => documents.listen(0, "127.0.0.1", resolve));
    const docUrl = `http://127.0.0.1:${(documents.address() as AddressInfo).port}/doc.md`;

    // Asynchronously: the document server lives in this process and must keep answering.
    const agent = await run(process.execPath, [
      "--import",
      "tsx",
      "scripts/example-agent.ts",
      docUrl,
      "--tier",
      "structure",
      "--api",
      `${second.base}/api`,
    ]);
    expect(agent.status, `${agent.stderr}\n${agent.stdout}`).toBe(0);
    const result = JSON.parse(agent.stdout) as {
      success: boolean;
      tier: string;
      payment: { amount: number; transaction: string };
    };
    expect(result).toMatchObject({ success: true, tier: "structure", payment: { amount: 2000 } });
    expect(agent.stderr).toContain(result.payment.transaction);

    // The same script paying through an unmodified @x402/fetch 2.x client.
    const x402 = await run(process.execPath, [
      "--import",
      "tsx",
      "scripts/example-agent.ts",
      docUrl,
      "--api",
      `${second.base}/api`,
      "--pay",
      "x402",
    ]);
    expect(x402.status, `${x402.stderr}\n${x402.stdout}`).toBe(0);
    const paidByX402 = JSON.parse(x402.stdout) as typeof result;
    expect(paidByX402).toMatchObject({ success: true, tier: "structure", payment: { amount: 2000 } });
    expect(x402.stderr).toContain(`paid ${paidByX402.payment.transaction} through x402 v2`);
  }, 90_000);
});

describe("start-up refusals", () => {
  /** server.mjs with this environment, expected to exit on its own before serving. */
  function startExpectingExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ["server.mjs"], {
        cwd: root,
        env: { PATH: process.env.PATH, PORT: "0", ...env } as Record<string, string | undefined> as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      child.once("exit", (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
  }

  it("refuses mainnet on the memory store", async () => {
    const { code, output } = await startExpectingExit({
      SOLANA_NETWORK: "solana",
      PAY_TO_ADDRESS: "11111111111111111111111111111111",
    });
    expect(code).toBe(1);
    expect(output).toContain("Refusing to run on mainnet with the memory store");
  });

  it("refuses a payTo that has no USDC token account on its network", async () => {
    const chain = await startLocalChain({ port: 0 });
    // The local chain announced as devnet (its genesis hash), so the start-up's genesis check passes and the payTo one is reached.
    const devnet = await startRecordingProxy(chain.rpcUrl, { genesisHash: GENESIS_HASHES["solana-devnet"] });
    try {
      const stranger = await generateKeyPairSigner();
      const { code, output } = await startExpectingExit({
        SOLANA_NETWORK: "solana-devnet",
        SOLANA_RPC_URL: devnet.url,
        PAY_TO_ADDRESS: stranger.address,
      });
      expect(code).toBe(1);
      expect(output).toContain(`PAY_TO_ADDRESS ${stranger.address} has no USDC token account`);
    } finally {
      await devnet.close();
      await chain.close();
    }
  }, 40_000);
});
