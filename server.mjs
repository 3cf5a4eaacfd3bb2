// Serves the built app (`next build`) with Node's HTTP server, so the free
// quota can key on the socket's peer address: Next.js itself only sees
// headers, and a client can send any X-Forwarded-For it likes.
// In local mode (the default network, no SOLANA_RPC_URL) it also runs the
// embedded Solana chain beside the app; deployed functions never load it.
import { existsSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import next from "next";

process.env.NEXT_TELEMETRY_DISABLED ??= "1";
const PEER_HEADER = "x-chunkwise-peer";
const port = Number.parseInt(process.env.PORT ?? "3000", 10);
const host = process.env.HOST ?? "0.0.0.0";
// What `npm run build` compiled beside the build (scripts/compile-node.ts): no TypeScript is compiled here.
const compiled = path.join(import.meta.dirname, `${process.env.NEXT_DIST_DIR || ".next"}-compiled`);
if (!existsSync(path.join(compiled, "server-start.mjs"))) {
  console.error(`No compiled server in ${compiled}: run \`npm run build\` first.`);
  process.exit(1);
}
const load = (name) => import(pathToFileURL(path.join(compiled, name)).href);

const { loadConfig, ConfigError, ChainIdentity, createChainRpc, payToTokenAccounts, refusedOverLimit, logger } =
  await load("server-start.mjs");
const log = logger();
let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  log.error({ event: "config.refused", reason: error.message });
  process.exit(1);
}

let chain;
if (config.network === "solana-localnet" && !process.env.SOLANA_RPC_URL) {
  const { startLocalChain } = await load("local-chain.mjs");
  chain = await startLocalChain({ port: config.payments.localChainPort });
  // The app's config is read from the environment: point it at this chain and its generated test keys.
  Object.assign(process.env, {
    SOLANA_RPC_URL: chain.rpcUrl,
    SOLANA_WS_URL: chain.wsUrl,
    PAY_TO_ADDRESS: chain.payTo,
    FEE_PAYER_SECRET_KEY: chain.feePayer.secretKey,
  });
  log.info(
    { event: "localchain.started", rpc_url: chain.rpcUrl, pay_to: chain.payTo },
    `Local Solana chain (test USDC, no real money) on ${chain.rpcUrl}; payTo ${chain.payTo}`,
  );
} else if (config.network !== "solana-localnet") {
  // The same check every host makes on first use (lib/payments/chain-identity.ts), made here before listening.
  const wrongChain = await new ChainIdentity(createChainRpc(config.payments.rpcUrl), config.network).assert().then(
    () => false,
    (error) => error.code === "server_misconfigured",
  );
  if (wrongChain) process.exit(1);
  const accounts = await payToTokenAccounts(config).catch((error) => {
    log.warn(
      { event: "payto.unchecked", reason: error.message },
      "Could not check payTo's USDC account; /api/health reports the RPC.",
    );
    return null;
  });
  if (accounts?.length === 0) {
    log.error(
      { event: "payto.no_token_account", pay_to: config.payTo, mint: config.usdcMint, network: config.network },
      `PAY_TO_ADDRESS ${config.payTo} has no USDC token account for mint ${config.usdcMint} on ${config.network}: create it before taking payments.`,
    );
    process.exit(1);
  }
}

if (config.functionBodyLimitBytes)
  log.info(
    { event: "test_mode.body_limit", bytes: config.functionBodyLimitBytes },
    `Test mode: request bodies over ${config.functionBodyLimitBytes} bytes are refused (FUNCTION_BODY_LIMIT_BYTES)`,
  );

const app = next({ dev: false, dir: import.meta.dirname, hostname: "localhost", port });
await app.prepare();
const handle = app.getRequestHandler();

const server = http.createServer((req, res) => {
  // Overwrites whatever the client sent under this name.
  req.headers[PEER_HEADER] = req.socket.remoteAddress ?? "unknown";
  if (refusedOverLimit(req, res, config.functionBodyLimitBytes)) return;
  handle(req, res);
});
// Node's own bounds on receiving a request, beside the handlers' body deadline (BODY_READ_TIMEOUT_MS): headers
// within 15 s (a slowloris holds a socket, never a place); the whole request a little after the handlers' deadline,
// so their clear 408 answer comes first and Node's bare one only for a body nobody was reading.
server.headersTimeout = 15_000;
server.requestTimeout = Math.max(server.headersTimeout, config.bodyRead.timeoutMs + 10_000);
server.listen(port, host, () => {
  log.info({ event: "server.ready", port }, `Chunkwise ready on http://localhost:${port} (API at /api)`);
});

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.close(() => (chain ? chain.close().finally(() => process.exit(0)) : process.exit(0)));
    setTimeout(() => process.exit(0), 5000).unref();
  });
}
