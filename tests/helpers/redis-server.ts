import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export interface RedisServer {
  url: string;
  port: number;
  stop: () => Promise<void>;
}

const READY_WITHIN_MS = 10_000;

/**
 * A real, throw-away redis-server on a free loopback port, without persistence.
 * Pass `port` to bring a stopped server back where its clients expect it.
 * Throws when redis-server is missing: tests that silently skip would pass
 * while checking nothing (DESIGN.md: tests talk to a real redis-server).
 */
export async function startRedisServer(options: { port?: number; binary?: string } = {}): Promise<RedisServer> {
  const binary = options.binary ?? "redis-server";
  const port = options.port ?? (await freePort());
  const dir = await mkdtemp(join(tmpdir(), "chunkwise-redis-"));
  const child = spawn(
    binary,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<Error>((resolve) => {
    child.once("error", (error: NodeJS.ErrnoException) =>
      resolve(
        error.code === "ENOENT"
          ? new Error(`${binary} is not installed; these tests need a real one (apt-get install -y redis-server).`)
          : error,
      ),
    );
    child.once("exit", (code, signal) =>
      resolve(new Error(`redis-server exited early (code ${code}, signal ${signal}):\n${output}`)),
    );
  });
  // A test run that dies mid-way must not leave servers behind.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  const stop = async () => {
    process.off("exit", killOnExit);
    await kill(child);
    await rm(dir, { recursive: true, force: true });
  };

  const started = Date.now();
  for (;;) {
    const failure = await Promise.race([exited, sleep(50).then(() => undefined)]);
    if (failure) {
      await stop();
      throw failure;
    }
    if (await answersPing(port)) return { url: `redis://127.0.0.1:${port}`, port, stop };
    if (Date.now() - started > READY_WITHIN_MS) {
      await stop();
      throw new Error(`redis-server on port ${port} did not answer PING within ${READY_WITHIN_MS} ms:\n${output}`);
    }
  }
}

/** A port the OS just handed out; the small race until redis-server binds it shows up as a loud early exit. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("Could not get a free port.");
  return address.port;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    let reply = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"));
    });
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
  await gone;
  clearTimeout(timer);
}
