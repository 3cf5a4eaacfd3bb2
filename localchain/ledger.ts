import { createHash, randomBytes } from "node:crypto";
import {
  getAddressDecoder,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  isSolanaError,
  SOLANA_ERROR__TRANSACTION__SIGNATURES_MISSING,
  type Address,
  type EncodedAccount,
  type Signature,
} from "@solana/kit";
import { LEGACY_MEMO_PROGRAM_ADDRESS_V3, MEMO_PROGRAM_ADDRESS } from "@solana-program/memo";
import { Clock, FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from "litesvm";
import { RPC_CODES, RpcError } from "@/localchain/rpc-error";
import {
  computeFee,
  decodeWireTransaction,
  invalidTransaction,
  signatureVerificationFailure,
  verifySignatures,
  type CompiledMessage,
  type DecodedTransaction,
} from "@/localchain/wire-transaction";
import { decodeMint, decodeTokenAccount, uiTokenAmount, type UiTokenAmount } from "@/localchain/token-state";
import {
  describeTransactionError,
  transactionErrorJson,
  type TransactionErrorJson,
} from "@/localchain/transaction-error";

/**
 * The chain's state machine: litesvm runs the transactions; this adds what a
 * validator adds around them and litesvm does not keep (slots, block times,
 * recent blockhashes, pre/post balances, a transaction history with metadata).
 *
 * One block per landed transaction. Blockhashes are checked here rather than
 * by litesvm (which accepts only its latest one), so that, as on a cluster,
 * every blockhash stays valid for 150 blocks and many clients can share one.
 *
 * One module over 300 lines on purpose: `Ledger` is the chain's one state
 * (accounts, blocks, signatures, the clock), and sending, simulating and
 * reading it all go through that state.
 */

const BLOCKHASH_VALIDITY_BLOCKS = 150;
const SLOTS_PER_EPOCH = 432_000;
/** Address lookup table layout: 56 bytes of metadata, then 32-byte addresses. */
const LOOKUP_TABLE_META_SIZE = 56;

export type TransactionVersion = "legacy" | 0;

export interface AccountKey {
  pubkey: Address;
  signer: boolean;
  writable: boolean;
  source: "transaction" | "lookupTable";
}

export interface TokenBalance {
  accountIndex: number;
  mint: Address;
  owner: Address;
  programId: Address;
  uiTokenAmount: UiTokenAmount;
}

export interface CompiledInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
  stackHeight: number | null;
}

export interface TransactionRecord {
  signature: Signature;
  signatures: string[];
  wire: Uint8Array;
  version: TransactionVersion;
  slot: number;
  blockTime: number;
  recentBlockhash: string;
  header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  /** Static keys, then keys loaded from lookup tables (writable, then readonly), the order balances are indexed in. */
  accountKeys: AccountKey[];
  addressTableLookups: { accountKey: Address; writableIndexes: number[]; readonlyIndexes: number[] }[] | null;
  loadedAddresses: { writable: Address[]; readonly: Address[] };
  instructions: CompiledInstruction[];
  innerInstructions: { index: number; instructions: CompiledInstruction[] }[];
  err: TransactionErrorJson | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  logMessages: string[];
  computeUnitsConsumed: bigint;
  returnData: { programId: Address; data: Uint8Array } | null;
}

/** A simulation's outcome, in the terms of the RPC's `RpcSimulateTransactionResult`. */
export interface SimulationOutcome {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
  fee: bigint;
  returnData: { programId: Address; data: Uint8Array } | null;
  innerInstructions: { index: number; instructions: CompiledInstruction[] }[];
  accountKeys: AccountKey[];
  loadedAddresses: { writable: Address[]; readonly: Address[] };
  /** Accounts as they would be after the transaction (only those it touched). */
  postAccounts: Map<string, EncodedAccount>;
}

export interface BlockEvent {
  slot: number;
  parent: number;
  transactions: { signature: Signature; err: TransactionErrorJson | null }[];
}

export interface LedgerOptions {
  /** How many transactions (and block times) are kept for queries. */
  historyCapacity?: number;
}

const base58 = getBase58Decoder();

export class Ledger {
  readonly svm: LiteSVM;
  readonly genesisHash: string;
  private readonly historyCapacity: number;
  private slotNumber = 0;
  private height = 0;
  private landedCount = 0;
  private clockOffsetSeconds = 0;
  private latestBlockhash = "";
  /** blockhash -> last block height at which it is still accepted */
  private readonly blockhashes = new Map<string, number>();
  private readonly blockTimes = new Map<number, number>();
  private readonly records = new Map<string, TransactionRecord>();
  private readonly listeners = new Set<(event: BlockEvent) => void>();

  constructor(options: LedgerOptions = {}) {
    this.historyCapacity = options.historyCapacity ?? 20_000;
    this.svm = new LiteSVM().withBlockhashCheck(false).withTransactionHistory(BigInt(this.historyCapacity));
    this.genesisHash = base58.decode(randomBytes(32));
    this.blockTimes.set(0, this.now());
    this.issueBlockhash();
    this.installMemoV4();
  }

  /**
   * litesvm 1.5 ships the Memo program at its v1 and v3 addresses, while
   * `@solana-program/memo` builds instructions for v4's address by default.
   * The memo program never looks at its own id, so v3's code serves there.
   */
  private installMemoV4(): void {
    const v3 = this.svm.getAccount(LEGACY_MEMO_PROGRAM_ADDRESS_V3);
    if (v3.exists) this.svm.addProgramWithLoader(MEMO_PROGRAM_ADDRESS, v3.data, v3.programAddress);
  }

  // --- time, slots, blockhashes -------------------------------------------

  /** The chain's clock: wall time plus whatever `advanceClock` added. */
  now(): number {
    return Math.floor(Date.now() / 1000) + this.clockOffsetSeconds;
  }

  get slot(): number {
    return this.slotNumber;
  }

  get blockHeight(): number {
    return this.height;
  }

  get transactionCount(): number {
    return this.landedCount;
  }

  get epochSlots(): { epoch: number; slotIndex: number; slotsInEpoch: number } {
    return {
      epoch: Math.floor(this.slotNumber / SLOTS_PER_EPOCH),
      slotIndex: this.slotNumber % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
    };
  }

  blockTime(slot: number): number | null {
    return this.blockTimes.get(slot) ?? null;
  }

  latestBlockhashInfo(): { blockhash: string; lastValidBlockHeight: number } {
    return { blockhash: this.latestBlockhash, lastValidBlockHeight: this.blockhashes.get(this.latestBlockhash)! };
  }

  isBlockhashValid(blockhash: string): boolean {
    const lastValid = this.blockhashes.get(blockhash);
    return lastValid !== undefined && this.height <= lastValid;
  }

  /**
   * Moves the clock forward and seals an empty block carrying the new time;
   * blocks already sealed keep theirs, so an old payment becomes older.
   */
  advanceClock(seconds: number): void {
    this.clockOffsetSeconds += seconds;
    this.sealBlock(this.now(), []);
  }

  onBlock(listener: (event: BlockEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private issueBlockhash(): void {
    const hash = createHash("sha256").update(`${this.genesisHash}:${this.slotNumber}`).digest();
    this.latestBlockhash = base58.decode(hash);
    this.blockhashes.set(this.latestBlockhash, this.height + BLOCKHASH_VALIDITY_BLOCKS);
    for (const [blockhash, lastValid] of this.blockhashes) {
      if (lastValid >= this.height) break; // insertion order is issue order
      this.blockhashes.delete(blockhash);
    }
  }

  private sealBlock(blockTime: number, transactions: BlockEvent["transactions"]): void {
    const parent = this.slotNumber;
    this.slotNumber += 1;
    this.height += 1;
    this.blockTimes.set(this.slotNumber, blockTime);
    trimToCapacity(this.blockTimes, this.historyCapacity);
    this.issueBlockhash();
    const event: BlockEvent = { slot: this.slotNumber, parent, transactions };
    for (const listener of this.listeners) listener(event);
  }

  /** Programs see the slot and time of the block the transaction is about to land in. */
  private prepareClock(slot: number, unixTimestamp: number): void {
    const epoch = BigInt(Math.floor(slot / SLOTS_PER_EPOCH));
    this.svm.setClock(
      new Clock(BigInt(slot), BigInt(this.blockTimes.get(0) ?? unixTimestamp), epoch, epoch, BigInt(unixTimestamp)),
    );
  }

  // --- accounts --------------------------------------------------------------

  getAccount(account: Address): EncodedAccount | null {
    const found = this.svm.getAccount(account);
    return found.exists ? found : null;
  }

  /** Writes an account directly (genesis state only). */
  setAccount(account: EncodedAccount): void {
    this.svm.setAccount(account);
  }

  decimalsOf(mint: Address): number | null {
    const account = this.getAccount(mint);
    return account ? (decodeMint(account)?.decimals ?? null) : null;
  }

  programAccounts(program: Address): EncodedAccount[] {
    return this.svm.getProgramAccounts(program);
  }

  minimumBalanceForRentExemption(size: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(size));
  }

  // --- transactions ------------------------------------------------------------

  getTransaction(signature: string): TransactionRecord | null {
    return this.records.get(signature) ?? null;
  }

  /**
   * `sendTransaction`: sanitize and verify, simulate first unless skipped,
   * then execute. Like a cluster, a transaction that cannot even be loaded
   * (unknown blockhash, fee payer without funds, duplicate) is dropped
   * without a trace when preflight is skipped; one that fails while executing
   * lands with its error and pays its fee.
   */
  async submit(wire: Uint8Array, options: { skipPreflight: boolean }): Promise<Signature> {
    const tx = decodeWireTransaction(wire);
    // A node checks signatures before anything else, preflight or not.
    await verifySignatures(tx);
    if (!options.skipPreflight) this.preflight(tx);
    return this.execute(tx);
  }

  private preflight(tx: DecodedTransaction): void {
    const fail = (outcome: Pick<SimulationOutcome, "err"> & Partial<SimulationOutcome>) =>
      new RpcError(
        RPC_CODES.preflightFailure,
        `Transaction simulation failed: ${describeTransactionError(outcome.err!)}`,
        simulationErrorData(outcome),
      );
    if (this.isProcessed(tx.signature)) throw fail({ err: "AlreadyProcessed" });
    if (!this.isBlockhashValid(tx.blockhash)) throw fail({ err: "BlockhashNotFound" });
    const outcome = this.simulateDecoded(tx, { sigVerify: true });
    if (outcome.err) throw fail(outcome);
  }

  private isProcessed(signature: Signature): boolean {
    return this.records.has(signature) || this.svm.getTransaction(signature) !== null;
  }

  private execute(tx: DecodedTransaction): Signature {
    if (this.isProcessed(tx.signature) || !this.isBlockhashValid(tx.blockhash)) return tx.signature;
    const slot = this.slotNumber + 1;
    const blockTime = this.now();
    this.prepareClock(slot, blockTime);
    const keys = this.accountKeys(tx.message);
    const pre = this.snapshot(keys.accountKeys);
    const result = runChecked(() => this.svm.sendTransaction(tx.transaction));
    const failed = result instanceof FailedTransactionMetadata;
    const err = failed ? transactionErrorJson(result.err()) : null;
    if (failed && this.svm.getTransaction(tx.signature) === null) {
      if (err === "SignatureFailure" || err === "MissingSignatureForFee") throw signatureVerificationFailure();
      if (err === "SanitizeFailure")
        throw invalidTransaction("Transaction failed to sanitize accounts offsets correctly");
      return tx.signature; // never landed: not recorded, no fee, no block
    }
    const meta = failed ? result.meta() : result;
    const post = this.snapshot(keys.accountKeys);
    const { message } = tx;
    const record: TransactionRecord = {
      signature: tx.signature,
      signatures: tx.signatures,
      wire: tx.wire,
      version: message.version,
      slot,
      blockTime,
      recentBlockhash: tx.blockhash,
      header: {
        numRequiredSignatures: message.header.numSignerAccounts,
        numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
        numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
      },
      accountKeys: keys.accountKeys,
      addressTableLookups:
        message.version === 0
          ? (message.addressTableLookups ?? []).map((l) => ({
              accountKey: l.lookupTableAddress,
              writableIndexes: [...l.writableIndexes],
              readonlyIndexes: [...l.readonlyIndexes],
            }))
          : null,
      loadedAddresses: keys.loadedAddresses,
      instructions: message.instructions.map((ix) => ({
        programIdIndex: ix.programAddressIndex,
        accounts: [...(ix.accountIndices ?? [])],
        data: new Uint8Array(ix.data ?? []),
        stackHeight: null,
      })),
      innerInstructions: innerInstructionsOf(meta),
      err,
      fee: feeOf(meta) ?? computeFee(message),
      preBalances: pre.lamports,
      postBalances: post.lamports,
      preTokenBalances: pre.tokens,
      postTokenBalances: post.tokens,
      logMessages: meta.logs(),
      computeUnitsConsumed: meta.computeUnitsConsumed(),
      returnData: returnDataOf(meta),
    };
    this.records.set(tx.signature, record);
    trimToCapacity(this.records, this.historyCapacity);
    this.landedCount += 1;
    this.sealBlock(blockTime, [{ signature: tx.signature, err }]);
    return tx.signature;
  }

  /** `simulateTransaction`. With `replaceRecentBlockhash` the blockhash is not checked (litesvm ignores it anyway). */
  async simulate(
    wire: Uint8Array,
    options: { sigVerify: boolean; replaceRecentBlockhash: boolean },
  ): Promise<SimulationOutcome> {
    const tx = decodeWireTransaction(wire);
    if (options.sigVerify) await verifySignatures(tx);
    if (!options.replaceRecentBlockhash && !this.isBlockhashValid(tx.blockhash)) {
      return {
        ...emptyOutcome(),
        err: "BlockhashNotFound",
        fee: computeFee(tx.message),
        ...this.accountKeys(tx.message),
      };
    }
    return this.simulateDecoded(tx, options);
  }

  private simulateDecoded(tx: DecodedTransaction, options: { sigVerify: boolean }): SimulationOutcome {
    this.prepareClock(this.slotNumber + 1, this.now());
    const keys = this.accountKeys(tx.message);
    this.svm.withSigverify(options.sigVerify);
    let result;
    try {
      result = runChecked(() => this.svm.simulateTransaction(tx.transaction));
    } finally {
      this.svm.withSigverify(true);
    }
    if (result instanceof FailedTransactionMetadata) {
      const err = transactionErrorJson(result.err());
      if (err === "SignatureFailure") throw signatureVerificationFailure();
      if (err === "SanitizeFailure")
        throw invalidTransaction("Transaction failed to sanitize accounts offsets correctly");
      const meta = result.meta();
      return {
        ...emptyOutcome(),
        ...keys,
        err,
        logs: meta.logs(),
        unitsConsumed: meta.computeUnitsConsumed(),
        fee: feeOf(meta) ?? computeFee(tx.message),
        innerInstructions: innerInstructionsOf(meta),
        returnData: returnDataOf(meta),
      };
    }
    const meta = result.meta();
    return {
      ...keys,
      err: null,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      fee: feeOf(meta) ?? computeFee(tx.message),
      innerInstructions: innerInstructionsOf(meta),
      returnData: returnDataOf(meta),
      postAccounts: new Map(result.postAccounts().map((account) => [account.address, account])),
    };
  }

  /** `getFeeForMessage`: null when the message's blockhash is no longer (or never was) valid. */
  feeForMessage(messageBytes: Uint8Array): bigint | null {
    let message: CompiledMessage;
    try {
      message = getCompiledTransactionMessageDecoder().decode(messageBytes);
    } catch {
      throw invalidTransaction("invalid message");
    }
    if (message.version !== "legacy" && message.version !== 0)
      throw invalidTransaction("unsupported transaction version");
    if (!this.isBlockhashValid(message.lifetimeToken)) return null;
    return computeFee(message);
  }

  private accountKeys(
    message: DecodedTransaction["message"],
  ): Pick<SimulationOutcome, "accountKeys" | "loadedAddresses"> {
    const { staticAccounts, header } = message;
    const signers = header.numSignerAccounts;
    const programIndexes = new Set(message.instructions.map((ix) => ix.programAddressIndex));
    const accountKeys: AccountKey[] = staticAccounts.map((pubkey, i) => {
      const writableSlot =
        i < signers
          ? i < signers - header.numReadonlySignerAccounts
          : i < staticAccounts.length - header.numReadonlyNonSignerAccounts;
      // The runtime demotes invoked programs to read-only, and so does the RPC's view.
      return { pubkey, signer: i < signers, writable: writableSlot && !programIndexes.has(i), source: "transaction" };
    });
    const loadedAddresses = { writable: [] as Address[], readonly: [] as Address[] };
    if (message.version === 0) {
      for (const lookup of message.addressTableLookups ?? []) {
        const table = this.lookupTableAddresses(lookup.lookupTableAddress);
        for (const i of lookup.writableIndexes) if (table?.[i]) loadedAddresses.writable.push(table[i]);
        for (const i of lookup.readonlyIndexes) if (table?.[i]) loadedAddresses.readonly.push(table[i]);
      }
    }
    for (const pubkey of loadedAddresses.writable)
      accountKeys.push({ pubkey, signer: false, writable: true, source: "lookupTable" });
    for (const pubkey of loadedAddresses.readonly)
      accountKeys.push({ pubkey, signer: false, writable: false, source: "lookupTable" });
    return { accountKeys, loadedAddresses };
  }

  private lookupTableAddresses(table: Address): Address[] | null {
    const account = this.getAccount(table);
    if (!account || account.data.length < LOOKUP_TABLE_META_SIZE) return null;
    const decoder = getAddressDecoder();
    const addresses: Address[] = [];
    for (let offset = LOOKUP_TABLE_META_SIZE; offset + 32 <= account.data.length; offset += 32) {
      addresses.push(decoder.decode(account.data.subarray(offset, offset + 32)));
    }
    return addresses;
  }

  private snapshot(keys: AccountKey[]): { lamports: bigint[]; tokens: TokenBalance[] } {
    const lamports: bigint[] = [];
    const tokens: TokenBalance[] = [];
    keys.forEach(({ pubkey }, accountIndex) => {
      const account = this.getAccount(pubkey);
      lamports.push(account ? BigInt(account.lamports) : 0n);
      const token = account ? decodeTokenAccount(account) : null;
      const decimals = token ? this.decimalsOf(token.mint) : null;
      if (account && token && decimals !== null) {
        tokens.push({
          accountIndex,
          mint: token.mint,
          owner: token.owner,
          programId: account.programAddress,
          uiTokenAmount: uiTokenAmount(token.amount, decimals, { zeroAsNull: true }),
        });
      }
    });
    return { lamports, tokens };
  }
}

/** litesvm's wrapper refuses transactions with missing signatures before running them; a node answers -32003. */
function runChecked<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (isSolanaError(error, SOLANA_ERROR__TRANSACTION__SIGNATURES_MISSING)) throw signatureVerificationFailure();
    throw error;
  }
}

/**
 * litesvm computes the fee (signatures plus priority fee, with its own
 * defaults for the compute-unit limit) but exposes it only in the Debug text
 * of its metadata; that text is the authority when present.
 */
function feeOf(meta: TransactionMetadata): bigint | null {
  const matches = [...meta.toString().matchAll(/\bfee: (\d+)\b/g)];
  const last = matches.at(-1);
  return last ? BigInt(last[1]!) : null;
}

function innerInstructionsOf(meta: TransactionMetadata): TransactionRecord["innerInstructions"] {
  return meta
    .innerInstructions()
    .map((list, index) => ({
      index,
      instructions: list.map((inner) => {
        const ix = inner.instruction();
        return {
          programIdIndex: ix.programIdIndex(),
          accounts: [...ix.accounts()],
          data: new Uint8Array(ix.data()),
          stackHeight: inner.stackHeight(),
        };
      }),
    }))
    .filter((entry) => entry.instructions.length > 0);
}

function returnDataOf(meta: TransactionMetadata): TransactionRecord["returnData"] {
  const returned = meta.returnData();
  const data = returned.data();
  return data.length > 0
    ? { programId: getAddressDecoder().decode(returned.programId()), data: new Uint8Array(data) }
    : null;
}

function emptyOutcome(): Omit<SimulationOutcome, "err" | "fee" | "accountKeys" | "loadedAddresses"> {
  return { logs: [], unitsConsumed: 0n, returnData: null, innerInstructions: [], postAccounts: new Map() };
}

/** The `data` of a -32002 answer: the simulation result as `simulateTransaction` would give it. */
function simulationErrorData(outcome: Partial<SimulationOutcome> & Pick<SimulationOutcome, "err">): object {
  return {
    accounts: null,
    err: outcome.err,
    fee: null,
    innerInstructions: null,
    loadedAccountsDataSize: 0,
    loadedAddresses: null,
    logs: outcome.logs ?? [],
    postBalances: null,
    postTokenBalances: null,
    preBalances: null,
    preTokenBalances: null,
    replacementBlockhash: null,
    returnData: null,
    unitsConsumed: outcome.unitsConsumed ?? 0n,
  };
}

function trimToCapacity<K, V>(map: Map<K, V>, capacity: number): void {
  while (map.size > capacity) {
    const oldest = map.keys().next();
    if (oldest.done) return;
    map.delete(oldest.value);
  }
}
