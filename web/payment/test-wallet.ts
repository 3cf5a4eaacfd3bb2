import {
  type KeyPairSigner,
  createKeyPairSignerFromPrivateKeyBytes,
  getBase58Decoder,
  getBase58Encoder,
} from "@solana/kit";

/**
 * Local mode's test wallet: a keypair made in this browser tab, funded by the
 * local chain's faucet (test USDC, no real money). Its 32-byte seed lives in
 * sessionStorage so a reload keeps the same wallet and its funds; closing the
 * tab forgets it. Never offered on a real network (the page checks
 * `api.localnet`).
 */
const STORAGE_KEY = "chunkwise.test-wallet.seed";

function storedSeed(): Uint8Array | null {
  try {
    const value = sessionStorage.getItem(STORAGE_KEY);
    if (!value) return null;
    const seed = new Uint8Array(getBase58Encoder().encode(value));
    return seed.length === 32 ? seed : null;
  } catch {
    return null;
  }
}

export async function loadOrCreateTestWallet(): Promise<KeyPairSigner> {
  let seed = storedSeed();
  if (!seed) {
    seed = crypto.getRandomValues(new Uint8Array(32));
    try {
      sessionStorage.setItem(STORAGE_KEY, getBase58Decoder().decode(seed));
    } catch {
      // Storage disabled: the wallet lasts for this page only.
    }
  }
  return createKeyPairSignerFromPrivateKeyBytes(seed);
}

export function hasTestWallet(): boolean {
  return storedSeed() !== null;
}
