import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "./redis-server";

/**
 * The built app (`npm run build`) served by `server.mjs` as `npm start` does,
 * as a child process with exactly the environment given (plus PATH, PORT and
 * a loopback HOST), for tests that need whole instances: several sharing one
 * store, or one killed mid-work.
 */

const root = join(import.meta.dirname, "..", "..");
const READY_WITHIN_MS = 30_000;

export interface BuiltServer {
  /** http://127.0.0.1:PORT */
  base: string;
  process: ChildProcess;
  /** Everything it printed so far, for failure messages. */
  output: () => string;
  /** SIGKILL: the process dies at once, mid-work, as a crashed machine would. */
  kill: () => Promise<void>;
  /** SIGTERM, then SIGKILL if it has not exited within 5 s. */
  stop: () => Promise<void>;
}

/** Ready once GET /api/health answers 200 (store and chain reachable). */
export async function startBuiltServer(env: Record<string, string>): Promise<BuiltServer> {
  if (!existsSync(join(root, ".next", "BUILD_ID")))
    throw new Error("No build found: run `npm run build` first (`npm test` does).");
  const port = await freePort();
  const child = spawn(process.execPath, ["server.mjs"], {
    cwd: root,
    env: { PATH: process.env.PATH, HOST: "127.0.0.1", PORT: String(port), ...env } as Record<
      string,
      string | undefined
    > as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  // A test run that dies mid-way must not leave servers behind.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const end = async (signal: NodeJS.Signals) => {
    process.off("exit", killOnExit);
    if (exited()) return;
    const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await gone;
    clearTimeout(timer);
  };
  const server: BuiltServer = {
    base: `http://127.0.0.1:${port}`,
    process: child,
    output: () => output,
    kill: () => end("SIGKILL"),
    stop: () => end("SIGTERM"),
  };

  const deadline = Date.now() + READY_WITHIN_MS;
  while (Date.now() < deadline) {
    if (exited()) {
      await server.stop();
      throw new Error(`server.mjs exited early:\n${output}`);
    }
    try {
      if ((await fetch(`${server.base}/api/health`)).ok) return server;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  await server.stop();
  throw new Error(`server.mjs did not become healthy within ${READY_WITHIN_MS} ms:\n${output}`);
}
