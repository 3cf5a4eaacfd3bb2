import { address, isSome, unwrapOption, type Address, type EncodedAccount } from "@solana/kit";
import {
  AccountState,
  getMintDecoder,
  getTokenDecoder,
  TOKEN_PROGRAM_ADDRESS,
  type Mint,
  type Token,
} from "@solana-program/token";

/**
 * Reading SPL token state out of raw accounts, and writing it the way the
 * RPC's account decoder does (`jsonParsed`, `uiTokenAmount`). Token-2022
 * shares the classic layout for its first 165 bytes and marks the account
 * type in byte 165 when extensions follow.
 */
export const TOKEN_2022_PROGRAM_ADDRESS = address("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb");
const MINT_SIZE = 82;
const TOKEN_ACCOUNT_SIZE = 165;
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;

export function isTokenProgram(program: Address): boolean {
  return program === TOKEN_PROGRAM_ADDRESS || program === TOKEN_2022_PROGRAM_ADDRESS;
}

export function tokenProgramName(program: Address): string {
  return program === TOKEN_2022_PROGRAM_ADDRESS ? "spl-token-2022" : "spl-token";
}

export function decodeTokenAccount(account: EncodedAccount): Token | null {
  if (!isTokenProgram(account.programAddress)) return null;
  const { data } = account;
  const isAccount =
    data.length === TOKEN_ACCOUNT_SIZE ||
    (account.programAddress === TOKEN_2022_PROGRAM_ADDRESS &&
      data.length > TOKEN_ACCOUNT_SIZE &&
      data[TOKEN_ACCOUNT_SIZE] === ACCOUNT_TYPE_ACCOUNT);
  if (!isAccount) return null;
  const token = getTokenDecoder().decode(data.subarray(0, TOKEN_ACCOUNT_SIZE));
  return token.state === AccountState.Uninitialized ? null : token;
}

export function decodeMint(account: EncodedAccount): Mint | null {
  if (!isTokenProgram(account.programAddress)) return null;
  const { data } = account;
  const isMint =
    data.length === MINT_SIZE ||
    (account.programAddress === TOKEN_2022_PROGRAM_ADDRESS &&
      data.length > TOKEN_ACCOUNT_SIZE &&
      data[TOKEN_ACCOUNT_SIZE] === ACCOUNT_TYPE_MINT);
  if (!isMint) return null;
  const mint = getMintDecoder().decode(data.subarray(0, MINT_SIZE));
  return mint.isInitialized ? mint : null;
}

/** `real_number_string_trimmed`: 10_500_000 with 6 decimals is "10.5", zero is "0". */
export function formatTokenAmount(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const digits = amount.toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, -decimals);
  const fraction = digits.slice(-decimals).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}

export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number | null;
  uiAmountString: string;
}

/**
 * `zeroAsNull`: transaction token balances come back from the node's
 * protobuf store with a zero `uiAmount` turned into null; account queries
 * keep 0.
 */
export function uiTokenAmount(amount: bigint, decimals: number, options: { zeroAsNull?: boolean } = {}): UiTokenAmount {
  const uiAmountString = formatTokenAmount(amount, decimals);
  const uiAmount = Number(uiAmountString);
  return {
    amount: amount.toString(),
    decimals,
    uiAmount: options.zeroAsNull && amount === 0n ? null : uiAmount,
    uiAmountString,
  };
}

const ACCOUNT_STATES = ["uninitialized", "initialized", "frozen"] as const;

/** The `data` of a token account or mint under `encoding: "jsonParsed"`, or null for anything else. */
export function parsedTokenData(account: EncodedAccount, decimalsOf: (mint: Address) => number | null): object | null {
  const base = { program: tokenProgramName(account.programAddress), space: account.data.length };
  const token = decodeTokenAccount(account);
  if (token) {
    const decimals = decimalsOf(token.mint);
    if (decimals === null) return null;
    const delegate = unwrapOption(token.delegate);
    const closeAuthority = unwrapOption(token.closeAuthority);
    const info: Record<string, unknown> = {
      isNative: isSome(token.isNative),
      mint: token.mint,
      owner: token.owner,
      state: ACCOUNT_STATES[token.state],
      tokenAmount: uiTokenAmount(token.amount, decimals),
    };
    if (delegate) {
      info.delegate = delegate;
      info.delegatedAmount = uiTokenAmount(token.delegatedAmount, decimals);
    }
    if (isSome(token.isNative)) info.rentExemptReserve = uiTokenAmount(token.isNative.value, decimals);
    if (closeAuthority) info.closeAuthority = closeAuthority;
    return { ...base, parsed: { type: "account", info } };
  }
  const mint = decodeMint(account);
  if (mint) {
    return {
      ...base,
      parsed: {
        type: "mint",
        info: {
          decimals: mint.decimals,
          freezeAuthority: unwrapOption(mint.freezeAuthority),
          isInitialized: mint.isInitialized,
          mintAuthority: unwrapOption(mint.mintAuthority),
          supply: mint.supply.toString(),
        },
      },
    };
  }
  return null;
}
