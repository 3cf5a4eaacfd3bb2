import {
  type KeyPairSigner,
  createKeyPairSignerFromBytes,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase58Encoder,
  getTransactionDecoder,
  getTransactionEncoder,
  partiallySignTransaction,
} from "@solana/kit";
import type { Page } from "playwright-core";

/**
 * A Wallet Standard wallet injected into the page before any script runs, so
 * the wallet adapter discovers it like Phantom. It signs in Node (the page
 * calls an exposed function with the transaction), with a kit keypair the
 * test controls and funds (e.g. from the local faucet). With `reject` it
 * refuses every signature the way real wallets do (an error with code 4001).
 *
 * Call before `page.goto`. The wallet offers `standard:connect`,
 * `standard:disconnect`, `standard:events` and `solana:signTransaction`
 * (legacy and v0) on mainnet, devnet, testnet and localnet, so it works
 * whatever RPC the page uses.
 */
export interface InjectedWalletOptions {
  /** The keypair as 64 bytes (solana-keygen's JSON array) or their base58; a fresh one when absent. */
  secretKey?: Uint8Array | number[] | string;
  /**
   * Refuse signature requests ("User rejected the request.", code 4001): all
   * of them, or those for which the function says so (given the request's
   * number, from 1), e.g. `(n) => n === 1` to decline once and approve a retry.
   */
  reject?: boolean | ((request: number) => boolean);
  /** The name shown in the wallet modal. */
  name?: string;
  /**
   * Called with each request (base64 wire transaction) before the wallet
   * answers; the page waits meanwhile, as it waits for a person to approve.
   * Tests use it to look at the "waiting for approval" step.
   */
  onSignRequest?: (transaction: string) => Promise<void> | void;
}

export interface InjectedWallet {
  name: string;
  address: string;
  signer: KeyPairSigner;
  /** Every transaction the page asked the wallet to sign, as base64 wire bytes, in order (refused ones too). */
  requests: string[];
  /** Signatures given (the requests not refused). */
  signed: number;
}

/** What crosses from the page to Node and back: base64 wire transactions, or the refusal. */
type SignAnswer = { transaction: string } | { rejected: true };

const SIGN_FUNCTION = "__chunkwiseInjectedWalletSign";

const ICON =
  "data:image/svg+xml;base64," +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#4338ca"/><path d="M9 12h14v10H9z" fill="#fff"/><path d="M19 15h5v4h-5z" fill="#4338ca"/></svg>',
  ).toString("base64");

async function signerFrom(secretKey: InjectedWalletOptions["secretKey"]): Promise<KeyPairSigner> {
  if (secretKey === undefined) return generateKeyPairSigner();
  const bytes =
    typeof secretKey === "string" ? new Uint8Array(getBase58Encoder().encode(secretKey)) : Uint8Array.from(secretKey);
  return createKeyPairSignerFromBytes(bytes);
}

export async function installInjectedWallet(page: Page, options: InjectedWalletOptions = {}): Promise<InjectedWallet> {
  const signer = await signerFrom(options.secretKey);
  const wallet: InjectedWallet = {
    name: options.name ?? "E2E Wallet",
    address: signer.address,
    signer,
    requests: [],
    signed: 0,
  };

  await page.exposeFunction(SIGN_FUNCTION, async (base64: string): Promise<SignAnswer> => {
    wallet.requests.push(base64);
    await options.onSignRequest?.(base64);
    const reject = typeof options.reject === "function" ? options.reject(wallet.requests.length) : options.reject;
    if (reject) return { rejected: true };
    const transaction = getTransactionDecoder().decode(Buffer.from(base64, "base64"));
    const signed = await partiallySignTransaction([signer.keyPair], transaction);
    wallet.signed++;
    return { transaction: Buffer.from(getTransactionEncoder().encode(signed)).toString("base64") };
  });

  const config: PageWalletConfig = {
    name: wallet.name,
    icon: ICON,
    address: signer.address,
    publicKey: Array.from(getAddressEncoder().encode(signer.address)),
    signFunction: SIGN_FUNCTION,
  };
  // As source text: transpilers that keep function names (tsx, esbuild's keepNames) wrap inner functions in a
  // `__name` helper that does not exist in the page, so the script brings a no-op one along.
  await page.addInitScript({
    content: `(() => { const __name = (target) => target; (${registerWalletInPage.toString()})(${JSON.stringify(config)}); })();`,
  });
  return wallet;
}

interface PageWalletConfig {
  name: string;
  icon: string;
  address: string;
  publicKey: number[];
  signFunction: string;
}

/** Runs in the page (serialised by Playwright): self-contained, no imports. */
function registerWalletInPage(config: PageWalletConfig): void {
  const chains = ["solana:mainnet", "solana:devnet", "solana:testnet", "solana:localnet"] as const;
  const account = Object.freeze({
    address: config.address,
    publicKey: new Uint8Array(config.publicKey),
    chains,
    features: ["solana:signTransaction"],
    label: config.name,
    icon: config.icon,
  });
  let connected = false;
  const listeners = new Set<(properties: { accounts?: readonly unknown[] }) => void>();
  const emitChange = () => listeners.forEach((listener) => listener({ accounts: connected ? [account] : [] }));
  const toBase64 = (bytes: Uint8Array) => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));
  const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const sign = (
    window as unknown as Record<string, (base64: string) => Promise<{ transaction?: string; rejected?: true }>>
  )[config.signFunction]!;

  const wallet = {
    version: "1.0.0" as const,
    name: config.name,
    icon: config.icon,
    chains,
    get accounts() {
      return connected ? [account] : [];
    },
    features: {
      "standard:connect": {
        version: "1.0.0",
        connect: async () => {
          connected = true;
          emitChange();
          return { accounts: [account] };
        },
      },
      "standard:disconnect": {
        version: "1.0.0",
        disconnect: async () => {
          connected = false;
          emitChange();
        },
      },
      "standard:events": {
        version: "1.0.0",
        on: (event: string, listener: (properties: { accounts?: readonly unknown[] }) => void) => {
          if (event !== "change") return () => {};
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      },
      "solana:signTransaction": {
        version: "1.0.0",
        supportedTransactionVersions: ["legacy", 0],
        signTransaction: async (...inputs: { transaction: Uint8Array }[]) =>
          Promise.all(
            inputs.map(async ({ transaction }) => {
              const answer = await sign(toBase64(transaction));
              if (answer.rejected || !answer.transaction)
                throw Object.assign(new Error("User rejected the request."), { code: 4001 });
              return { signedTransaction: fromBase64(answer.transaction) };
            }),
          ),
      },
    },
  };

  // Wallet Standard's handshake, both ways round: the app may be listening already, or announce itself later.
  const register = (api: { register: (wallet: unknown) => unknown }) => api.register(wallet);
  window.addEventListener("wallet-standard:app-ready", (event) => register((event as CustomEvent).detail));
  window.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: register }));
}
