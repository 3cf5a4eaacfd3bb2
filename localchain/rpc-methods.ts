/**
 * The local chain's JSON-RPC methods: the subset of Solana's API that kit,
 * the x402 client, web3.js 1.x wallets and the service use, answering with the
 * shapes and error codes of a real node.
 *
 * Local-only extension methods (never on a real cluster):
 *
 * - `chunkwise_faucet` params `[address, { lamports?, usdc? }]`: sends
 *   `lamports` (default 1 SOL) and mints `usdc` test-USDC base units (default
 *   10 USDC = 10_000_000) to the address's associated token account, created
 *   when missing, in one real transaction. Answers
 *   `{ signatures, lamports, usdc_base_units, token_account }`. A malformed
 *   address is -32602.
 * - `chunkwise_advanceClock` params `[seconds]`: moves the chain's clock by
 *   whole seconds and seals an empty block carrying the new time. Transactions
 *   already landed keep their `blockTime`. Negative values set the clock back
 *   (tests land a payment "two hours ago" that way, then move it forward
 *   again), so block times are monotonic only while nobody rewinds. Answers
 *   `{ unix_timestamp, slot }`.
 *
 * One module over 300 lines on purpose: it is the table of RPC methods, one
 * short handler each, read as one list.
 */
import {
  getBase58Encoder,
  getBase64Encoder,
  isAddress,
  isSignature,
  type Address,
  type EncodedAccount,
} from "@solana/kit";
import { TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { z } from "zod";
import { accountView, type AccountEncoding } from "@/localchain/account-view";
import type { Faucet } from "@/localchain/faucet";
import type { Ledger } from "@/localchain/ledger";
import { RPC_CODES, RpcError, invalidParam, invalidParams } from "@/localchain/rpc-error";
import { decodeMint, decodeTokenAccount, TOKEN_2022_PROGRAM_ADDRESS, uiTokenAmount } from "@/localchain/token-state";
import { simulationView, transactionView } from "@/localchain/transaction-view";

export interface RpcContext {
  ledger: Ledger;
  faucet: Faucet;
}

/** What `getVersion` reports: the agave line litesvm 1.5 runs. */
const SOLANA_CORE_VERSION = "3.0.0";
const FEATURE_SET = 3_294_202_862;
const LAMPORTS_PER_SOL = 1_000_000_000n;
const MAX_AIRDROP_LAMPORTS = 1_000n * LAMPORTS_PER_SOL;
const MAX_FAUCET_USDC_BASE_UNITS = 1_000_000n * 1_000_000n;
const DEFAULT_FAUCET_LAMPORTS = LAMPORTS_PER_SOL;
const DEFAULT_FAUCET_USDC_BASE_UNITS = 10_000_000n;
const MAX_TRANSACTION_BYTES = 1232;
const MAX_BASE58_TRANSACTION_CHARS = 1683;
const MAX_BASE64_TRANSACTION_CHARS = 1644;

// --- parameter schemas ---------------------------------------------------------

const AddressParam = z.string().refine((value) => isAddress(value), "Invalid address");
const SignatureParam = z.string().refine((value) => isSignature(value), "Invalid signature");
const Commitment = z.enum(["processed", "confirmed", "finalized"]);
const U64 = z.union([z.number().int().nonnegative(), z.bigint().nonnegative()]).transform((value) => BigInt(value));
const MinContextSlot = z.number().int().nonnegative().optional();
const Config = z.object({ commitment: Commitment.optional(), minContextSlot: MinContextSlot }).nullish();
const AccountEncodingParam = z.enum(["binary", "base58", "base64", "base64+zstd", "jsonParsed"]);
const AccountConfig = z
  .object({
    commitment: Commitment.optional(),
    minContextSlot: MinContextSlot,
    encoding: AccountEncodingParam.optional(),
    dataSlice: z.object({ offset: z.number().int().nonnegative(), length: z.number().int().nonnegative() }).optional(),
  })
  .nullish();
const TransactionEncodingParam = z.enum(["json", "jsonParsed", "base64", "base58"]);
const WireEncoding = z.enum(["base58", "base64"]);

function parse<T extends z.ZodType>(schema: T, params: unknown[]): z.infer<T> {
  const result = schema.safeParse(params);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw invalidParams(
      issue ? `${issue.path.length ? `params[${issue.path.join("].")}]: ` : ""}${issue.message}` : "malformed",
    );
  }
  return result.data;
}

// --- helpers ---------------------------------------------------------------------

function withContext(ctx: RpcContext, value: unknown): object {
  return { context: { apiVersion: SOLANA_CORE_VERSION, slot: ctx.ledger.slot }, value };
}

function checkMinContextSlot(ctx: RpcContext, config: { minContextSlot?: number } | null | undefined): void {
  if (config?.minContextSlot !== undefined && config.minContextSlot > ctx.ledger.slot) {
    throw new RpcError(-32016, "Minimum context slot has not been reached", { contextSlot: ctx.ledger.slot });
  }
}

function decodeWire(encoded: string, encoding: "base58" | "base64"): Uint8Array {
  const limit = encoding === "base58" ? MAX_BASE58_TRANSACTION_CHARS : MAX_BASE64_TRANSACTION_CHARS;
  if (encoded.length > limit) {
    throw invalidParams(
      `${encoding} encoded solana_transaction::versioned::VersionedTransaction too large: ${encoded.length} bytes (max: encoded/raw ${limit}/${MAX_TRANSACTION_BYTES})`,
    );
  }
  let bytes: Uint8Array;
  try {
    if (encoding === "base64" && !/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) throw new Error("bad base64");
    bytes = new Uint8Array(
      encoding === "base58" ? getBase58Encoder().encode(encoded) : getBase64Encoder().encode(encoded),
    );
  } catch {
    throw invalidParams(`invalid ${encoding} encoding`);
  }
  if (bytes.length > MAX_TRANSACTION_BYTES) {
    throw invalidParams(
      `decoded solana_transaction::versioned::VersionedTransaction too large: ${bytes.length} bytes (max: ${MAX_TRANSACTION_BYTES} bytes)`,
    );
  }
  return bytes;
}

function accountOptions(ctx: RpcContext, config: z.infer<typeof AccountConfig>, fallback: AccountEncoding = "binary") {
  return {
    encoding: config?.encoding ?? fallback,
    dataSlice: config?.dataSlice,
    decimalsOf: (mint: Address) => ctx.ledger.decimalsOf(mint),
  };
}

function tokenAccountAmount(ctx: RpcContext, account: EncodedAccount | null) {
  const token = account ? decodeTokenAccount(account) : null;
  const decimals = token ? ctx.ledger.decimalsOf(token.mint) : null;
  if (!token || decimals === null) throw invalidParam("not a Token account");
  return uiTokenAmount(token.amount, decimals);
}

// --- methods -----------------------------------------------------------------------

type Method = (ctx: RpcContext, params: unknown[]) => unknown;

const methods: Record<string, Method> = {
  getHealth: () => "ok",
  getVersion: () => ({ "feature-set": FEATURE_SET, "solana-core": SOLANA_CORE_VERSION }),
  getGenesisHash: (ctx) => ctx.ledger.genesisHash,
  getSlot: (ctx, params) => {
    checkMinContextSlot(ctx, parse(z.tuple([Config.optional()]), params)[0]);
    return ctx.ledger.slot;
  },
  getBlockHeight: (ctx, params) => {
    checkMinContextSlot(ctx, parse(z.tuple([Config.optional()]), params)[0]);
    return ctx.ledger.blockHeight;
  },
  getEpochInfo: (ctx, params) => {
    parse(z.tuple([Config.optional()]), params);
    return {
      absoluteSlot: ctx.ledger.slot,
      blockHeight: ctx.ledger.blockHeight,
      ...ctx.ledger.epochSlots,
      transactionCount: ctx.ledger.transactionCount,
    };
  },
  getEpochSchedule: (ctx) => {
    const { slotsInEpoch } = ctx.ledger.epochSlots;
    return {
      firstNormalEpoch: 0,
      firstNormalSlot: 0,
      leaderScheduleSlotOffset: slotsInEpoch,
      slotsPerEpoch: slotsInEpoch,
      warmup: false,
    };
  },
  getBlockTime: (ctx, params) => {
    const [slot] = parse(z.tuple([z.number().int().nonnegative()]), params);
    const time = ctx.ledger.blockTime(slot);
    if (time === null) throw new RpcError(RPC_CODES.blockNotAvailable, `Block not available for slot ${slot}`);
    return time;
  },
  getLatestBlockhash: (ctx, params) => {
    checkMinContextSlot(ctx, parse(z.tuple([Config.optional()]), params)[0]);
    return withContext(ctx, ctx.ledger.latestBlockhashInfo());
  },
  isBlockhashValid: (ctx, params) => {
    const [blockhash] = parse(z.tuple([z.string(), Config.optional()]), params);
    return withContext(ctx, ctx.ledger.isBlockhashValid(blockhash));
  },
  getFeeForMessage: (ctx, params) => {
    const [message] = parse(z.tuple([z.string(), Config.optional()]), params);
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(getBase64Encoder().encode(message));
    } catch {
      throw invalidParams("invalid base64 encoding");
    }
    return withContext(ctx, ctx.ledger.feeForMessage(bytes));
  },
  getRecentPrioritizationFees: (ctx, params) => {
    parse(z.tuple([z.array(AddressParam).max(128).optional()]), params);
    return [{ prioritizationFee: 0, slot: ctx.ledger.slot }];
  },
  getMinimumBalanceForRentExemption: (ctx, params) => {
    const [size] = parse(
      z.tuple([
        z
          .number()
          .int()
          .nonnegative()
          .max(10 * 1024 * 1024),
        Config.optional(),
      ]),
      params,
    );
    return ctx.ledger.minimumBalanceForRentExemption(size);
  },

  getBalance: (ctx, params) => {
    const [account, config] = parse(z.tuple([AddressParam, Config.optional()]), params);
    checkMinContextSlot(ctx, config);
    return withContext(ctx, BigInt(ctx.ledger.getAccount(account)?.lamports ?? 0n));
  },
  getAccountInfo: (ctx, params) => {
    const [account, config] = parse(z.tuple([AddressParam, AccountConfig.optional()]), params);
    checkMinContextSlot(ctx, config);
    return withContext(ctx, accountView(ctx.ledger.getAccount(account), accountOptions(ctx, config)));
  },
  getMultipleAccounts: (ctx, params) => {
    const [accounts, config] = parse(z.tuple([z.array(AddressParam).max(100), AccountConfig.optional()]), params);
    checkMinContextSlot(ctx, config);
    const options = accountOptions(ctx, config, "base64");
    return withContext(
      ctx,
      accounts.map((account) => accountView(ctx.ledger.getAccount(account), options)),
    );
  },
  getTokenAccountBalance: (ctx, params) => {
    const [account, config] = parse(z.tuple([AddressParam, Config.optional()]), params);
    checkMinContextSlot(ctx, config);
    return withContext(ctx, tokenAccountAmount(ctx, ctx.ledger.getAccount(account)));
  },
  getTokenSupply: (ctx, params) => {
    const [mintAddress] = parse(z.tuple([AddressParam, Config.optional()]), params);
    const account = ctx.ledger.getAccount(mintAddress);
    const mint = account ? decodeMint(account) : null;
    if (!mint) throw invalidParam("not a Token mint");
    return withContext(ctx, uiTokenAmount(mint.supply, mint.decimals));
  },
  getTokenAccountsByOwner: (ctx, params) => {
    const Filter = z.union([z.object({ mint: AddressParam }), z.object({ programId: AddressParam })]);
    const [owner, filter, config] = parse(z.tuple([AddressParam, Filter, AccountConfig.optional()]), params);
    checkMinContextSlot(ctx, config);
    let programs: Address[];
    let mint: string | null = null;
    if ("mint" in filter) {
      const mintAccount = ctx.ledger.getAccount(filter.mint);
      if (!mintAccount || !decodeMint(mintAccount)) throw invalidParam("could not find mint");
      programs = [mintAccount.programAddress];
      mint = filter.mint;
    } else {
      if (filter.programId !== TOKEN_PROGRAM_ADDRESS && filter.programId !== TOKEN_2022_PROGRAM_ADDRESS) {
        throw invalidParam("unrecognized Token program id");
      }
      programs = [filter.programId];
    }
    const options = accountOptions(ctx, config, "binary");
    const found = programs
      .flatMap((program) => ctx.ledger.programAccounts(program))
      .filter((account) => {
        const token = decodeTokenAccount(account);
        return token !== null && token.owner === owner && (mint === null || token.mint === mint);
      })
      .map((account) => ({ account: accountView(account, options), pubkey: account.address }));
    return withContext(ctx, found);
  },

  getSignatureStatuses: (ctx, params) => {
    const [signatures] = parse(
      z.tuple([
        z.array(SignatureParam).max(256),
        z.object({ searchTransactionHistory: z.boolean().optional() }).nullish().optional(),
      ]),
      params,
    );
    return withContext(
      ctx,
      signatures.map((signature) => {
        const record = ctx.ledger.getTransaction(signature);
        if (!record) return null;
        return {
          confirmationStatus: "finalized",
          confirmations: null,
          err: record.err,
          slot: record.slot,
          status: record.err === null ? { Ok: null } : { Err: record.err },
        };
      }),
    );
  },
  getTransaction: (ctx, params) => {
    const TransactionConfig = z.object({
      commitment: Commitment.optional(),
      encoding: TransactionEncodingParam.optional(),
      maxSupportedTransactionVersion: z.literal(0).optional(),
    });
    const [signature, rawConfig] = parse(
      z.tuple([SignatureParam, z.union([TransactionEncodingParam, TransactionConfig]).nullish().optional()]),
      params,
    );
    const config = typeof rawConfig === "string" ? { encoding: rawConfig } : (rawConfig ?? {});
    if ("commitment" in config && config.commitment === "processed") {
      throw invalidParams("Method does not support commitment below `confirmed`");
    }
    const record = ctx.ledger.getTransaction(signature);
    if (!record) return null;
    return transactionView(record, {
      encoding: config.encoding ?? "json",
      maxSupportedTransactionVersion:
        "maxSupportedTransactionVersion" in config ? config.maxSupportedTransactionVersion : undefined,
    });
  },
  sendTransaction: (ctx, params) => {
    const SendConfig = z
      .object({
        encoding: WireEncoding.optional(),
        skipPreflight: z.boolean().optional(),
        preflightCommitment: Commitment.optional(),
        maxRetries: z.number().int().nonnegative().optional(),
        minContextSlot: MinContextSlot,
      })
      .nullish();
    const [encoded, config] = parse(z.tuple([z.string(), SendConfig.optional()]), params);
    checkMinContextSlot(ctx, config);
    const wire = decodeWire(encoded, config?.encoding ?? "base58");
    return ctx.ledger.submit(wire, { skipPreflight: config?.skipPreflight ?? false });
  },
  simulateTransaction: async (ctx, params) => {
    const SimulateConfig = z
      .object({
        encoding: WireEncoding.optional(),
        sigVerify: z.boolean().optional(),
        replaceRecentBlockhash: z.boolean().optional(),
        commitment: Commitment.optional(),
        minContextSlot: MinContextSlot,
        innerInstructions: z.boolean().optional(),
        accounts: z
          .object({ addresses: z.array(AddressParam).max(100), encoding: AccountEncodingParam.optional() })
          .nullish(),
      })
      .nullish();
    const [encoded, config] = parse(z.tuple([z.string(), SimulateConfig.optional()]), params);
    checkMinContextSlot(ctx, config);
    const sigVerify = config?.sigVerify ?? false;
    const replaceRecentBlockhash = config?.replaceRecentBlockhash ?? false;
    if (sigVerify && replaceRecentBlockhash)
      throw invalidParams("sigVerify may not be used with replaceRecentBlockhash");
    const outcome = await ctx.ledger.simulate(decodeWire(encoded, config?.encoding ?? "base58"), {
      sigVerify,
      replaceRecentBlockhash,
    });
    const accountsConfig = config?.accounts;
    const options = accountOptions(ctx, { encoding: accountsConfig?.encoding ?? "base64" });
    return withContext(
      ctx,
      simulationView(outcome, {
        accounts: accountsConfig
          ? (result) =>
              accountsConfig.addresses.map((account) =>
                accountView(result.postAccounts.get(account) ?? ctx.ledger.getAccount(account), options),
              )
          : null,
        innerInstructions: config?.innerInstructions ?? false,
        replacementBlockhash: replaceRecentBlockhash ? ctx.ledger.latestBlockhashInfo() : null,
      }),
    );
  },
  requestAirdrop: async (ctx, params) => {
    const [recipient, amount] = parse(z.tuple([AddressParam, U64, Config.optional()]), params);
    if (amount === 0n || amount > MAX_AIRDROP_LAMPORTS) {
      throw invalidParams(
        `airdrop amount must be between 1 lamport and ${MAX_AIRDROP_LAMPORTS / LAMPORTS_PER_SOL} SOL`,
      );
    }
    return ctx.faucet.airdrop(recipient, amount);
  },

  chunkwise_faucet: async (ctx, params) => {
    const Amounts = z
      .object({
        lamports: U64.refine((v) => v <= MAX_AIRDROP_LAMPORTS, "at most 1000 SOL").optional(),
        usdc: U64.refine((v) => v <= MAX_FAUCET_USDC_BASE_UNITS, "at most 1,000,000 USDC").optional(),
      })
      .nullish();
    const [recipient, amounts] = parse(z.tuple([AddressParam, Amounts.optional()]), params);
    const lamports = amounts?.lamports ?? DEFAULT_FAUCET_LAMPORTS;
    const usdcBaseUnits = amounts?.usdc ?? DEFAULT_FAUCET_USDC_BASE_UNITS;
    const { signatures, tokenAccount } = await ctx.faucet.fund(recipient, { lamports, usdcBaseUnits });
    return { signatures, lamports, usdc_base_units: usdcBaseUnits, token_account: tokenAccount };
  },
  chunkwise_advanceClock: (ctx, params) => {
    const [seconds] = parse(
      z.tuple([
        z
          .number()
          .int()
          .min(-100 * 365 * 24 * 3600)
          .max(100 * 365 * 24 * 3600)
          .refine((n) => n !== 0, "must not be 0"),
      ]),
      params,
    );
    ctx.ledger.advanceClock(seconds);
    return { slot: ctx.ledger.slot, unix_timestamp: ctx.ledger.now() };
  },
};

export async function callMethod(ctx: RpcContext, method: string, params: unknown[]): Promise<unknown> {
  const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
  if (!handler) throw new RpcError(RPC_CODES.methodNotFound, "Method not found");
  return handler(ctx, params);
}
