import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createClient, ErrorReply, MultiErrorReply } from "redis";

export interface UpstashBridge {
  url: string;
  token: string;
  stop: () => Promise<void>;
}

type Reply = { result: unknown } | { error: string };

/** Upstash's largest request (free and pay-as-you-go plans: upstash.com/docs/redis/troubleshooting/max_request_size_exceeded). */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

/**
 * The Upstash REST protocol (as @upstash/redis 1.39 speaks it, see
 * shared/notes/toolchain.md) in front of a real redis-server, so the Upstash
 * store is tested against real Redis semantics rather than a fake.
 */
export async function startUpstashBridge(redisUrl: string): Promise<UpstashBridge> {
  const token = randomBytes(16).toString("hex");
  const redis = createClient({ url: redisUrl });
  redis.on("error", () => {});
  await redis.connect();

  const run = async (command: unknown): Promise<Reply> => {
    try {
      return { result: await redis.sendCommand(toArgs(command)) };
    } catch (error) {
      if (error instanceof ErrorReply) return { error: error.message };
      throw error;
    }
  };

  const transaction = async (commands: unknown[]): Promise<Reply[]> => {
    const multi = redis.multi();
    for (const command of commands) multi.addCommand(toArgs(command));
    try {
      return (await multi.exec()).map((result) => ({ result }));
    } catch (error) {
      // Runtime errors inside EXEC fail single commands, not the transaction.
      if (!(error instanceof MultiErrorReply)) throw error;
      const failed = new Set(error.errorIndexes);
      return error.replies.map((reply, i) => (failed.has(i) ? { error: reply.message } : { result: reply }));
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      send(res, 500, { error: error instanceof Error ? error.message : String(error) }),
    );
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST") return send(res, 405, { error: "Only POST is served." });
    if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: "Unauthorized" });
    const base64 = req.headers["upstash-encoding"] === "base64";
    const encode = (reply: Reply): Reply =>
      "result" in reply && base64 ? { result: encodeStrings(reply.result) } : reply;
    const text = await readBody(req);
    // Upstash's own limit on free and pay-as-you-go databases, answered as it answers it.
    if (Buffer.byteLength(text) > MAX_REQUEST_BYTES) return send(res, 400, { error: "ERR max request size exceeded" });
    const body: unknown = JSON.parse(text);

    const path = new URL(req.url ?? "/", "http://bridge").pathname;
    if (path === "/") {
      const reply = await run(body);
      return send(res, "error" in reply ? 400 : 200, encode(reply));
    }
    if (path === "/pipeline" || path === "/multi-exec") {
      if (!Array.isArray(body)) return send(res, 400, { error: "Expected an array of commands." });
      const replies = path === "/pipeline" ? await Promise.all(body.map(run)) : await transaction(body);
      return send(res, 200, replies.map(encode));
    }
    return send(res, 404, { error: `Unknown path ${path}.` });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await redis.close();
    },
  };
}

function toArgs(command: unknown): string[] {
  if (!Array.isArray(command) || command.length === 0) throw new ErrorReply("ERR a command is a non-empty JSON array");
  return command.map((part) => (typeof part === "string" ? part : JSON.stringify(part)));
}

/** The client base64-decodes every string it gets back except the status "OK". */
function encodeStrings(value: unknown): unknown {
  if (typeof value === "string") return value === "OK" ? value : Buffer.from(value, "utf8").toString("base64");
  if (Array.isArray(value)) return value.map(encodeStrings);
  return value;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "upstash-sync-token": "" });
  res.end(JSON.stringify(body));
}
