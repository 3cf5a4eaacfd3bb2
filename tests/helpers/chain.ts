import {
  type Base64EncodedWireTransaction,
  type Instruction,
  type Signature,
  type TransactionSigner,
  address,
  createSolanaRpc,
  generateKeyPairSigner,
} from "@solana/kit";
import { getCreateAccountInstruction } from "@solana-program/system";
import {
  TOKEN_PROGRAM_ADDRESS,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintToCheckedInstruction,
  getTransferCheckedInstruction,
} from "@solana-program/token";
import { associatedTokenAccount, signInstructions } from "@/lib/payments/usdc-transfer";

/** Real transactions on the project's local chain, for tests that need payments of every kind. */
export type Rpc = ReturnType<typeof createSolanaRpc>;

/** Funds `owner` through the local chain's `chunkwise_faucet` RPC method (its defaults without `amounts`); throws on an RPC error. */
export async function faucet(
  rpcUrl: string,
  owner: string,
  amounts?: { lamports?: number; usdc?: number },
): Promise<void> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "chunkwise_faucet",
      params: [owner, ...(amounts ? [amounts] : [])],
    }),
  });
  const answer = (await response.json()) as { error?: unknown };
  if (answer.error !== undefined) throw new Error(`chunkwise_faucet failed: ${JSON.stringify(answer.error)}`);
}

export async function sendInstructions(
  rpc: Rpc,
  payer: TransactionSigner,
  instructions: Instruction[],
  options: { skipPreflight?: boolean } = {},
): Promise<string> {
  const { value: blockhash } = await rpc.getLatestBlockhash().send();
  const { signature, wireTransaction } = await signInstructions(payer, instructions, blockhash);
  await rpc
    .sendTransaction(wireTransaction as Base64EncodedWireTransaction, {
      encoding: "base64",
      skipPreflight: options.skipPreflight ?? false,
    })
    .send();
  await waitForStatus(rpc, signature);
  return signature;
}

export async function waitForStatus(rpc: Rpc, signature: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const { value } = await rpc.getSignatureStatuses([signature as Signature]).send();
    if (value[0]?.confirmationStatus) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`transaction ${signature} never appeared`);
}

/** A USDC-like token of our own, with `amount` minted to `payer`: the "other mint" a client might pay with. */
export async function createOtherMint(rpc: Rpc, payer: TransactionSigner, amount: bigint): Promise<string> {
  const mint = await generateKeyPairSigner();
  const lamports = await rpc.getMinimumBalanceForRentExemption(82n).send();
  const ata = await associatedTokenAccount(payer.address, mint.address);
  await sendInstructions(rpc, payer, [
    getCreateAccountInstruction({
      payer,
      newAccount: mint,
      lamports,
      space: 82,
      programAddress: TOKEN_PROGRAM_ADDRESS,
    }),
    getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: payer.address }),
    getCreateAssociatedTokenIdempotentInstruction({ payer, ata, owner: payer.address, mint: mint.address }),
    getMintToCheckedInstruction({ mint: mint.address, token: ata, mintAuthority: payer, amount, decimals: 6 }),
  ]);
  return mint.address;
}

/** TransferChecked of `mint` from `payer` to `owner`'s associated account, creating it if needed. */
export async function transferToken(
  rpc: Rpc,
  payer: TransactionSigner,
  to: { owner: string; mint: string; amount: bigint; memo?: Instruction },
  options: { skipPreflight?: boolean } = {},
): Promise<string> {
  const source = await associatedTokenAccount(payer.address, to.mint);
  const destination = await associatedTokenAccount(to.owner, to.mint);
  return sendInstructions(
    rpc,
    payer,
    [
      getCreateAssociatedTokenIdempotentInstruction({
        payer,
        ata: destination,
        owner: address(to.owner),
        mint: address(to.mint),
      }),
      getTransferCheckedInstruction({
        source,
        mint: address(to.mint),
        destination,
        authority: payer,
        amount: to.amount,
        decimals: 6,
      }),
      ...(to.memo ? [to.memo] : []),
    ],
    options,
  );
}
