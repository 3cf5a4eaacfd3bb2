import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  ComputeBudgetInstruction,
  identifyComputeBudgetInstruction,
  parseSetComputeUnitLimitInstruction,
  parseSetComputeUnitPriceInstruction,
} from "@solana-program/compute-budget";
import {
  TOKEN_PROGRAM_ADDRESS,
  TokenInstruction,
  findAssociatedTokenPda,
  identifyTokenInstruction,
  parseTransferCheckedInstruction,
} from "@solana-program/token";
import {
  type Address,
  type Base64EncodedWireTransaction,
  type GetMultipleAccountsApi,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
  type Transaction,
  address,
  assertIsFullySignedTransaction,
  createKeyPairFromBytes,
  createSolanaRpc,
  decompileTransactionMessage,
  decompileTransactionMessageFetchingLookupTables,
  getAddressFromPublicKey,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getPublicKeyFromAddress,
  getSignatureFromTransaction,
  getTransactionDecoder,
  isSolanaError,
  partiallySignTransaction,
  verifySignature,
} from "@solana/kit";
import { z } from "zod";
import { ApiError } from "@/lib/errors";
import { chainUnavailable } from "@/lib/payments/chain-rpc";
import { accept, refuse, type Verdict } from "@/lib/payments/refusal";
import { MEMO_PROGRAMS, memoText } from "@/lib/payments/memo";
import { isBase58Signature } from "@/lib/payments/signature";
import type { PaymentRequirement } from "@/lib/payments/requirements";

/**
 * The x402 `exact` scheme on Solana, as the resource server that is its own
 * facilitator: parse the X-PAYMENT payload, check the partially signed
 * transfer by the current exact-SVM rules, co-sign it as fee payer, send it
 * and wait for it. Every refusal is an ApiError with its own code, raised
 * before anything reaches the chain.
 */

/** Token-2022 shares TransferChecked's layout with the classic token program; the spec allows both. */
const TOKEN_2022_PROGRAM_ADDRESS = address("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb");
/** Phantom and Solflare append guard instructions of this program; the spec allows them after the transfer. */
export const LIGHTHOUSE_PROGRAM_ADDRESS = address("L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95");
/** The spec's cap: 5 lamports per compute unit, so a payer cannot make the fee payer buy priority. */
export const MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS = 5_000_000n;
/**
 * Stricter than the spec, which caps only the price: the fee payer pays
 * limit × price, and without a cap on the product a payer could make us
 * spend ~0.007 SOL of priority fee on a 0.002 USDC payment. A USDC transfer
 * (with create-ATA, Memo and Lighthouse guards) needs well under 200k units.
 */
export const MAX_COMPUTE_UNIT_LIMIT = 200_000;
export const MAX_PRIORITY_FEE_LAMPORTS = 50_000n;
const MIN_INSTRUCTIONS = 3;
const MAX_INSTRUCTIONS = 7;

/** Solana's packet limit is 1232 bytes, 1644 characters of base64. */
const MAX_TRANSACTION_BASE64 = 1644;
const MAX_HEADER_CHARS = 8192;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The partially signed transaction both x402 versions carry in `payload.transaction`. */
export const X402TransactionSchema = z
  .string()
  .max(MAX_TRANSACTION_BASE64, "The transaction is larger than a Solana transaction can be.")
  .regex(BASE64, "The transaction must be base64.");

const X402PaymentSchema = z.object({
  x402Version: z.literal(1, { error: "x402Version must be 1." }),
  scheme: z.literal("exact", { error: "Only the exact scheme is accepted." }),
  network: z.string().min(1).max(64),
  payload: z.object({ transaction: X402TransactionSchema }),
});

/** The decoded X-PAYMENT header of an x402 client. */
export type X402Payment = z.infer<typeof X402PaymentSchema>;

/** A payment that passed every check and is ready for the fee payer's signature. */
export interface VerifiedX402 {
  /** Signed by the payer; the fee payer's slot is still empty. */
  transaction: Transaction;
  /** The wallet that signed the transfer (TransferChecked's authority). */
  payer: Address;
  amount: bigint;
  feePayer: Address;
  /** The network the payload named (what the client knows, e.g. `solana-devnet` on the local chain). */
  network: string;
  mint: Address;
  source: Address;
  destination: Address;
  /** Texts of the optional Memo instructions, in order. */
  memos: string[];
}

export interface CosignedX402 {
  /** The fee payer's signature, which is the transaction's id: known before anything is sent. */
  signature: string;
  wireTransaction: string;
}

/** A refusal raised where no verdict is returned (reading the header, settling): the gate completes its 402. */

/**
 * `null` when the header is not an x402 payload (the signature path then
 * reads it as the spec's base58 signature). Throws 402 `payment_invalid` when
 * it is base64 JSON but not a valid x402 exact payload.
 */
export function parseX402Header(header: string): X402Payment | null {
  const value = header.trim();
  if (isBase58Signature(value)) return null;
  if (!BASE64.test(value)) return null;
  // Base64 JSON opens with "{" (maybe after whitespace); a look at the head is enough to tell it from anything else.
  if (!Buffer.from(value.slice(0, 16), "base64").toString("utf8").trimStart().startsWith("{")) return null;
  if (value.length > MAX_HEADER_CHARS)
    throw new ApiError("payment_invalid", `The X-PAYMENT header is longer than ${MAX_HEADER_CHARS} characters.`);
  const text = Buffer.from(value, "base64").toString("utf8");

  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ApiError(
      "payment_invalid",
      "X-PAYMENT is base64 but not JSON: send an x402 payload or a base58 transaction signature.",
    );
  }
  const parsed = X402PaymentSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError(
      "payment_invalid",
      `X-PAYMENT is not a valid x402 exact payload: ${issue ? `${issue.path.join(".") || "payload"}: ${issue.message}` : "malformed"}`,
    );
  }
  return parsed.data;
}

/** x402 v1 knows no local network: the 402 announces the local chain as devnet (see requirements.ts), so both names pay it. */
export function acceptedNetworks(required: string): string[] {
  return required === "solana-localnet" ? ["solana-localnet", "solana-devnet"] : [required];
}

function decodeTransaction(base64: string): Verdict<Transaction> {
  try {
    const bytes = getBase64Encoder().encode(base64);
    const [transaction, end] = getTransactionDecoder().read(bytes, 0);
    if (end === bytes.length) return accept(transaction);
  } catch {
    // Not a transaction: refused below, like trailing bytes.
  }
  return refuse("payment_invalid", "The payload's transaction could not be decoded as a Solana transaction.");
}

type Instruction = ReturnType<typeof decompileTransactionMessage>["instructions"][number];
type AccountsInstruction = Instruction & {
  accounts: NonNullable<Instruction["accounts"]>;
  data: NonNullable<Instruction["data"]>;
};
type Refused = ReturnType<typeof refuse>;

const invalidInstructions = (message: string) => refuse("payment_invalid_instructions", message);

const hasAccountsAndData = (instruction: Instruction): instruction is AccountsInstruction =>
  instruction.accounts !== undefined && instruction.data !== undefined;

function checkComputeBudget(limit: Instruction | undefined, price: Instruction | undefined): Refused | undefined {
  const isBudget = (ix: Instruction | undefined, kind: ComputeBudgetInstruction): ix is AccountsInstruction => {
    if (!ix || ix.programAddress !== COMPUTE_BUDGET_PROGRAM_ADDRESS || !ix.data) return false;
    try {
      return identifyComputeBudgetInstruction(ix.data) === kind;
    } catch {
      return false;
    }
  };
  if (!isBudget(limit, ComputeBudgetInstruction.SetComputeUnitLimit))
    return invalidInstructions("The first instruction must be ComputeBudget SetComputeUnitLimit.");
  if (!isBudget(price, ComputeBudgetInstruction.SetComputeUnitPrice))
    return invalidInstructions("The second instruction must be ComputeBudget SetComputeUnitPrice.");
  let microLamports: bigint;
  let units: number;
  try {
    units = parseSetComputeUnitLimitInstruction(limit).data.units;
    microLamports = parseSetComputeUnitPriceInstruction(price).data.microLamports;
  } catch {
    return invalidInstructions("A compute budget instruction is malformed.");
  }
  if (microLamports > MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS)
    return invalidInstructions(
      `The compute unit price ${microLamports} µlamports is above the cap of ${MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS}.`,
    );
  if (units > MAX_COMPUTE_UNIT_LIMIT)
    return invalidInstructions(
      `The compute unit limit ${units} is above this service's cap of ${MAX_COMPUTE_UNIT_LIMIT}.`,
    );
  if ((BigInt(units) * microLamports) / 1_000_000n > MAX_PRIORITY_FEE_LAMPORTS)
    return invalidInstructions(
      `The priority fee (limit × price) is above this service's cap of ${MAX_PRIORITY_FEE_LAMPORTS} lamports.`,
    );
  return undefined;
}

const isTokenProgram = (program: Address) =>
  program === TOKEN_PROGRAM_ADDRESS || program === TOKEN_2022_PROGRAM_ADDRESS;

type Transfer = ReturnType<typeof parseTransferCheckedInstruction>;

function parseTransfer(instruction: Instruction | undefined): Verdict<Transfer> {
  if (!instruction || !isTokenProgram(instruction.programAddress))
    return invalidInstructions(
      "The transfer must be a TransferChecked of the token program, right after the compute budget.",
    );
  if (!hasAccountsAndData(instruction)) return invalidInstructions("The transfer instruction lacks accounts or data.");
  let kind: TokenInstruction;
  try {
    kind = identifyTokenInstruction(instruction.data);
  } catch {
    return invalidInstructions("The token instruction is not recognised.");
  }
  if (kind !== TokenInstruction.TransferChecked)
    return invalidInstructions("The token instruction must be TransferChecked.");
  try {
    return accept(parseTransferCheckedInstruction(instruction));
  } catch {
    return invalidInstructions("The TransferChecked instruction is malformed.");
  }
}

async function checkSignatures(transaction: Transaction, feePayer: Address): Promise<Refused | undefined> {
  for (const [signer, signature] of Object.entries(transaction.signatures)) {
    if (signer === feePayer) continue;
    if (!signature) return refuse("payment_invalid_signature", `The transaction lacks the signature of ${signer}.`);
    const key = await getPublicKeyFromAddress(address(signer));
    if (!(await verifySignature(key, signature, transaction.messageBytes)))
      return refuse("payment_invalid_signature", `The signature of ${signer} does not match the transaction.`);
  }
  return undefined;
}

type CompiledMessage = ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>;

/** The instructions with every account resolved: accounts behind lookup tables are read from the chain first, so the fee-payer check sees them. */
async function decompile(
  compiled: CompiledMessage,
  lookupTables: Rpc<GetMultipleAccountsApi> | undefined,
): Promise<Verdict<readonly Instruction[]>> {
  const usesLookupTables = "addressTableLookups" in compiled && (compiled.addressTableLookups?.length ?? 0) > 0;
  if (usesLookupTables && !lookupTables)
    return invalidInstructions("Address lookup tables cannot be resolved here without the chain.");
  try {
    return accept(
      usesLookupTables
        ? (await decompileTransactionMessageFetchingLookupTables(compiled, lookupTables!)).instructions
        : decompileTransactionMessage(compiled).instructions,
    );
  } catch (cause) {
    // A fetch that failed is the chain being unreachable (a fault); what kit refuses is the payload's.
    if (usesLookupTables && !isSolanaError(cause)) throw chainUnavailable(describeCause(cause), cause);
    return refuse("payment_invalid", "The transaction message could not be decompiled.");
  }
}

/**
 * Checks an x402 payload against the requirement by the current exact-SVM
 * rules: 3 to 7 instructions; Lighthouse guards (which wallets add) anywhere;
 * the others exactly compute unit limit, compute unit price within the caps,
 * TransferChecked of exactly the price of the asset to payTo's existing
 * associated token account (creating it is no longer allowed), then only
 * Memos. The fee payer must be the transaction's fee payer and in no
 * instruction's accounts (lookup tables resolved first), and every other
 * signature present and valid. Nothing reaches the network unless the
 * transaction uses lookup tables; balances are left to the simulation.
 * A refusal is a value with its reason code.
 */
export async function verifyX402Payment(
  payment: X402Payment,
  requirement: PaymentRequirement,
  feePayer: string,
  lookupTables?: Rpc<GetMultipleAccountsApi>,
): Promise<Verdict<VerifiedX402>> {
  if (!acceptedNetworks(requirement.network).includes(payment.network))
    return refuse(
      "payment_wrong_network",
      `The payment is for ${payment.network}; this service takes ${acceptedNetworks(requirement.network).join(" or ")}.`,
    );
  const feePayerAddress = address(feePayer);

  const decoded = decodeTransaction(payment.payload.transaction);
  if (!decoded.ok) return decoded;
  const transaction = decoded.value;
  let compiled: CompiledMessage;
  try {
    compiled = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  } catch {
    return refuse("payment_invalid", "The transaction message could not be decoded.");
  }
  if (compiled.staticAccounts[0] !== feePayerAddress)
    return refuse(
      "payment_fee_payer_misuse",
      `The transaction's fee payer must be ${feePayerAddress} (extra.feePayer).`,
    );

  const decompiled = await decompile(compiled, lookupTables);
  if (!decompiled.ok) return decompiled;
  const instructions = decompiled.value;
  if (instructions.length < MIN_INSTRUCTIONS || instructions.length > MAX_INSTRUCTIONS)
    return invalidInstructions(
      `The transaction has ${instructions.length} instructions; an x402 exact payment has ${MIN_INSTRUCTIONS} to ${MAX_INSTRUCTIONS}.`,
    );
  // The fee payer signs whatever it co-signs: no instruction may use its account, whatever the program.
  const misuse = instructions.findIndex((ix) => ix.accounts?.some((account) => account.address === feePayerAddress));
  if (misuse >= 0)
    return refuse(
      "payment_fee_payer_misuse",
      `Instruction ${misuse} uses the fee payer's account; the fee payer only pays the fee.`,
    );

  // Guards only assert account state, so they may sit anywhere; the rest has a fixed order.
  const layout = instructions.filter((ix) => ix.programAddress !== LIGHTHOUSE_PROGRAM_ADDRESS);
  const budget = checkComputeBudget(layout[0], layout[1]);
  if (budget) return budget;

  const mint = address(requirement.asset);
  const payTo = address(requirement.payTo);
  const parsed = parseTransfer(layout[2]);
  if (!parsed.ok) return parsed;
  const transfer = parsed.value;
  if (transfer.accounts.mint.address !== mint)
    return refuse(
      "payment_wrong_asset",
      `The transfer moves mint ${transfer.accounts.mint.address}; the asset asked for is ${mint}.`,
    );
  const [payToTokenAccount] = await findAssociatedTokenPda({
    owner: payTo,
    mint,
    tokenProgram: transfer.programAddress,
  });
  if (transfer.accounts.destination.address !== payToTokenAccount)
    return refuse(
      "payment_wrong_recipient",
      `The transfer goes to ${transfer.accounts.destination.address}, not to payTo's token account ${payToTokenAccount}.`,
    );

  const price = BigInt(requirement.maxAmountRequired);
  const amount = transfer.data.amount;
  if (amount < price)
    return refuse("payment_insufficient", `The transfer is ${amount} base units; the price is ${price}.`);
  if (amount !== price)
    return refuse(
      "payment_amount_mismatch",
      `The transfer is ${amount} base units; the exact scheme pays exactly ${price}.`,
    );

  const memos: string[] = [];
  for (const ix of layout.slice(3)) {
    if (!MEMO_PROGRAMS.has(ix.programAddress))
      return invalidInstructions(
        `An instruction after the transfer calls ${ix.programAddress}; only Memo and Lighthouse are allowed there.`,
      );
    const text = memoText(new Uint8Array(ix.data ?? []));
    if (text === null) return invalidInstructions("A Memo's data is not UTF-8.");
    memos.push(text);
  }

  const signatures = await checkSignatures(transaction, feePayerAddress);
  if (signatures) return signatures;

  return accept({
    transaction,
    payer: transfer.accounts.authority.address,
    amount,
    feePayer: feePayerAddress,
    network: payment.network,
    mint,
    source: transfer.accounts.source.address,
    destination: transfer.accounts.destination.address,
    memos,
  });
}

/** Adds the fee payer's signature (key: base58 of its 64-byte secret key, as in Solana keypair files). */
export async function cosignX402(verified: VerifiedX402, feePayerSecretKey: string): Promise<CosignedX402> {
  let keyPair: CryptoKeyPair;
  try {
    keyPair = await createKeyPairFromBytes(getBase58Encoder().encode(feePayerSecretKey.trim()));
  } catch (cause) {
    throw new ApiError(
      "fee_payer_misconfigured",
      "FEE_PAYER_SECRET_KEY is not the base58 of a 64-byte Solana secret key.",
      { cause },
    );
  }
  const keyAddress = await getAddressFromPublicKey(keyPair.publicKey);
  if (keyAddress !== verified.feePayer)
    throw new ApiError(
      "fee_payer_misconfigured",
      `FEE_PAYER_SECRET_KEY belongs to ${keyAddress}, but payments name ${verified.feePayer} as fee payer.`,
    );
  const signed = await partiallySignTransaction([keyPair], verified.transaction);
  try {
    assertIsFullySignedTransaction(signed);
  } catch (cause) {
    throw new ApiError("payment_invalid_signature", "The transaction still lacks a signature after the fee payer's.", {
      cause,
    });
  }
  return { signature: getSignatureFromTransaction(signed), wireTransaction: getBase64EncodedWireTransaction(signed) };
}

const SignatureStatusesSchema = z.object({
  value: z
    .array(
      z
        .object({
          confirmationStatus: z.enum(["processed", "confirmed", "finalized"]).nullable().optional(),
          err: z.unknown().nullable(),
        })
        .nullable(),
    )
    .length(1),
});
type SignatureStatus = NonNullable<z.infer<typeof SignatureStatusesSchema>["value"][number]>;

const SimulationSchema = z.object({
  value: z.object({ err: z.unknown().nullable(), logs: z.array(z.string()).nullable().optional() }),
});

export interface SettleOptions {
  /** How long to wait for `confirmed` after sending. */
  confirmTimeoutMs: number;
  /** Bound on each RPC call. */
  requestTimeoutMs?: number;
}

const describeCause = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause));
const isConfirmed = (status: SignatureStatus) =>
  status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized";
const describe = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** JSON-RPC errors carry negative codes; transport failures (refused, timed out, HTTP 5xx) do not. */
const isRpcAnswer = (error: unknown) => isSolanaError(error) && error.context.__code < 0;

function failedOnChain(err: unknown): ApiError {
  return new ApiError(
    "payment_failed",
    `The payment transaction failed on chain (${describe(err)}); no USDC moved. Create a new payment.`,
  );
}

class ChainClient {
  constructor(
    private readonly rpc: Rpc<SolanaRpcApi>,
    private readonly requestTimeoutMs: number,
  ) {}

  private signal() {
    return { abortSignal: AbortSignal.timeout(this.requestTimeoutMs) };
  }

  async status(signature: Signature): Promise<SignatureStatus | null> {
    try {
      const answer = await this.rpc
        .getSignatureStatuses([signature], { searchTransactionHistory: true })
        .send(this.signal());
      return SignatureStatusesSchema.parse(answer).value[0] ?? null;
    } catch (error) {
      throw chainUnavailable(describeCause(error), error);
    }
  }

  async simulate(wire: Base64EncodedWireTransaction) {
    try {
      const answer = await this.rpc
        .simulateTransaction(wire, {
          encoding: "base64",
          sigVerify: true,
          replaceRecentBlockhash: false,
          commitment: "confirmed",
        })
        .send(this.signal());
      return SimulationSchema.parse(answer).value;
    } catch (error) {
      throw chainUnavailable(describeCause(error), error);
    }
  }

  /** `false` when the RPC answered with an error (the transaction was refused); transport failures are a 503. */
  async send(wire: Base64EncodedWireTransaction): Promise<{ accepted: true } | { accepted: false; error: unknown }> {
    try {
      await this.rpc.sendTransaction(wire, { encoding: "base64", skipPreflight: true }).send(this.signal());
      return { accepted: true };
    } catch (error) {
      if (isRpcAnswer(error)) return { accepted: false, error };
      throw chainUnavailable(describeCause(error), error);
    }
  }
}

/** Polls with a growing delay until the transaction is confirmed, has failed, or the time is up. */
async function awaitConfirmation(chain: ChainClient, signature: Signature, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = 50;
  for (;;) {
    const status = await chain.status(signature);
    if (status?.err) throw failedOnChain(status.err);
    if (status && isConfirmed(status)) return;
    const left = deadline - Date.now();
    if (left <= 0) break;
    await sleep(Math.min(delay, left));
    delay = Math.min(delay * 2, 1000);
  }
  throw new ApiError(
    "payment_unconfirmed",
    `Payment ${signature} was sent but is not confirmed yet. Repeat the same request with the same X-PAYMENT: it will not be charged twice.`,
    { headers: { "Retry-After": "2" } },
  );
}

/** Refuses, as a 402, a transaction whose simulation fails; the chain unchanged. */
async function simulateOrRefuse(chain: ChainClient, wire: Base64EncodedWireTransaction): Promise<"ok" | "landed"> {
  const simulation = await chain.simulate(wire);
  if (simulation.err === "BlockhashNotFound")
    throw new ApiError(
      "payment_expired",
      "The payment transaction's blockhash has expired; nothing was charged. Create a new payment.",
    );
  // Landed already (a concurrent sender): nothing to refuse.
  if (simulation.err === "AlreadyProcessed") return "landed";
  if (simulation.err) {
    const logs = (simulation.logs ?? []).slice(-3).join(" | ");
    throw new ApiError(
      "payment_simulation_failed",
      `The payment transaction would fail (${describe(simulation.err)}${logs ? `: ${logs}` : ""}); nothing was sent.`,
    );
  }
  return "ok";
}

/**
 * Checks, before the work it pays for, that a co-signed payment would go
 * through: known on chain already (a retry) or a successful simulation.
 */
export async function simulateX402(
  rpcUrl: string,
  cosigned: CosignedX402,
  options: Pick<SettleOptions, "requestTimeoutMs"> = {},
): Promise<void> {
  const chain = new ChainClient(createSolanaRpc(rpcUrl), options.requestTimeoutMs ?? 10_000);
  if (await chain.status(cosigned.signature as Signature)) return;
  await simulateOrRefuse(chain, cosigned.wireTransaction as Base64EncodedWireTransaction);
}

/**
 * Sends a co-signed payment and waits until it is confirmed. Simulates first
 * and sends nothing when the simulation fails. A payment already on chain (a
 * retry after the work failed) is not sent again. The RPC being unreachable is
 * a 503 `chain_unavailable`; a transaction that fails on chain is a 402
 * `payment_failed`.
 */
export async function settleX402(rpcUrl: string, cosigned: CosignedX402, options: SettleOptions): Promise<void> {
  const chain = new ChainClient(createSolanaRpc(rpcUrl), options.requestTimeoutMs ?? 10_000);
  const signature = cosigned.signature as Signature;
  const wire = cosigned.wireTransaction as Base64EncodedWireTransaction;

  const known = await chain.status(signature);
  if (known) return awaitConfirmation(chain, signature, options.confirmTimeoutMs);
  if ((await simulateOrRefuse(chain, wire)) === "landed")
    return awaitConfirmation(chain, signature, options.confirmTimeoutMs);

  const sent = await chain.send(wire);
  if (!sent.accepted) {
    // A concurrent sender may have landed it first; otherwise the chain refused it.
    if (await chain.status(signature)) return awaitConfirmation(chain, signature, options.confirmTimeoutMs);
    throw new ApiError(
      "payment_failed",
      "The chain refused the payment transaction; no USDC moved. Create a new payment.",
      { cause: sent.error },
    );
  }
  return awaitConfirmation(chain, signature, options.confirmTimeoutMs);
}

/** The X-PAYMENT-RESPONSE header: base64 JSON `{success, transaction, network, payer}`. */
export function paymentResponseHeader(receipt: { signature: string; network: string; payer: string }): string {
  const body = { success: true, transaction: receipt.signature, network: receipt.network, payer: receipt.payer };
  return Buffer.from(JSON.stringify(body), "utf8").toString("base64");
}
