"use client";

import type { Adapter, WalletError } from "@solana/wallet-adapter-base";
import { ConnectionProvider, WalletProvider } from "@solana/wallet-adapter-react";
import { WalletModalProvider, useWalletModal } from "@solana/wallet-adapter-react-ui";
import { type ReactNode, useEffect } from "react";

/**
 * Wallet Standard wallets (Phantom, Solflare, Backpack and any other) register
 * themselves and the adapter discovers them, so no legacy adapters are listed.
 * A stable empty array: a new one per render would reset the provider.
 */
const NO_LEGACY_ADAPTERS: Adapter[] = [];

export interface WalletProvidersProps {
  /** The browser-facing RPC (`GET /api` → `payment.rpc_url`); a 127.0.0.1 endpoint makes wallets use `solana:localnet`. */
  rpcUrl: string;
  /** The adapter's errors (connecting, signing); without it they would only reach the console. */
  onError?: (error: WalletError) => void;
  children: ReactNode;
}

export function WalletProviders({ rpcUrl, onError, children }: WalletProvidersProps) {
  return (
    <ConnectionProvider endpoint={rpcUrl} config={{ commitment: "confirmed" }}>
      <WalletProvider wallets={NO_LEGACY_ADAPTERS} autoConnect onError={onError} localStorageKey="chunkwise.wallet">
        <WalletModalProvider>
          <NameTheModalCloseButton />
          {children}
        </WalletModalProvider>
      </WalletProvider>
    </ConnectionProvider>
  );
}

/**
 * The adapter's modal renders its close button with an icon and no text, so
 * screen readers announce a nameless button (axe: button-name). It gets its
 * name once the modal is in the page.
 */
function NameTheModalCloseButton() {
  const { visible } = useWalletModal();
  useEffect(() => {
    if (!visible) return;
    const name = () =>
      document
        .querySelectorAll(".wallet-adapter-modal-button-close:not([aria-label])")
        .forEach((button) => button.setAttribute("aria-label", "Close"));
    name();
    // The modal mounts through a portal just after `visible` flips.
    const observer = new MutationObserver(name);
    observer.observe(document.body, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [visible]);
  return null;
}
