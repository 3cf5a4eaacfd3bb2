import type { Server } from "node:http";
import { address, generateKeyPairSigner } from "@solana/kit";
import { DEVNET_USDC_MINT } from "@/lib/ground/config";
import { Faucet } from "@/localchain/faucet";
import { createRpcServer, createWebsocketServer } from "@/localchain/http-server";
import { generateExportableKeyPair } from "@/localchain/keys";
import { Ledger } from "@/localchain/ledger";
import { PubSub } from "@/localchain/pubsub";
import { callMethod } from "@/localchain/rpc-methods";

/**
 * The embedded local Solana chain of local mode: the real runtime (litesvm)
 * behind a JSON-RPC and websocket endpoint that behaves like a validator's,
 * with a test USDC mint at devnet USDC's address, a funded fee payer and the
 * service's recipient account. Local mode and tests only: nothing under app/
 * or lib/ may import this (Vercel functions must not load litesvm's native
 * binary); `server.mjs` starts it.
 */
export interface LocalChain {
  /** http://<host>:<port> */
  rpcUrl: string;
  /** ws://<host>:<port>; the same websocket API is also served on port + 1. */
  wsUrl: string;
  port: number;
  /** DEVNET_USDC_MINT: a test mint (6 decimals) placed at devnet USDC's address. */
  usdcMint: string;
  /** The service's recipient (owner address); its key is generated and thrown away. */
  payTo: string;
  /** payTo's USDC associated token account, created at start. */
  payToTokenAccount: string;
  /** Funded with SOL; `secretKey` is base58 of the 64-byte secret, as FEE_PAYER_SECRET_KEY expects. */
  feePayer: { address: string; secretKey: string };
  close: () => Promise<void>;
}

const USDC_DECIMALS = 6;
const FEE_PAYER_LAMPORTS = 100n * 1_000_000_000n;
const FREE_PORT_ATTEMPTS = 20;

export async function startLocalChain(options: { port: number; host?: string }): Promise<LocalChain> {
  const host = options.host ?? "127.0.0.1";
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65534) {
    throw new RangeError(`local chain port must be 0 (any free pair) or 1-65534, got ${options.port}`);
  }
  const ledger = new Ledger();
  const faucet = await Faucet.create(ledger, { mint: address(DEVNET_USDC_MINT), decimals: USDC_DECIMALS });
  const payTo = await generateKeyPairSigner();
  const feePayer = await generateExportableKeyPair();
  const payToTokenAccount = await faucet.createTokenAccount(payTo.address);
  await faucet.fund(feePayer.signer.address, { lamports: FEE_PAYER_LAMPORTS, usdcBaseUnits: 0n });

  const pubsub = new PubSub(ledger);
  const rpc = createRpcServer((method, params) => callMethod({ ledger, faucet }, method, params), pubsub);
  const websockets = createWebsocketServer(pubsub);
  let port: number;
  try {
    port = await listenOnPair(rpc, websockets, host, options.port);
  } catch (error) {
    pubsub.close();
    throw error;
  }
  const urlHost = host.includes(":") ? `[${host}]` : host;

  let closing: Promise<void> | null = null;
  return {
    rpcUrl: `http://${urlHost}:${port}`,
    wsUrl: `ws://${urlHost}:${port}`,
    port,
    usdcMint: DEVNET_USDC_MINT,
    payTo: payTo.address,
    payToTokenAccount,
    feePayer: { address: feePayer.signer.address, secretKey: feePayer.secretKey },
    close() {
      closing ??= (async () => {
        pubsub.close();
        await Promise.all([closeServer(rpc), closeServer(websockets)]);
      })();
      return closing;
    },
  };
}

/** Listens on `port` and `port + 1`; with port 0, finds a free pair. */
async function listenOnPair(rpc: Server, websockets: Server, host: string, port: number): Promise<number> {
  if (port !== 0) {
    await listen(rpc, port, host);
    try {
      await listen(websockets, port + 1, host);
    } catch (error) {
      await closeServer(rpc);
      throw error;
    }
    return port;
  }
  for (let attempt = 0; attempt < FREE_PORT_ATTEMPTS; attempt++) {
    await listen(rpc, 0, host);
    const chosen = (rpc.address() as { port: number }).port;
    if (chosen < 65535) {
      try {
        await listen(websockets, chosen + 1, host);
        return chosen;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") {
          await closeServer(rpc);
          throw error;
        }
      }
    }
    await closeServer(rpc);
  }
  throw new Error(`local chain: found no free pair of ports on ${host} after ${FREE_PORT_ATTEMPTS} attempts`);
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}
