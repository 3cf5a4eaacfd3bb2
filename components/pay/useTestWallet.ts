"use client";

import type { KeyPairSigner } from "@solana/kit";
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiUnreachable, requestFaucet } from "@/web/api-client";
import type { PaymentChain } from "@/web/payment/payment-chain";
import { TRANSFER_FEE_LAMPORTS } from "@/web/payment/payment-chain";
import { hasTestWallet, loadOrCreateTestWallet } from "@/web/payment/test-wallet";

export type TestWallet =
  | { status: "off" }
  | { status: "preparing"; signer?: KeyPairSigner }
  | { status: "ready"; signer: KeyPairSigner; funded?: { sol: number; usdc: number } }
  | { status: "error"; signer?: KeyPairSigner; message: string };

/**
 * Local mode's test wallet: made (or restored from this tab's session) when
 * the person asks for it, and funded by the local faucet whenever it holds
 * less than the price or the fee.
 */
export function useTestWallet(options: {
  enabled: boolean;
  chain: PaymentChain;
  mint: string;
  priceBaseUnits?: bigint;
  onFunded: () => void;
}) {
  const { enabled, chain, mint, priceBaseUnits, onFunded } = options;
  const [wallet, setWallet] = useState<TestWallet>({ status: "off" });
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);

  const fund = useCallback(
    async (signer: KeyPairSigner) => {
      let outcome;
      try {
        outcome = await requestFaucet(signer.address);
      } catch (error) {
        throw new Error(
          error instanceof ApiUnreachable ? "The service could not be reached to fund the test wallet." : String(error),
        );
      }
      if (outcome.kind !== "ok")
        throw new Error(outcome.kind === "error" ? outcome.body.message : "The faucet did not answer as expected.");
      onFunded();
      return { sol: outcome.body.sol, usdc: outcome.body.usdc };
    },
    [onFunded],
  );

  const use = useCallback(async () => {
    if (!enabled) return;
    setWallet({ status: "preparing" });
    let signer: KeyPairSigner | undefined;
    try {
      signer = await loadOrCreateTestWallet();
      if (alive.current) setWallet({ status: "preparing", signer });
      const balances = await chain.balances(signer.address, mint);
      const short = balances.usdcBaseUnits < (priceBaseUnits ?? 1n) || balances.lamports < TRANSFER_FEE_LAMPORTS;
      const funded = short ? await fund(signer) : undefined;
      if (alive.current) setWallet({ status: "ready", signer, funded });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (alive.current) setWallet({ status: "error", signer, message });
    }
  }, [enabled, chain, mint, priceBaseUnits, fund]);

  const topUp = useCallback(async () => {
    if (wallet.status !== "ready" && wallet.status !== "error") return;
    const signer = wallet.signer;
    if (!signer) return use();
    setWallet({ status: "preparing", signer });
    try {
      const funded = await fund(signer);
      if (alive.current) setWallet({ status: "ready", signer, funded });
    } catch (error) {
      if (alive.current)
        setWallet({ status: "error", signer, message: error instanceof Error ? error.message : String(error) });
    }
  }, [wallet, fund, use]);

  const stop = useCallback(() => setWallet({ status: "off" }), []);

  return { wallet, use, topUp, stop, remembered: enabled && hasTestWallet() };
}
