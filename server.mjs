// Serves the built app (`next build`) with Node's HTTP server, so the free
// quota can key on the socket's peer address: Next.js itself only sees
// headers, and a client can send any X-Forwarded-For it likes.
import http from "node:http";
import next from "next";

process.env.NEXT_TELEMETRY_DISABLED ??= "1";
const PEER_HEADER = "x-chunkwise-peer";
const port = Number.parseInt(process.env.PORT ?? "3000", 10);
const host = process.env.HOST ?? "0.0.0.0";

const app = next({ dev: false, dir: import.meta.dirname, hostname: "localhost", port });
await app.prepare();
const handle = app.getRequestHandler();

const server = http.createServer((req, res) => {
  // Overwrites whatever the client sent under this name.
  req.headers[PEER_HEADER] = req.socket.remoteAddress ?? "unknown";
  handle(req, res);
});
server.listen(port, host, () => {
  console.log(`Chunkwise ready on http://localhost:${port} (API at /api)`);
});

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 5000).unref();
  });
}
