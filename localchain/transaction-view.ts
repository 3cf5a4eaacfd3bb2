import { getBase58Decoder, getBase64Decoder } from "@solana/kit";
import type { AccountKey, CompiledInstruction, SimulationOutcome, TransactionRecord } from "@/localchain/ledger";
import { parseInstruction, type ResolvedInstruction } from "@/localchain/instructions";
import { RPC_CODES, RpcError } from "@/localchain/rpc-error";

/** `getTransaction` answers per encoding, and the `simulateTransaction` value. */
export type TransactionEncoding = "json" | "jsonParsed" | "base64" | "base58";

const base58 = getBase58Decoder();
const base64 = getBase64Decoder();

export function transactionView(
  record: TransactionRecord,
  options: { encoding: TransactionEncoding; maxSupportedTransactionVersion?: number },
): object {
  const versioned = options.maxSupportedTransactionVersion !== undefined;
  if (record.version === 0 && !versioned) {
    throw new RpcError(
      RPC_CODES.unsupportedTransactionVersion,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  const parsed = options.encoding === "jsonParsed";
  return {
    blockTime: record.blockTime,
    meta: metaView(record, { parsed }),
    slot: record.slot,
    transaction: transactionBody(record, options.encoding),
    ...(versioned ? { version: record.version } : {}),
  };
}

function metaView(record: TransactionRecord, { parsed }: { parsed: boolean }): object {
  return {
    computeUnitsConsumed: record.computeUnitsConsumed,
    err: record.err,
    fee: record.fee,
    innerInstructions: record.innerInstructions.map(({ index, instructions }) => ({
      index,
      instructions: instructions.map((ix) =>
        parsed ? parseInstruction(resolve(ix, record.accountKeys)) : compiledInstructionView(ix),
      ),
    })),
    // jsonParsed lists loaded addresses among the account keys instead.
    ...(parsed ? {} : { loadedAddresses: record.loadedAddresses }),
    logMessages: record.logMessages,
    postBalances: record.postBalances,
    postTokenBalances: record.postTokenBalances,
    preBalances: record.preBalances,
    preTokenBalances: record.preTokenBalances,
    ...(record.returnData ? { returnData: returnDataView(record.returnData) } : {}),
    rewards: [],
    status: record.err === null ? { Ok: null } : { Err: record.err },
  };
}

function transactionBody(record: TransactionRecord, encoding: TransactionEncoding): unknown {
  if (encoding === "base64") return [base64.decode(record.wire), "base64"];
  if (encoding === "base58") return [base58.decode(record.wire), "base58"];
  const lookups = record.addressTableLookups ? { addressTableLookups: record.addressTableLookups } : {};
  if (encoding === "jsonParsed") {
    return {
      message: {
        accountKeys: record.accountKeys.map(({ pubkey, signer, source, writable }) => ({
          pubkey,
          signer,
          source,
          writable,
        })),
        ...lookups,
        instructions: record.instructions.map((ix) => parseInstruction(resolve(ix, record.accountKeys))),
        recentBlockhash: record.recentBlockhash,
      },
      signatures: record.signatures,
    };
  }
  return {
    message: {
      accountKeys: record.accountKeys.filter((key) => key.source === "transaction").map((key) => key.pubkey),
      ...lookups,
      header: record.header,
      instructions: record.instructions.map(compiledInstructionView),
      recentBlockhash: record.recentBlockhash,
    },
    signatures: record.signatures,
  };
}

function compiledInstructionView(ix: CompiledInstruction): object {
  return {
    accounts: ix.accounts,
    data: base58.decode(ix.data),
    programIdIndex: ix.programIdIndex,
    stackHeight: ix.stackHeight,
  };
}

function resolve(ix: CompiledInstruction, keys: AccountKey[]): ResolvedInstruction {
  const key = (index: number) => keys[index]?.pubkey ?? keys[0]!.pubkey;
  return {
    programId: key(ix.programIdIndex),
    accounts: ix.accounts.map(key),
    data: ix.data,
    stackHeight: ix.stackHeight,
  };
}

function returnDataView(returnData: NonNullable<TransactionRecord["returnData"]>): object {
  return { data: [base64.decode(returnData.data), "base64"], programId: returnData.programId };
}

export function simulationView(
  outcome: SimulationOutcome,
  options: {
    accounts: ((outcome: SimulationOutcome) => (object | null)[]) | null;
    innerInstructions: boolean;
    replacementBlockhash: { blockhash: string; lastValidBlockHeight: number } | null;
  },
): object {
  return {
    accounts: options.accounts && outcome.err === null ? options.accounts(outcome) : null,
    err: outcome.err,
    fee: outcome.fee,
    innerInstructions: options.innerInstructions
      ? outcome.innerInstructions.map(({ index, instructions }) => ({
          index,
          instructions: instructions.map((ix) => parseInstruction(resolve(ix, outcome.accountKeys))),
        }))
      : null,
    loadedAddresses: outcome.loadedAddresses,
    logs: outcome.logs,
    postBalances: null,
    postTokenBalances: null,
    preBalances: null,
    preTokenBalances: null,
    replacementBlockhash: options.replacementBlockhash,
    returnData: outcome.returnData ? returnDataView(outcome.returnData) : null,
    unitsConsumed: outcome.unitsConsumed,
  };
}
