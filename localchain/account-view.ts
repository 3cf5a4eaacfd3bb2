import { getBase58Decoder, getBase64Decoder, type Address, type EncodedAccount } from "@solana/kit";
import { RPC_CODES, RpcError, invalidParams } from "@/localchain/rpc-error";
import { parsedTokenData } from "@/localchain/token-state";

/** Accounts as `getAccountInfo` and friends write them, per `encoding`. */
export type AccountEncoding = "binary" | "base58" | "base64" | "base64+zstd" | "jsonParsed";

/** Every account is rent-exempt now; nodes report the rent epoch as u64::MAX. */
const RENT_EXEMPT_EPOCH = 18_446_744_073_709_551_615n;
const MAX_BASE58_BYTES = 128;

export interface AccountViewOptions {
  encoding: AccountEncoding;
  dataSlice?: { offset: number; length: number };
  decimalsOf: (mint: Address) => number | null;
}

export function accountView(account: EncodedAccount | null, options: AccountViewOptions): object | null {
  if (!account) return null;
  return {
    data: encodeData(account, options),
    executable: account.executable,
    lamports: BigInt(account.lamports),
    owner: account.programAddress,
    rentEpoch: RENT_EXEMPT_EPOCH,
    space: account.data.length,
  };
}

function encodeData(account: EncodedAccount, options: AccountViewOptions): unknown {
  if (options.encoding === "jsonParsed") {
    const parsed = parsedTokenData(account, options.decimalsOf);
    if (parsed) return parsed;
  }
  const bytes = options.dataSlice
    ? account.data.subarray(options.dataSlice.offset, options.dataSlice.offset + options.dataSlice.length)
    : account.data;
  switch (options.encoding) {
    case "binary":
    case "base58":
      if (bytes.length > MAX_BASE58_BYTES) {
        throw new RpcError(
          RPC_CODES.invalidRequest,
          "Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.",
        );
      }
      // The legacy default ("binary") is a bare string; "base58" is tagged.
      return options.encoding === "binary"
        ? getBase58Decoder().decode(bytes)
        : [getBase58Decoder().decode(bytes), "base58"];
    case "base64":
    case "jsonParsed":
      return [getBase64Decoder().decode(bytes), "base64"];
    case "base64+zstd":
      throw invalidParams("encoding base64+zstd is not supported by the local chain; use base64");
  }
}
