/**
 * `npm run bench` (part): a chunk route's cold start. Starts `server.mjs` on a
 * build (`npm run build`) in local mode, with its embedded chain, and times
 * from the process's start to the first 200 answer to POST /api/chunk/free
 * with a small Markdown note, asked every 20 ms from the start (a refused
 * connection or an error is asked again). The median of `--runs` fresh
 * processes (default 5), with the fastest and slowest.
 *   npx tsx scripts/bench-cold-start.ts [--dist DIR] [--server FILE] [--runs N]
 * `--server` runs another start script, e.g. an older server.mjs kept beside a
 * build of an older commit, to compare the two.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { freePort } from "../tests/helpers/redis-server";

const ROOT = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    dist: { type: "string", default: process.env.NEXT_DIST_DIR || ".next" },
    server: { type: "string", default: "server.mjs" },
    runs: { type: "string", default: "5" },
  },
});
const dist = values.dist;
const runs = Number.parseInt(values.runs, 10);
if (!existsSync(path.join(ROOT, dist, "BUILD_ID"))) {
  console.log(`Cold-start benchmark skipped: no build in ${dist} (run npm run build, or pass --dist DIR).`);
  process.exit(0);
}

const NOTE = `# Cold start\n\n${"A short note about chunking documents for retrieval. ".repeat(20)}\n`;
/** A process that has not answered in this long is broken, not slow. */
const GIVE_UP_MS = 120_000;

async function coldStart(): Promise<number> {
  const port = await freePort();
  const chainPort = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [values.server], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOST: "127.0.0.1",
      PORT: String(port),
      NEXT_DIST_DIR: dist,
      LOCAL_CHAIN_PORT: String(chainPort),
    } as Record<string, string | undefined> as NodeJS.ProcessEnv,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  try {
    while (performance.now() - started < GIVE_UP_MS) {
      if (child.exitCode !== null) throw new Error(`${values.server} exited:\n${errors}`);
      const form = new FormData();
      form.set("file", new Blob([NOTE], { type: "text/markdown" }), "note.md");
      const status = await fetch(`http://127.0.0.1:${port}/api/chunk/free`, { method: "POST", body: form }).then(
        async (response) => {
          await response.arrayBuffer();
          return response.status;
        },
        () => 0,
      );
      if (status === 200) return performance.now() - started;
      await sleep(20);
    }
    throw new Error(`no 200 within ${GIVE_UP_MS / 1000} s:\n${errors}`);
  } finally {
    if (child.exitCode === null && child.signalCode === null) await stop(child);
  }
}

async function stop(child: ReturnType<typeof spawn>): Promise<void> {
  const gone = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await gone;
  clearTimeout(timer);
}

const times: number[] = [];
for (let run = 0; run < runs; run++) times.push(await coldStart());
times.sort((a, b) => a - b);
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
console.log(
  `Cold start (${values.server} on ${dist}, process start to the first 200 on POST /api/chunk/free), ${runs} runs: ` +
    `median ${s(times[Math.floor(times.length / 2)]!)}, fastest ${s(times[0]!)}, slowest ${s(times.at(-1)!)}`,
);
