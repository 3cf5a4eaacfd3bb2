import { logEvent } from "@/lib/observability/events";
import { z } from "zod";
import type { Network } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";
import type { ChainRpc } from "@/lib/payments/chain-rpc";

/**
 * The RPC must serve the chain SOLANA_NETWORK names: an RPC of another chain
 * would judge payments on a chain where "USDC" is anyone's token. Checked by
 * genesis hash on first use, on every host (Vercel runs no server.mjs), and
 * remembered; an RPC that cannot be reached is asked again next time. The
 * local chain makes a new genesis each start, so it is not checked.
 */

export const GENESIS_HASHES: Partial<Record<Network, string>> = {
  solana: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d",
  "solana-devnet": "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG",
};

const wrongChain = (network: Network, genesis: string) =>
  new ApiError(
    "server_misconfigured",
    `The server's Solana RPC serves a chain whose genesis hash is ${genesis}, not ${network}'s: it takes no payments until its operator points SOLANA_RPC_URL at ${network}.`,
  );

export class ChainIdentity {
  #checked: Promise<void> | undefined;

  constructor(
    private readonly rpc: ChainRpc,
    private readonly network: Network,
  ) {}

  /** Resolves when the RPC serves this network's chain; a mismatch is a 503 `server_misconfigured`, remembered and logged once. */
  assert(): Promise<void> {
    const expected = GENESIS_HASHES[this.network];
    if (!expected) return Promise.resolve();
    this.#checked ??= this.rpc.call("getGenesisHash", [], z.string()).then(
      (genesis) => {
        if (genesis === expected) return;
        const error = wrongChain(this.network, genesis);
        logEvent("payments.wrong_chain", { network: this.network, reason: error.message }, "error");
        throw error;
      },
      (error: unknown) => {
        // Unreachable is not wrong: ask again on the next request.
        this.#checked = undefined;
        throw error;
      },
    );
    return this.#checked;
  }
}
