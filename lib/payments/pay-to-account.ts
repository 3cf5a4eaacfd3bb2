import { z } from "zod";
import type { Config } from "@/lib/ground/config";
import { createChainRpc } from "@/lib/payments/chain-rpc";

/**
 * `payTo` must own a USDC token account before payments arrive: a transfer
 * to an owner without one fails, and clients would pay fees for nothing.
 * Checked at start-up on real networks (the local chain creates its own).
 */
const Accounts = z.object({ value: z.array(z.object({ pubkey: z.string() })) });

export async function payToTokenAccounts(config: Pick<Config, "payments" | "payTo" | "usdcMint">): Promise<string[]> {
  const rpc = createChainRpc(config.payments.rpcUrl);
  const answer = await rpc.call(
    "getTokenAccountsByOwner",
    [config.payTo, { mint: config.usdcMint }, { encoding: "base64", commitment: "confirmed" }],
    Accounts,
  );
  return answer.value.map((account) => account.pubkey);
}
