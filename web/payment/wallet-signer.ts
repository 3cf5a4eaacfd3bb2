import {
  type Address,
  type Blockhash,
  type Transaction,
  type TransactionModifyingSigner,
  type TransactionWithLifetime,
  address,
  assertIsTransactionWithinSizeLimit,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
} from "@solana/kit";
import { VersionedTransaction } from "@solana/web3.js";
import { PaymentProblem } from "@/web/payment/payment-problem";

/** What the wallet adapter offers (`useWallet().signTransaction`), narrowed to the v0 transactions we build. */
export type SignWithWallet = (transaction: VersionedTransaction) => Promise<VersionedTransaction>;

/**
 * A kit signer backed by a browser wallet (wallet-adapter, so Phantom and any
 * Wallet Standard wallet). The kit transaction goes to the wallet as a web3.js
 * `VersionedTransaction`; what comes back is taken whole. It is a *modifying*
 * signer rather than a partial one because wallets may change the transaction
 * before signing (Phantom adds Lighthouse guard instructions): a partial
 * signer would pair the wallet's signature with our unmodified message and
 * the chain would refuse it. When the wallet changes nothing, the result is
 * the same as taking its signature for our message.
 */
export function walletTransactionSigner(
  walletAddress: string,
  signWithWallet: SignWithWallet,
): TransactionModifyingSigner {
  const signer: Address = address(walletAddress);
  return {
    address: signer,
    async modifyAndSignTransactions(transactions) {
      const signed = [];
      for (const transaction of transactions) {
        const wire = getTransactionEncoder().encode(transaction);
        const fromWallet = await signWithWallet(VersionedTransaction.deserialize(new Uint8Array(wire)));
        const decoded = getTransactionDecoder().decode(fromWallet.serialize());
        if (!decoded.signatures[signer])
          throw new PaymentProblem({
            kind: "wallet_error",
            message: "The wallet returned the transaction without its signature.",
          });
        assertIsTransactionWithinSizeLimit(decoded);
        signed.push(Object.freeze({ ...decoded, lifetimeConstraint: lifetimeOf(transaction, decoded) }));
      }
      return signed;
    },
  };
}

/** The blockhash the wallet's version carries (a wallet may refresh it), valid until the height we were given. */
function lifetimeOf(
  original: Transaction | (Transaction & TransactionWithLifetime),
  signed: Transaction,
): TransactionWithLifetime["lifetimeConstraint"] {
  const lastValidBlockHeight =
    "lifetimeConstraint" in original && "lastValidBlockHeight" in original.lifetimeConstraint
      ? original.lifetimeConstraint.lastValidBlockHeight
      : 0n;
  const { lifetimeToken } = getCompiledTransactionMessageDecoder().decode(signed.messageBytes);
  return { blockhash: lifetimeToken as Blockhash, lastValidBlockHeight };
}
