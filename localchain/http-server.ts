import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { answerJsonRpc, type MethodHandler } from "@/localchain/jsonrpc";
import type { PubSub } from "@/localchain/pubsub";

/**
 * The node's HTTP face: JSON-RPC on POST, `GET /health`, CORS for the web
 * page's wallet (it calls the chain from another origin), and websocket
 * upgrades handed to the pub/sub endpoint.
 */

/** Agave's limit on a JSON-RPC request body. */
export const MAX_REQUEST_BYTES = 50 * 1024;

const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, GET, OPTIONS",
  "access-control-allow-headers": "content-type, solana-client",
  "access-control-max-age": "86400",
};

export function createRpcServer(handler: MethodHandler, pubsub: PubSub): Server {
  const server = createServer((request, response) => {
    // A client that goes away mid-request must not take the process down with it.
    serve(request, response, handler).catch(() => {
      if (response.headersSent) response.destroy();
      else response.writeHead(500, CORS_HEADERS).end();
    });
  });
  server.on("upgrade", (request, socket, head) => pubsub.handleUpgrade(request, socket, head));
  return server;
}

/** web3.js 1.x looks for websockets one port above the RPC: that listener only upgrades. */
export function createWebsocketServer(pubsub: PubSub): Server {
  const server = createServer((_request, response) => {
    response
      .writeHead(426, { "content-type": "text/plain", connection: "close" })
      .end("Upgrade Required: this port serves websockets only\n");
  });
  server.on("upgrade", (request, socket, head) => pubsub.handleUpgrade(request, socket, head));
  return server;
}

async function serve(request: IncomingMessage, response: ServerResponse, handler: MethodHandler): Promise<void> {
  if (request.method === "OPTIONS") {
    response.writeHead(204, CORS_HEADERS).end();
    return;
  }
  if (request.method === "GET" && request.url?.split("?")[0] === "/health") {
    response.writeHead(200, { ...CORS_HEADERS, "content-type": "text/plain" }).end("ok");
    return;
  }
  if (request.method !== "POST") {
    response
      .writeHead(405, { ...CORS_HEADERS, allow: "POST, OPTIONS", "content-type": "text/plain" })
      .end("Used HTTP Method is not allowed. POST or OPTIONS is required\n");
    return;
  }
  const body = await readBody(request, MAX_REQUEST_BYTES);
  if (body === null) {
    // Stop reading the rest of the upload once the answer is out.
    response.on("finish", () => request.destroy());
    response
      .writeHead(413, { ...CORS_HEADERS, "content-type": "text/plain", connection: "close" })
      .end("Payload Too Large\n");
    return;
  }
  const answer = await answerJsonRpc(body, handler);
  if (answer === null) {
    response.writeHead(204, CORS_HEADERS).end();
    return;
  }
  response.writeHead(200, { ...CORS_HEADERS, "content-type": "application/json" }).end(answer);
}

/** Counts bytes as they arrive rather than trusting Content-Length; null once over the limit. */
function readBody(request: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.off("data", onData);
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    request.on("data", onData);
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}
