/**
 * `npm run bench:abuse` (and the last part of `npm run bench`): what abuse
 * costs everybody else (issue 26). Starts `server.mjs` on a build (`npm run
 * build`; `--dist DIR` for another one) in local mode (memory store, embedded
 * chain, the ai tier pointed at the model stand-in in a child process) and
 * measures a normal client's latency, p50 and p99: a one-page text PDF on the
 * free tier, one request after another, for PHASE_MS,
 *
 * - alone;
 * - (a) while 20 sockets from five other loopback addresses each send a
 *   request's headers and then one byte of its body every 5 s (a socket the
 *   server closes is opened again);
 * - (b) while one client with 2 free pages left sends 10 free scanned PDFs
 *   of 5 pages each with `async=true`, at once;
 * - (c) while one payer whose USDC balance is exactly one ai-tier price sends
 *   three x402 v2 payloads (`@x402/fetch`'s client) for three documents, at once.
 *
 * For (b) and (c) it reports the work the service did for the abuser: jobs
 * accepted and how they ended, the server's CPU seconds over the phase (the
 * normal client's own share is the alone phase's figure), model calls the
 * stand-in served, and USDC the payee gained.
 *
 * Each client is its own loopback address (Linux routes all of 127/8 to lo),
 * so the service counts them as different clients, as it would on the
 * internet. The normal client moves to a fresh address every 90 requests to
 * stay within its 100 free pages a day.
 *
 * `--only a,c` runs some of the abuse phases (alone always runs).
 *
 * One script over 300 lines on purpose: one benchmark, read top to bottom.
 */
import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import net from "node:net";
import { readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { address, createSolanaRpc, generateKeyPairSigner } from "@solana/kit";
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from "@solana-program/token";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { z } from "zod";
import { faucet } from "../tests/helpers/chain";
import { cpuSeconds, startBuiltServer } from "./built-server";

const ROOT = path.resolve(import.meta.dirname, "..");
const PHASE_MS = 20_000;
/** The most a phase waits for the abuser's jobs to end. */
const JOBS_DEADLINE_MS = 300_000;
const SLOW_SOCKETS = 20;
const SLOW_BYTE_EVERY_MS = 5_000;
const SCANS = 10;
const SCAN_PAGES = 5;
const PAYLOADS = 3;
/** The issue's measurements on the service before it (issue 26, "Measured today"). */
const TODAY = {
  alone: "0.21 s (a 1-page text PDF)",
  slow: "every other client 503 busy while 17 sockets were held",
  scans: "9.2 s while two such scans ran; all six jobs of a client with 2 pages left accepted and run",
  payloads: "one 200, two 402 after ~1.1-1.4 s of work each",
};

// ---------------------------------------------------------------- clients

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  ms: number;
}

/** One HTTP request from a given loopback address (the address the service counts the client by). */
function request(
  base: string,
  from: string,
  options: { method?: string; path: string; body?: Buffer; headers?: Record<string, string> },
): Promise<Answer> {
  const url = new URL(options.path, base);
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: options.method ?? "GET",
        localAddress: from,
        headers: { ...options.headers, ...(options.body ? { "content-length": String(options.body.length) } : {}) },
        agent: false,
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (part: Buffer) => parts.push(part));
        res.on("end", () => {
          const text = Buffer.concat(parts).toString("utf8");
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON: kept as text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ms: performance.now() - start });
        });
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

async function multipart(
  file: Uint8Array,
  filename: string,
  type: string,
  fields: Record<string, string> = {},
): Promise<{ body: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(file)], { type }), filename);
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  const response = new Response(form);
  return {
    body: Buffer.from(await response.arrayBuffer()),
    headers: { "content-type": response.headers.get("content-type")! },
  };
}

// ---------------------------------------------------------------- documents

async function onePageTextPdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([595, 842]);
  const lines = readFileSync(path.join(ROOT, "tests/fixtures/notes.md"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .slice(0, 40);
  lines.forEach((line, i) => page.drawText(line.slice(0, 90), { x: 50, y: 790 - i * 18, size: 10, font }));
  return pdf.save();
}

/** A scanned PDF: the repository's scanned page images, one per page. */
async function scannedPdf(pages: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const names = ["scan-tables.png", "scan-columns.png", "scan-ledger.png"];
  for (let i = 0; i < pages; i++) {
    const image = await pdf.embedPng(readFileSync(path.join(ROOT, "tests/fixtures", names[i % names.length]!)));
    const page = pdf.addPage([595, 842]);
    page.drawImage(image, { x: 0, y: 0, width: 595, height: 842 });
  }
  return pdf.save();
}

// ---------------------------------------------------------------- the normal client

interface Latencies {
  count: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

let normalAddress = 0;

/** The normal client's requests, one after another, until `until` resolves and at least PHASE_MS have passed. */
async function normalClient(
  base: string,
  upload: { body: Buffer; headers: Record<string, string> },
  until: Promise<unknown>,
) {
  let done = false;
  void until.then(() => (done = true));
  const ms: number[] = [];
  const statuses = new Map<string, number>();
  const started = Date.now();
  let count = 0;
  while ((!done || Date.now() - started < PHASE_MS) && Date.now() - started < JOBS_DEADLINE_MS) {
    if (count++ % 90 === 0) normalAddress++;
    const from = `127.0.1.${normalAddress}`;
    const answer = await request(base, from, { method: "POST", path: "/api/chunk/free", ...upload });
    const code = (answer.body as { code?: string }).code;
    const key = `${answer.status}${code ? ` ${code}` : ""}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    // Latency is that of the answers the client wanted; a refusal is counted, and waited out a little as a client would.
    if (answer.status === 200) ms.push(answer.ms);
    else await sleep(200);
  }
  ms.sort((a, b) => a - b);
  return {
    count: ms.length,
    p50: percentile(ms, 0.5),
    p99: percentile(ms, 0.99),
    statuses: Object.fromEntries(statuses),
  };
}

// ---------------------------------------------------------------- (a) slow bodies

/** Sockets that send a request's headers and then a byte of body every SLOW_BYTE_EVERY_MS; reopened when closed. */
function slowSockets(port: number, stop: Promise<unknown>) {
  let stopped = false;
  let closedByServer = 0;
  const answered = new Map<string, number>();
  const sockets = new Set<net.Socket>();
  const open = (i: number) => {
    if (stopped) return;
    const socket = net.connect({ host: "127.0.0.1", port, localAddress: `127.0.2.${1 + (i % 5)}` });
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on("error", () => undefined);
    socket.on("connect", () =>
      socket.write(
        "POST /api/chunk/free HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\n" +
          "Content-Length: 1000000\r\n\r\n--x\r\n",
      ),
    );
    const timer = setInterval(() => socket.write("a"), SLOW_BYTE_EVERY_MS);
    // An answer before the body is complete is the server cutting the socket off (408); the client then hangs up.
    socket.once("data", (data: Buffer) => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(data.toString("latin1"))?.[1] ?? "no status";
      answered.set(status, (answered.get(status) ?? 0) + 1);
      socket.destroy();
    });
    socket.on("close", () => {
      clearInterval(timer);
      sockets.delete(socket);
      if (stopped) return;
      closedByServer++;
      // Reopened after a pause, so a server that closes at once is not flooded with connections.
      setTimeout(() => open(i), 1000);
    });
  };
  for (let i = 0; i < SLOW_SOCKETS; i++) open(i);
  void stop.then(() => {
    stopped = true;
    for (const socket of sockets) socket.destroy();
  });
  return { closedByServer: () => closedByServer, answered: () => Object.fromEntries(answered) };
}

// ---------------------------------------------------------------- (b) scans past the quota

async function scansPastQuota(base: string) {
  const attacker = "127.0.3.1";
  // 98 pages of text (3,000 characters a page) leave the attacker 2 free pages.
  const words = readFileSync(path.join(ROOT, "tests/fixtures/wikitext-excerpt.md"), "utf8");
  const text = words.repeat(Math.ceil((98 * 3000) / words.length)).slice(0, 98 * 3000 - 100);
  const burn = await request(base, attacker, {
    method: "POST",
    path: "/api/chunk/free",
    ...(await multipart(new TextEncoder().encode(text), "burn.md", "text/markdown")),
  });
  const left = (await request(base, attacker, { path: "/api/quota" })).body as { remaining?: number };
  const scan = await multipart(await scannedPdf(SCAN_PAGES), "scan.pdf", "application/pdf", { async: "true" });
  const sent = await Promise.all(
    Array.from({ length: SCANS }, () => request(base, attacker, { method: "POST", path: "/api/chunk/free", ...scan })),
  );
  const jobs = sent.flatMap((answer) => {
    const url = (answer.body as { status_url?: string }).status_url;
    return answer.status === 200 && url ? [new URL(url).pathname] : [];
  });
  const ended = (async () => {
    const outcomes = new Map<string, number>();
    for (const id of jobs) {
      for (const deadline = Date.now() + JOBS_DEADLINE_MS; ; await sleep(500)) {
        const status = (await request(base, attacker, { path: id })).body as {
          status?: string;
          error?: { code?: string } | string;
        };
        const final = status.status === "completed" || status.status === "failed" || status.status === undefined;
        if (final || Date.now() > deadline) {
          const code = typeof status.error === "object" ? status.error?.code : status.error;
          const key = `${status.status ?? "unknown"}${code ? ` ${code}` : ""}`;
          outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
          break;
        }
      }
    }
    return Object.fromEntries(outcomes);
  })();
  return { burn: burn.status, pagesLeft: left.remaining, sent: tally(sent), accepted: jobs.length, ended };
}

function tally(answers: Answer[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const answer of answers) {
    const code = (answer.body as { code?: string }).code;
    const key = `${answer.status}${code ? ` ${code}` : ""}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return Object.fromEntries(counts);
}

// ---------------------------------------------------------------- (c) an underfunded payer

async function underfundedPayer(base: string, rpcUrl: string, standinRoot: string) {
  const payerAddress = "127.0.4.1";
  const documents = await Promise.all(
    Array.from({ length: PAYLOADS }, (_, i) =>
      multipart(
        new TextEncoder().encode(
          `# Report ${i}\n\n${readFileSync(path.join(ROOT, "tests/fixtures/notes.md"), "utf8")}\n\nCopy ${i}.`,
        ),
        `report-${i}.md`,
        "text/markdown",
      ),
    ),
  );
  // The v2 offers (PAYMENT-REQUIRED), each with its document's one-time reference in `extra.memo`.
  const offers = await Promise.all(
    documents.map(async (document) => {
      const answer = await request(base, payerAddress, { method: "POST", path: "/api/chunk/ai", ...document });
      const header = answer.headers["payment-required"];
      if (answer.status !== 402 || typeof header !== "string")
        throw new Error(`expected a 402 with PAYMENT-REQUIRED from /api/chunk/ai, got ${answer.status}`);
      return decodePaymentRequiredHeader(header);
    }),
  );
  const { amount, payTo, asset } = offers[0]!.accepts[0]!;
  const price = BigInt(amount);
  const payer = await generateKeyPairSigner();
  await faucet(rpcUrl, payer.address, { usdc: Number(price) });
  const client = new x402Client();
  client.register("solana:*", new ExactSvmScheme(payer, { rpcUrl }));
  // Three transfers of the whole balance, different by their Memo (each document's reference).
  const headers = await Promise.all(
    offers.map(async (offer) => encodePaymentSignatureHeader(await client.createPaymentPayload(offer))),
  );
  const rpc = createSolanaRpc(rpcUrl);
  const payeeAccount = (
    await findAssociatedTokenPda({
      owner: address(payTo),
      mint: address(asset),
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    })
  )[0];
  const payeeBalance = async () => BigInt((await rpc.getTokenAccountBalance(payeeAccount).send()).value.amount);
  const modelCalls = async () =>
    z
      .object({ counters: z.object({ completions: z.number() }) })
      .parse(await (await fetch(`${standinRoot}/control`)).json()).counters.completions;

  const before = { payee: await payeeBalance(), calls: await modelCalls() };
  const answers = await Promise.all(
    documents.map((document, i) =>
      request(base, payerAddress, {
        method: "POST",
        path: "/api/chunk/ai",
        body: document.body,
        headers: { ...document.headers, "payment-signature": headers[i]! },
      }),
    ),
  );
  // Settlement is confirmed before the answer; the balance is read after all three.
  const after = { payee: await payeeBalance(), calls: await modelCalls() };
  return {
    price,
    answers: tally(answers),
    payeeGain: after.payee - before.payee,
    modelCalls: after.calls - before.calls,
  };
}

// ---------------------------------------------------------------- the model stand-in

async function startStandin(): Promise<{ url: string; root: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/model-standin.ts", "--port", "0"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  process.once("exit", () => child.kill("SIGKILL"));
  let output = "";
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(100)) {
    const chunk = child.stdout?.read() as Buffer | null;
    if (chunk) output += chunk.toString();
    const match = /Listening on (http:\/\/\S+\/v1)/.exec(output);
    if (match) return { url: match[1]!, root: match[1]!.replace(/\/v1$/, ""), child };
    if (child.exitCode !== null) break;
  }
  child.kill("SIGKILL");
  throw new Error(`the model stand-in did not start:\n${output}`);
}

// ---------------------------------------------------------------- run

const ms = (value: number) => (Number.isNaN(value) ? "-" : `${Math.round(value)} ms`);

async function main() {
  const { values } = parseArgs({
    options: { dist: { type: "string", default: ".next" }, only: { type: "string", default: "a,b,c" } },
  });
  const only = new Set(values.only.split(","));
  const standin = await startStandin();
  const server = await startBuiltServer(values.dist, {
    AI_BASE_URL: standin.url,
    AI_MODEL: "standin-small",
    AI_PRO_MODEL: "standin-large",
  });
  const port = Number(new URL(server.base).port);
  try {
    const pdf = await multipart(await onePageTextPdf(), "one-page.pdf", "application/pdf");
    // Warm-up: the first requests compile code paths and start workers.
    for (let i = 0; i < 5; i++)
      await request(server.base, "127.0.1.250", { method: "POST", path: "/api/chunk/free", ...pdf });

    const rows: Array<{ phase: string; latency: Latencies; cpu: number; today: string; work: string }> = [];
    const phase = async (
      name: string,
      today: string,
      abuse: () => Promise<{ until: Promise<unknown>; work: () => Promise<string> }>,
    ) => {
      console.error(`[abuse] ${name}`);
      const cpuBefore = cpuSeconds(server.pid);
      const { until, work } = await abuse();
      const latency = await normalClient(server.base, pdf, until);
      rows.push({ phase: name, latency, cpu: cpuSeconds(server.pid) - cpuBefore, today, work: await work() });
    };

    await phase("alone", TODAY.alone, async () => ({ until: Promise.resolve(), work: async () => "-" }));

    if (only.has("a"))
      await phase(`(a) ${SLOW_SOCKETS} slow-body sockets`, TODAY.slow, async () => {
        let release!: () => void;
        const stop = new Promise<void>((resolve) => (release = resolve));
        const sockets = slowSockets(port, stop);
        const until = sleep(PHASE_MS).then(release);
        return {
          until,
          work: async () =>
            `sockets cut off: ${sockets.closedByServer()} (answers ${JSON.stringify(sockets.answered())}), each opened again 1 s later`,
        };
      });

    if (only.has("b"))
      await phase(`(b) ${SCANS} async free scans past the quota`, TODAY.scans, async () => {
        const scans = await scansPastQuota(server.base);
        return {
          until: scans.ended,
          work: async () =>
            `pages left ${scans.pagesLeft}; answers ${JSON.stringify(scans.sent)}; jobs accepted ${scans.accepted}, ended ${JSON.stringify(await scans.ended)}`,
        };
      });

    if (only.has("c"))
      await phase(`(c) ${PAYLOADS} x402 payloads, one price of funds`, TODAY.payloads, async () => {
        const paid = underfundedPayer(server.base, server.rpcUrl, standin.root);
        return {
          until: paid,
          work: async () => {
            const result = await paid;
            return `answers ${JSON.stringify(result.answers)}; model calls ${result.modelCalls} (the same documents, so each answered one costs about the same); payee gained ${result.payeeGain} of price ${result.price}`;
          },
        };
      });

    const alone = rows[0]!.latency;
    console.log(
      `\nA normal client's latency while others abuse the service (${values.dist}; 1-page text PDF, free tier, sequential):\n`,
    );
    console.log(
      "| phase | requests | p50 (200s) | p99 (200s) | p99 / alone | normal client's answers | server CPU s | work done for the abuser | before (issue 26) |",
    );
    console.log("|---|---:|---:|---:|---:|---|---:|---|---|");
    for (const row of rows) {
      const { latency } = row;
      console.log(
        `| ${row.phase} | ${latency.count} | ${ms(latency.p50)} | ${ms(latency.p99)} | ${latency.count === 0 ? "-" : `${(latency.p99 / alone.p99).toFixed(2)}x`} | ${JSON.stringify(latency.statuses)} | ${row.cpu.toFixed(1)} | ${row.work} | ${row.today} |`,
      );
    }
    console.log(
      "\nTarget (issue 26): p99 within 2x of alone in every phase; no work for (b), none beyond the first payload for (c).",
    );
  } finally {
    await server.stop();
    standin.child.kill("SIGTERM");
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
