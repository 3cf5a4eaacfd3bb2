import {
  createKeyPairSignerFromBytes,
  createKeyPairSignerFromPrivateKeyBytes,
  getAddressEncoder,
  getBase58Decoder,
  type KeyPairSigner,
} from "@solana/kit";

/**
 * A fresh keypair whose secret can be handed over: base58 of the 64-byte
 * secret key (seed followed by public key), the format of Solana CLI key
 * files and of FEE_PAYER_SECRET_KEY. Kit's own generated keys are not
 * extractable, so the seed is drawn here and kit derives the rest.
 */
export async function generateExportableKeyPair(): Promise<{ signer: KeyPairSigner; secretKey: string }> {
  const seed = crypto.getRandomValues(new Uint8Array(32));
  const { address } = await createKeyPairSignerFromPrivateKeyBytes(seed);
  const secret = new Uint8Array(64);
  secret.set(seed, 0);
  secret.set(getAddressEncoder().encode(address), 32);
  // Round trip through the importer every consumer will use: it checks the halves belong together.
  const signer = await createKeyPairSignerFromBytes(secret);
  return { signer, secretKey: getBase58Decoder().decode(secret) };
}
