/**
 * Runs the embedded local Solana chain on its own (the service starts it by
 * itself in local mode):
 *   npx tsx scripts/local-chain.ts        (port: LOCAL_CHAIN_PORT, default 8899; websockets also on port + 1)
 * Prints the endpoints and the test wallets, then runs until Ctrl-C. All keys
 * are generated at start and hold test tokens only.
 */
import { ConfigError, loadConfig } from "@/lib/ground/config";
import { startLocalChain } from "@/localchain";

async function main(): Promise<number> {
  let port: number;
  try {
    const config = loadConfig();
    if (config.network !== "solana-localnet") {
      console.error(`SOLANA_NETWORK is ${config.network}: the local chain runs only for solana-localnet.`);
      return 2;
    }
    port = config.payments.localChainPort;
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }

  const chain = await startLocalChain({ port });
  console.log(`Local Solana chain (litesvm, test USDC, no real money)
  rpc:        ${chain.rpcUrl}
  websocket:  ${chain.wsUrl} (also ws://127.0.0.1:${chain.port + 1})
  USDC mint:  ${chain.usdcMint} (6 decimals, test mint at devnet USDC's address)
  payTo:      ${chain.payTo} (USDC account ${chain.payToTokenAccount})
  fee payer:  ${chain.feePayer.address}

To point a separately started service at it:
  SOLANA_NETWORK=solana-localnet SOLANA_RPC_URL=${chain.rpcUrl} PAY_TO_ADDRESS=${chain.payTo} FEE_PAYER_SECRET_KEY=${chain.feePayer.secretKey}

Test funds: curl -s ${chain.rpcUrl} -H 'content-type: application/json' \\
  -d '{"jsonrpc":"2.0","id":1,"method":"chunkwise_faucet","params":["<address>",{"lamports":1000000000,"usdc":10000000}]}'`);

  await new Promise<void>((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve());
  });
  await chain.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
