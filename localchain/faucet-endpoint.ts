import { z } from "zod";
import { describeIssues, type FaucetAnswer, FaucetRequestSchema } from "@/lib/api-schema";
import { ApiError } from "@/lib/ground/errors";
import type { Services } from "@/lib/services";

/**
 * `POST /api/dev/faucet`, local mode only: funds an address with SOL and test
 * USDC on the embedded chain (through its `chunkwise_faucet` RPC method, so
 * this module loads none of the chain), so anyone can try the paid tiers
 * without real money. On any other network the endpoint does not exist.
 */

const FaucetAnswer = z.object({
  signatures: z.array(z.string()),
  lamports: z.number(),
  usdc_base_units: z.number(),
  token_account: z.string(),
});

/** Throws the 404 every other network answers; called before the body is read. */
export function assertFaucetAvailable(services: Pick<Services, "config">): void {
  if (services.config.network !== "solana-localnet")
    throw new ApiError("not_found", "The faucet exists only on the local test chain.");
}

export async function runFaucet(services: Pick<Services, "config" | "chain">, body: unknown): Promise<FaucetAnswer> {
  assertFaucetAvailable(services);
  const request = FaucetRequestSchema.safeParse(body);
  if (!request.success) throw new ApiError("invalid_request", describeIssues(request.error));
  const funded = await services.chain.call("chunkwise_faucet", [request.data.address], FaucetAnswer);
  return {
    success: true,
    address: request.data.address,
    sol: funded.lamports / 1e9,
    usdc: funded.usdc_base_units / 1e6,
    token_account: funded.token_account,
    signatures: funded.signatures,
    network: services.config.network,
  };
}
