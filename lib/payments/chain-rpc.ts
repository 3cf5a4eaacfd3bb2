import type { GetMultipleAccountsApi, Rpc } from "@solana/kit";
import { z } from "zod";
import { ApiError } from "@/lib/ground/errors";

/**
 * A minimal Solana JSON-RPC client for verifying payments. Answers are
 * validated with zod at this boundary; anything that keeps us from reading
 * the chain (network, timeout, 5xx, an error reply) is a 503, never a 402:
 * the client's payment has not been judged, so it stays untouched.
 */
export interface ChainRpc {
  call: <T>(method: string, params: unknown[], schema: z.ZodType<T>) => Promise<T>;
}

const Reply = z.union([
  z.object({ result: z.unknown() }),
  z.object({ error: z.object({ code: z.number(), message: z.string() }) }),
]);

/** The node answered with a JSON-RPC error (it was reached): the cause of the 503, for callers to whom it means a refusal. */
export class RpcErrorReply extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const chainUnavailable = (detail: string, cause?: unknown) =>
  new ApiError(
    "chain_unavailable",
    `The Solana RPC could not be reached (${detail}); nothing was charged or recorded, retry the same request shortly.`,
    { headers: { "Retry-After": "5" }, cause },
  );

export function createChainRpc(url: string, options: { timeoutMs?: number } = {}): ChainRpc {
  const timeoutMs = options.timeoutMs ?? 10_000;
  let id = 0;
  return {
    async call(method, params, schema) {
      let response: Response;
      try {
        response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw chainUnavailable(`${method}: ${error instanceof Error ? error.message : String(error)}`, error);
      }
      if (!response.ok) throw chainUnavailable(`${method}: HTTP ${response.status}`);
      const reply = Reply.safeParse(await response.json().catch(() => undefined));
      if (!reply.success) throw chainUnavailable(`${method}: unreadable answer`);
      if ("error" in reply.data)
        throw chainUnavailable(
          `${method}: ${reply.data.error.message} (${reply.data.error.code})`,
          new RpcErrorReply(reply.data.error.code, reply.data.error.message),
        );
      const result = schema.safeParse(reply.data.result);
      if (!result.success) throw chainUnavailable(`${method}: unexpected answer shape`, result.error);
      return result.data;
    },
  };
}

/**
 * This client in the shape @solana/kit asks of the one call x402 verification makes (resolving address lookup
 * tables), so the gate reads the chain through the injected client only. kit reads just `value` of the answer.
 */
export const lookupTableReader = (rpc: ChainRpc): Rpc<GetMultipleAccountsApi> =>
  ({
    getMultipleAccounts: (addresses: readonly string[], config?: object) => ({
      send: () => rpc.call("getMultipleAccounts", [addresses, config ?? {}], z.object({ value: z.array(z.unknown()) })),
    }),
    // kit's Rpc type is a proxy over every method; verification calls only this one.
  }) as unknown as Rpc<GetMultipleAccountsApi>;
