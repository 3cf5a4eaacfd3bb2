/** Checking an x402 exact-SVM transaction by the current rules before anything reaches the chain: its instructions, compute budget, transfer, memos and the payer's signature. */

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
  type GetMultipleAccountsApi,
  type Rpc,
  type Transaction,
  address,
  decompileTransactionMessage,
  decompileTransactionMessageFetchingLookupTables,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getPublicKeyFromAddress,
  getTransactionDecoder,
  isSolanaError,
  verifySignature,
} from "@solana/kit";
import { ApiError } from "@/lib/ground/errors";
import { chainUnavailable } from "@/lib/payments/chain-rpc";
import { accept, refuse, type Verdict } from "@/lib/payments/refusal";
import { MEMO_PROGRAMS, memoText } from "@/lib/payments/memo";
import type { PaymentRequirement } from "@/lib/payments/requirements";
import {
  TOKEN_2022_PROGRAM_ADDRESS,
  LIGHTHOUSE_PROGRAM_ADDRESS,
  MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS,
  MAX_COMPUTE_UNIT_LIMIT,
  MIN_INSTRUCTIONS,
  MAX_INSTRUCTIONS,
  type X402Payment,
  type VerifiedX402,
  acceptedNetworks,
} from "./payload";
import { describeCause } from "./settle";
import { DEFAULT_FEE_PAYER_MAX_SOL_USD, type FeeBudget, feeBudget, priorityFeeLamports } from "@/lib/ground/fee-budget";

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

function checkComputeBudget(
  limit: Instruction | undefined,
  price: Instruction | undefined,
  budget: FeeBudget,
): Refused | undefined {
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
  const priorityFee = priorityFeeLamports(units, microLamports);
  if (priorityFee > budget.maxPriorityFeeLamports)
    return refuse(
      "payment_fee_too_high",
      `The priority fee (limit × price) is ${priorityFee} lamports; a payment of this price may ask the fee payer for at most ${budget.maxPriorityFeeLamports}.`,
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
    if (cause instanceof ApiError) throw cause; // the service's RPC client: already the 503 it should be
    if (usesLookupTables && !isSolanaError(cause)) throw chainUnavailable(describeCause(cause), cause);
    return refuse("payment_invalid", "The transaction message could not be decompiled.");
  }
}

/**
 * Checks an x402 payload against the requirement by the current exact-SVM
 * rules, and against the fee budget of its price (at most two signers and a
 * priority fee the price pays for, see fee-budget.ts): 3 to 7 instructions; Lighthouse guards (which wallets add) anywhere;
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
  /** The SOL price (USD) the fee budget holds up to: FEE_PAYER_MAX_SOL_USD. */
  feePayerMaxSolUsd = DEFAULT_FEE_PAYER_MAX_SOL_USD,
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
  const budget = feeBudget(BigInt(requirement.maxAmountRequired), feePayerMaxSolUsd);
  // Each signature costs the fee payer a base fee, whoever signs: refused before anything else is looked at.
  const signers = Object.keys(transaction.signatures).length;
  if (signers > budget.maxSignatures)
    return refuse(
      "payment_fee_too_high",
      `The transaction has ${signers} signers; an x402 payment has ${budget.maxSignatures} (the fee payer and the transfer's authority), each costing the fee payer a base fee.`,
    );
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
  const overBudget = checkComputeBudget(layout[0], layout[1], budget);
  if (overBudget) return overBudget;

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
