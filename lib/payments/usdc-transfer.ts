import {
  type Address,
  type Blockhash,
  type Instruction,
  type TransactionSigner,
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { LEGACY_MEMO_PROGRAM_ADDRESS_V3, getAddMemoInstruction } from "@solana-program/memo";
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, getTransferCheckedInstruction } from "@solana-program/token";

/**
 * The payment a client makes on the spec's path: a USDC TransferChecked
 * from the payer's associated token account to `payTo`'s, with the 402's
 * `extra.reference` in a Memo. Used by the web page (in the browser), the
 * agent example, the benchmarks and the tests.
 */
export interface UsdcTransfer {
  payer: TransactionSigner;
  mint: string;
  payTo: string;
  amount: bigint;
  decimals?: number;
  reference?: string;
  blockhash: { blockhash: Blockhash; lastValidBlockHeight: bigint };
}

/** SPL Memo v2 (MemoSq4…), the one wallets, explorers and RPC parsers know; @solana-program/memo 0.15 defaults to a newer program. */
export const memoInstruction = (text: string) =>
  getAddMemoInstruction({ memo: text }, { programAddress: LEGACY_MEMO_PROGRAM_ADDRESS_V3 });

export const associatedTokenAccount = async (owner: string, mint: string): Promise<Address> =>
  (
    await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS })
  )[0];

/** Returns the signed wire transaction (base64) and its signature. */
export async function signUsdcTransfer(
  transfer: UsdcTransfer,
): Promise<{ signature: string; wireTransaction: string }> {
  const source = await associatedTokenAccount(transfer.payer.address, transfer.mint);
  const destination = await associatedTokenAccount(transfer.payTo, transfer.mint);
  const instructions = [
    getTransferCheckedInstruction({
      source,
      mint: address(transfer.mint),
      destination,
      authority: transfer.payer,
      amount: transfer.amount,
      decimals: transfer.decimals ?? 6,
    }),
    ...(transfer.reference ? [memoInstruction(transfer.reference)] : []),
  ];
  return signInstructions(transfer.payer, instructions, transfer.blockhash);
}

/** A v0 transaction of these instructions, paid and signed by `payer` (and any signer the instructions name). */
export async function signInstructions(
  payer: TransactionSigner,
  instructions: Instruction[],
  blockhash: UsdcTransfer["blockhash"],
): Promise<{ signature: string; wireTransaction: string }> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return { signature: getSignatureFromTransaction(signed), wireTransaction: getBase64EncodedWireTransaction(signed) };
}
