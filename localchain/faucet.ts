import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getTransactionEncoder,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
  type Signature,
} from "@solana/kit";
import { getTransferSolInstruction, SYSTEM_PROGRAM_ADDRESS } from "@solana-program/system";
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintEncoder,
  getMintSize,
  getMintToInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from "@solana-program/token";
import type { Ledger } from "@/localchain/ledger";

/**
 * The chain's privileged wallet: holds the genesis SOL and is the test USDC
 * mint's authority. Everything it hands out goes through real, signed
 * transactions, so airdrops show up in history like on a cluster.
 */
const GENESIS_LAMPORTS = 500_000_000n * 1_000_000_000n;

export class Faucet {
  private constructor(
    private readonly ledger: Ledger,
    private readonly signer: KeyPairSigner,
    readonly mint: Address,
  ) {}

  /** Writes the genesis accounts: the faucet's balance and the mint (at a fixed address, like devnet USDC's). */
  static async create(ledger: Ledger, options: { mint: Address; decimals: number }): Promise<Faucet> {
    const signer = await generateKeyPairSigner();
    ledger.setAccount({
      address: signer.address,
      data: new Uint8Array(),
      executable: false,
      lamports: lamports(GENESIS_LAMPORTS),
      programAddress: SYSTEM_PROGRAM_ADDRESS,
      space: 0n,
    });
    const mintData = new Uint8Array(
      getMintEncoder().encode({
        mintAuthority: signer.address,
        supply: 0n,
        decimals: options.decimals,
        isInitialized: true,
        freezeAuthority: null,
      }),
    );
    ledger.setAccount({
      address: options.mint,
      data: mintData,
      executable: false,
      lamports: lamports(ledger.minimumBalanceForRentExemption(getMintSize())),
      programAddress: TOKEN_PROGRAM_ADDRESS,
      space: BigInt(mintData.length),
    });
    return new Faucet(ledger, signer, options.mint);
  }

  async tokenAccountOf(owner: Address): Promise<Address> {
    const [ata] = await findAssociatedTokenPda({ mint: this.mint, owner, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    return ata;
  }

  /** SOL and test USDC in one transaction; the USDC account is created when missing. */
  async fund(
    recipient: Address,
    amounts: { lamports: bigint; usdcBaseUnits: bigint },
  ): Promise<{ signatures: Signature[]; tokenAccount: Address }> {
    const tokenAccount = await this.tokenAccountOf(recipient);
    const instructions: Instruction[] = [];
    if (amounts.lamports > 0n) {
      instructions.push(
        getTransferSolInstruction({ source: this.signer, destination: recipient, amount: amounts.lamports }),
      );
    }
    if (amounts.usdcBaseUnits > 0n) {
      instructions.push(
        getCreateAssociatedTokenIdempotentInstruction({
          payer: this.signer,
          ata: tokenAccount,
          owner: recipient,
          mint: this.mint,
        }),
        getMintToInstruction({
          mint: this.mint,
          token: tokenAccount,
          mintAuthority: this.signer,
          amount: amounts.usdcBaseUnits,
        }),
      );
    }
    const signatures = instructions.length > 0 ? [await this.send(instructions)] : [];
    return { signatures, tokenAccount };
  }

  async createTokenAccount(owner: Address): Promise<Address> {
    const tokenAccount = await this.tokenAccountOf(owner);
    await this.send([
      getCreateAssociatedTokenIdempotentInstruction({ payer: this.signer, ata: tokenAccount, owner, mint: this.mint }),
    ]);
    return tokenAccount;
  }

  async airdrop(recipient: Address, amount: bigint): Promise<Signature> {
    return this.send([getTransferSolInstruction({ source: this.signer, destination: recipient, amount })]);
  }

  private async send(instructions: Instruction[]): Promise<Signature> {
    const { blockhash, lastValidBlockHeight } = this.ledger.latestBlockhashInfo();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(this.signer, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: blockhash as Blockhash, lastValidBlockHeight: BigInt(lastValidBlockHeight) },
          m,
        ),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const signed = await signTransactionMessageWithSigners(message);
    return this.ledger.submit(new Uint8Array(getTransactionEncoder().encode(signed)), { skipPreflight: false });
  }
}
