import {
  getCompiledTransactionMessageDecoder,
  getBase58Decoder,
  getPublicKeyFromAddress,
  getTransactionDecoder,
  verifySignature,
  type Address,
  type Signature,
  type Transaction,
} from "@solana/kit";
import { RPC_CODES, RpcError } from "@/localchain/rpc-error";

/**
 * A wire transaction as a node first sees it: decoded and sanitized (-32602
 * otherwise), its signatures checked (-32003), and its fee worked out.
 */

export const LAMPORTS_PER_SIGNATURE = 5000n;
const MAX_COMPUTE_UNITS = 1_400_000;
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
const DEFAULT_UNITS_PER_BUILTIN_INSTRUCTION = 3_000;
const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
const BUILTIN_PROGRAMS: ReadonlySet<string> = new Set([
  "11111111111111111111111111111111",
  COMPUTE_BUDGET_PROGRAM,
  "Vote111111111111111111111111111111111111111",
  "Stake11111111111111111111111111111111111111",
  "Config1111111111111111111111111111111111111",
  "AddressLookupTab1e1111111111111111111111111",
  "BPFLoader1111111111111111111111111111111111",
  "BPFLoader2111111111111111111111111111111111",
  "BPFLoaderUpgradeab1e11111111111111111111111",
  "LoaderV411111111111111111111111111111111111",
]);

const base58 = getBase58Decoder();
export const invalidTransaction = (detail: string) =>
  new RpcError(RPC_CODES.invalidParams, `invalid transaction: ${detail}`);
export const signatureVerificationFailure = () =>
  new RpcError(RPC_CODES.signatureVerificationFailure, "Transaction signature verification failure");

export type CompiledMessage = ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>;

export interface DecodedTransaction {
  transaction: Transaction;
  wire: Uint8Array;
  message: Extract<CompiledMessage, { version: "legacy" | 0 }>;
  signature: Signature;
  signatures: string[];
  blockhash: string;
}

export function decodeWireTransaction(wire: Uint8Array): DecodedTransaction {
  let transaction: Transaction;
  let message: CompiledMessage;
  try {
    const [decoded, end] = getTransactionDecoder().read(wire, 0);
    if (end !== wire.length) throw new Error("trailing bytes");
    transaction = decoded;
    message = getCompiledTransactionMessageDecoder().decode(decoded.messageBytes);
  } catch {
    throw invalidTransaction("failed to deserialize solana_transaction::versioned::VersionedTransaction");
  }
  if (message.version !== "legacy" && message.version !== 0)
    throw invalidTransaction("unsupported transaction version");
  const signatures = Object.values(transaction.signatures).map((bytes) => base58.decode(bytes ?? new Uint8Array(64)));
  if (signatures.length === 0 || signatures.length !== message.header.numSignerAccounts) {
    throw invalidTransaction("Transaction failed to sanitize accounts offsets correctly");
  }
  return {
    transaction,
    wire,
    message,
    signature: signatures[0] as Signature,
    signatures,
    blockhash: message.lifetimeToken,
  };
}

export async function verifySignatures(tx: DecodedTransaction): Promise<void> {
  const signers = tx.message.staticAccounts.slice(0, tx.message.header.numSignerAccounts);
  for (const signer of signers) {
    const signature = tx.transaction.signatures[signer];
    const valid = signature
      ? await verifySignature(await getPublicKeyFromAddress(signer), signature, tx.transaction.messageBytes)
      : false;
    if (!valid) throw signatureVerificationFailure();
  }
}

/** Base fee per signature plus the priority fee (price x limit), as the runtime charges it. */
export function computeFee(message: {
  header: { numSignerAccounts: number };
  staticAccounts: readonly Address[];
  instructions: readonly { programAddressIndex: number; data?: ArrayLike<number> }[];
}): bigint {
  let limit: number | null = null;
  let microLamportsPerUnit = 0n;
  let defaultLimit = 0;
  for (const ix of message.instructions) {
    const program = message.staticAccounts[ix.programAddressIndex];
    const data = Uint8Array.from(ix.data ?? []);
    const view = new DataView(data.buffer);
    if (program === COMPUTE_BUDGET_PROGRAM && data[0] === 2 && data.length >= 5) limit = view.getUint32(1, true);
    if (program === COMPUTE_BUDGET_PROGRAM && data[0] === 3 && data.length >= 9)
      microLamportsPerUnit = view.getBigUint64(1, true);
    defaultLimit +=
      program && BUILTIN_PROGRAMS.has(program) ? DEFAULT_UNITS_PER_BUILTIN_INSTRUCTION : DEFAULT_UNITS_PER_INSTRUCTION;
  }
  const units = BigInt(Math.min(limit ?? defaultLimit, MAX_COMPUTE_UNITS));
  const priorityFee = (microLamportsPerUnit * units + 999_999n) / 1_000_000n;
  return BigInt(message.header.numSignerAccounts) * LAMPORTS_PER_SIGNATURE + priorityFee;
}
