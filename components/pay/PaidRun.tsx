"use client";

import type { WalletError } from "@solana/wallet-adapter-base";
import { useWallet } from "@solana/wallet-adapter-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { quietButton } from "@/components/pay/button-styles";
import type { PaidRunProps } from "@/components/pay/paid-run-props";
import { PaymentSteps, Spinner } from "@/components/pay/PaymentSteps";
import { ProblemNotice } from "@/components/pay/ProblemNotice";
import { type Payer, usePaidRun } from "@/components/pay/usePaidRun";
import { useTestWallet } from "@/components/pay/useTestWallet";
import { WalletProviders } from "@/components/pay/WalletProviders";
import { requestFaucet } from "@/web/api-client";
import { walletTransactionSigner } from "@/web/payment/wallet-signer";
import { formatBaseUnits, shortId } from "@/web/format";
import "./wallet-adapter.css";
import { ChoosePayer } from "@/components/pay/ChoosePayer";
import { announcement, paidSteps } from "@/components/pay/paid-steps";

/**
 * The paid flow, loaded only once a paid tier is chosen (so the wallet
 * adapter, web3.js and the signing code stay out of the free tier's first
 * load): ask the price, connect a wallet (or, on the local test chain, use a
 * test wallet), approve the USDC transfer, confirm it on chain, and repeat
 * the request with the payment.
 */
export default function PaidRun(props: PaidRunProps) {
  const [connectError, setConnectError] = useState<string | null>(null);
  // Signing errors are handled by the flow itself; the provider reports the rest (connecting) here.
  const onWalletError = useCallback((error: WalletError) => {
    if (error.name !== "WalletSignTransactionError") setConnectError(error.message || error.name);
  }, []);
  return (
    <WalletProviders rpcUrl={props.api.payment.rpc_url} onError={onWalletError}>
      <PaidFlow {...props} connectError={connectError} clearConnectError={() => setConnectError(null)} />
    </WalletProviders>
  );
}

interface PaidFlowProps extends PaidRunProps {
  connectError: string | null;
  clearConnectError: () => void;
}

function PaidFlow(props: PaidFlowProps) {
  const { api, tier, onCancel, connectError, clearConnectError } = props;
  const local = api.localnet !== undefined;
  const async = tier.mode === "async";
  const run = usePaidRun(props);
  const { state, chain } = run;
  const price = state.price;
  const mint = price?.mint ?? api.asset.mint;

  const queryClient = useQueryClient();
  const [faucetError, setFaucetError] = useState<string | null>(null);
  /** Local mode: any wallet can get test funds (the person's own, connected one included). */
  const fundFromFaucet = useCallback(async (address: string) => {
    setFaucetError(null);
    try {
      const outcome = await requestFaucet(address);
      if (outcome.kind !== "ok")
        setFaucetError(outcome.kind === "error" ? outcome.body.message : "The faucet did not answer as expected.");
    } catch {
      setFaucetError("The service could not be reached to fund the wallet.");
    }
  }, []);
  const refreshBalances = useCallback(
    () => void queryClient.invalidateQueries({ queryKey: ["chunkwise.balances"] }),
    [queryClient],
  );

  // The person's wallet, through the adapter.
  const { wallet, publicKey, connected, signTransaction } = useWallet();
  const walletAddress = connected && publicKey ? publicKey.toBase58() : null;
  const walletPayer = useMemo<Payer | null>(() => {
    if (!walletAddress || !signTransaction) return null;
    return {
      kind: "wallet",
      address: walletAddress,
      signer: walletTransactionSigner(walletAddress, signTransaction),
      label: wallet?.adapter.name ?? "your wallet",
    };
  }, [walletAddress, signTransaction, wallet]);

  // Local mode's test wallet.
  const testWallet = useTestWallet({
    enabled: local,
    chain,
    mint,
    priceBaseUnits: price?.amountBaseUnits,
    onFunded: refreshBalances,
  });
  const testPayer = useMemo<Payer | null>(
    () =>
      testWallet.wallet.status === "ready"
        ? {
            kind: "test",
            address: testWallet.wallet.signer.address,
            signer: testWallet.wallet.signer,
            label: "the test wallet",
          }
        : null,
    [testWallet.wallet],
  );

  // Which one pays: the last one the person chose. A wallet connecting is a choice; so is "Use a test wallet".
  // A test wallet made earlier in this tab comes back after a reload, unless a real wallet is connected.
  const { remembered, use: startTestWallet } = testWallet;
  const [resumeTestWallet] = useState(() => remembered && !walletAddress && testWallet.wallet.status === "off");
  const [choice, setChoice] = useState<"wallet" | "test">(resumeTestWallet ? "test" : "wallet");
  // Adjusted while rendering (React's pattern for state following a prop), not in an effect that renders twice.
  const [seenWallet, setSeenWallet] = useState(walletAddress);
  if (walletAddress !== seenWallet) {
    setSeenWallet(walletAddress);
    if (walletAddress) setChoice("wallet");
  }
  useEffect(() => {
    if (walletAddress) clearConnectError();
  }, [walletAddress, clearConnectError]);
  // Once, on arrival: `startTestWallet` changes identity with the page's callbacks.
  const resumed = useRef(false);
  useEffect(() => {
    if (!resumeTestWallet || resumed.current) return;
    resumed.current = true;
    void startTestWallet();
  }, [resumeTestWallet, startTestWallet]);
  const payer = choice === "test" ? testPayer : walletPayer;

  const balances = useQuery({
    queryKey: ["chunkwise.balances", api.payment.rpc_url, payer?.address, mint],
    queryFn: () => chain.balances(payer!.address, mint),
    enabled: payer !== null,
    staleTime: 5_000,
    retry: false,
  });

  const phase = state.phase;
  const amount = price ? `${formatBaseUnits(price.amountBaseUnits, price.decimals)} USDC` : null;
  const steps = paidSteps({
    phase,
    price,
    payer,
    balances: balances.data,
    decimals: price?.decimals ?? api.asset.decimals,
    paidSignature: state.paid?.signature,
    async,
  });

  // Keyboard and screen reader users continue where the payment appeared, not at the button that opened it.
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    title.current?.focus();
    title.current?.scrollIntoView({
      block: "start",
      behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth",
    });
  }, []);

  const canCancel = phase.name === "pricing" || phase.name === "choosing" || phase.name === "problem";
  const busy =
    phase.name === "checking" || phase.name === "approving" || phase.name === "confirming" || phase.name === "chunking";

  return (
    <section
      aria-labelledby="paid-run-title"
      className="rounded-2xl border border-line bg-surface p-5 shadow-sm sm:p-6"
    >
      <header className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2">
        <div className="min-w-0">
          <p className="text-sm font-medium text-muted">
            Paid request · {tier.id} tier{local ? " · local test chain" : ""}
          </p>
          <h2
            ref={title}
            id="paid-run-title"
            tabIndex={-1}
            className="mt-0.5 scroll-mt-24 text-xl font-semibold tracking-tight text-fg outline-none"
          >
            {amount ? `Pay ${amount}` : "Getting the price…"}
          </h2>
          <p className="mt-1 min-h-5 text-sm text-muted">
            {price
              ? local
                ? "Test USDC on the local chain: no real money."
                : `USDC on ${price.network}, sent straight to the service's address.`
              : "\u00a0"}
          </p>
        </div>
        {canCancel ? (
          <button type="button" onClick={onCancel} className={quietButton}>
            Cancel
          </button>
        ) : null}
      </header>

      <div className="mt-5 grid gap-6 md:grid-cols-[minmax(0,16.5rem)_minmax(0,1fr)]">
        <PaymentSteps steps={steps} />

        {/* Reserved height: the panel changes with each step, the page under it should not jump. */}
        <div className="min-h-56 min-w-0">
          <p
            role="status"
            aria-live="polite"
            className="mb-3 flex min-h-6 items-center gap-2 text-sm font-medium text-fg"
          >
            {busy ? <Spinner className="size-4 text-accent" /> : null}
            {announcement(phase, payer, price, async, state.paid !== undefined)}
          </p>

          {phase.name === "problem" ? (
            <ProblemNotice
              problem={phase.problem}
              local={local}
              onRetryWithoutPaying={() => void run.retryWithoutPaying()}
              onTryAgain={() => {
                refreshBalances();
                run.startOver();
              }}
              onPayAgain={() => {
                void run.dismissPaid();
                run.startOver();
              }}
              onTopUp={async () => {
                if (payer?.kind === "test") await testWallet.topUp();
                else if (payer) await fundFromFaucet(payer.address);
                refreshBalances();
                run.startOver();
              }}
              onBack={onCancel}
            />
          ) : phase.name === "choosing" && price ? (
            <ChoosePayer
              price={price}
              local={local}
              payer={payer}
              balances={balances.data}
              balancesError={balances.error}
              testWallet={testWallet.wallet}
              usingTest={choice === "test"}
              connectError={connectError}
              faucetError={faucetError}
              paid={state.paid}
              onUseTestWallet={() => {
                setChoice("test");
                void testWallet.use();
              }}
              onTopUp={() => void testWallet.topUp()}
              onFundWallet={async () => {
                if (payer?.kind === "test") await testWallet.topUp();
                else if (payer) await fundFromFaucet(payer.address);
                refreshBalances();
              }}
              onPay={() => payer && void run.pay(payer)}
              onRetryWithoutPaying={() => void run.retryWithoutPaying()}
              onForgetPaid={() => void run.dismissPaid()}
            />
          ) : phase.name === "approving" && payer?.kind === "wallet" ? (
            <p className="rounded-xl border border-line bg-surface-2 p-4 text-sm leading-6 text-fg">
              Your wallet shows a transfer of <strong>{amount}</strong> to{" "}
              <span className="font-mono text-xs">{price ? shortId(price.payTo, 4) : ""}</span>. Approve it there;
              nothing is charged until you do.
            </p>
          ) : phase.name === "pricing" ? (
            <div aria-hidden="true" className="h-28 animate-pulse rounded-xl bg-surface-2" />
          ) : null}
        </div>
      </div>
    </section>
  );
}
