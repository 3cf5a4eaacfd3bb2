/**
 * `server.mjs` on a build, in local mode with its embedded chain, on free
 * loopback ports: what the load and abuse benchmarks measure.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../tests/helpers/redis-server";

const ROOT = path.resolve(import.meta.dirname, "..");

export interface BuiltServer {
  base: string;
  pid: number;
  /** The embedded chain's RPC URL. */
  rpcUrl: string;
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

export async function startBuiltServer(dist: string, env: Record<string, string> = {}): Promise<BuiltServer> {
  if (!existsSync(path.join(ROOT, dist, "BUILD_ID"))) throw new Error(`no build in ${dist}: run npm run build first`);
  const port = await freePort();
  const chainPort = await twoFreePorts();
  const child = spawn(process.execPath, ["server.mjs"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOST: "127.0.0.1",
      PORT: String(port),
      NEXT_DIST_DIR: dist,
      LOCAL_CHAIN_PORT: String(chainPort),
      ...env,
    } as Record<string, string | undefined> as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await gone;
    clearTimeout(timer);
  };
  process.once("exit", () => child.kill("SIGKILL"));
  const base = `http://127.0.0.1:${port}`;
  const rpcUrl = `http://127.0.0.1:${chainPort}`;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(100)) {
    if (child.exitCode !== null) throw new Error(`server.mjs exited:\n${output}`);
    try {
      if ((await fetch(`${base}/api/health`)).ok)
        return { base, pid: child.pid!, rpcUrl, child, output: () => output, stop };
    } catch {
      // not listening yet
    }
  }
  await stop();
  throw new Error(`server.mjs did not become healthy:\n${output}`);
}

/** A port whose next one is free too (the local chain serves websockets there). */
async function twoFreePorts(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port < 65535 && (await isFree(port + 1))) return port;
  }
}

async function isFree(port: number): Promise<boolean> {
  const net = await import("node:net");
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** The kernel's high-water mark of the process's resident memory, in MB. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** CPU seconds the process has used so far (user + system, worker threads included). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // utime and stime are fields 14 and 15 of stat; after the ") " split, indexes 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
