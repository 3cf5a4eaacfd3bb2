/**
 * What `server.mjs` runs from the TypeScript sources before Next starts: the
 * config and the start-up checks of a real network (the embedded chain,
 * localchain/index.ts, is compiled on its own: only local mode loads it).
 * `npm run build` compiles both (scripts/compile-node.ts), so starting the
 * server compiles no TypeScript.
 */
export { ConfigError, loadConfig } from "@/lib/ground/config";
export { ChainIdentity } from "@/lib/payments/chain-identity";
export { createChainRpc } from "@/lib/payments/chain-rpc";
export { payToTokenAccounts } from "@/lib/payments/pay-to-account";
export { refusedOverLimit } from "@/lib/http/function-body-limit";
export { logger } from "@/lib/observability/log";
