/** A JSON-RPC 2.0 error answered to the client, with the codes a Solana node uses. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

export const RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Solana: preflight simulation failed. */
  preflightFailure: -32002,
  /** Solana: a signature does not verify. */
  signatureVerificationFailure: -32003,
  /** Solana: block not available for slot. */
  blockNotAvailable: -32004,
  /** Solana: transaction version not supported by the requesting client. */
  unsupportedTransactionVersion: -32015,
} as const;

export const invalidParams = (detail: string): RpcError =>
  new RpcError(RPC_CODES.invalidParams, `Invalid params: ${detail}`);
export const invalidParam = (detail: string): RpcError =>
  new RpcError(RPC_CODES.invalidParams, `Invalid param: ${detail}`);
