"use client";

import type { WalletError } from "@solana/wallet-adapter-base";
import { useWallet } from "@solana/wallet-adapter-react";
import { WalletMultiButton } from "@solana/wallet-adapter-react-ui";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { primaryButton, quietButton, secondaryButton } from "@/components/pay/button-styles";
import type { PaidRunProps } from "@/components/pay/paid-run-props";
import { type Step, PaymentSteps, Spinner } from "@/components/pay/PaymentSteps";
import { ProblemNotice } from "@/components/pay/ProblemNotice";
import { type Payer, type Phase, type StepId, usePaidRun } from "@/components/pay/usePaidRun";
import { type TestWallet, useTestWallet } from "@/components/pay/useTestWallet";
import { WalletProviders } from "@/components/pay/WalletProviders";
import type { Price } from "@/web/payment/paid-request";
import { requestFaucet } from "@/web/api-client";
import { walletTransactionSigner } from "@/web/payment/wallet-signer";
import { formatBaseUnits, formatSol, shortId } from "@/web/format";
import "./wallet-adapter.css";

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

const STEP_ORDER: StepId[] = ["price", "wallet", "approve", "confirm", "chunk"];

function currentStep(phase: Phase): StepId | "all-done" {
  switch (phase.name) {
    case "pricing":
      return "price";
    case "choosing":
      return "wallet";
    case "checking":
    case "approving":
      return "approve";
    case "confirming":
      return "confirm";
    case "chunking":
      return "chunk";
    case "served":
      return "all-done";
    case "problem":
      return phase.at;
  }
}

/** What the live region says: the step happening now, in one sentence. */
function announcement(
  phase: Phase,
  payer: Payer | null,
  price: Price | undefined,
  async: boolean,
  paidBefore: boolean,
): string {
  const amount = price ? `${formatBaseUnits(price.amountBaseUnits, price.decimals)} USDC` : "";
  switch (phase.name) {
    case "pricing":
      return "Asking the service for the price.";
    case "choosing":
      if (paidBefore) return "You already paid for this request: retry without paying again.";
      return payer ? `Ready to pay ${amount} from ${payer.label}.` : `The price is ${amount}. Connect a wallet to pay.`;
    case "checking":
      return "Checking the wallet's balance.";
    case "approving":
      return payer?.kind === "test" ? "Signing with the test wallet." : "Waiting for approval in your wallet.";
    case "confirming":
      return "Confirming on chain.";
    case "chunking":
      return async ? "Paid. Starting the job." : "Paid. Chunking your document.";
    case "served":
      return async ? "The job has started." : "Done. Your chunks are ready.";
    case "problem":
      return "The payment stopped. See the message below.";
  }
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
  const here = currentStep(phase);
  const statusOf = (id: StepId): Step["status"] => {
    if (here === "all-done") return "done";
    const position = STEP_ORDER.indexOf(id);
    const current = STEP_ORDER.indexOf(here);
    if (position < current) return "done";
    if (position > current) return "pending";
    return phase.name === "problem" ? "failed" : "active";
  };
  const amount = price ? `${formatBaseUnits(price.amountBaseUnits, price.decimals)} USDC` : null;
  const signature = phase.name === "confirming" || phase.name === "chunking" ? phase.signature : undefined;

  const steps: Step[] = [
    {
      id: "price",
      title: "Price",
      status: statusOf("price"),
      busy: phase.name === "pricing",
      detail: price ? (
        <>
          {amount} to{" "}
          <span title={price.payTo} className="font-mono text-xs">
            {shortId(price.payTo, 4)}
          </span>
        </>
      ) : phase.name === "pricing" ? (
        "Asking the service for the price…"
      ) : (
        "The service did not give a price."
      ),
    },
    {
      id: "wallet",
      title: "Wallet",
      status: statusOf("wallet"),
      detail: payer ? (
        <PayerLine payer={payer} balances={balances.data} decimals={price?.decimals ?? api.asset.decimals} />
      ) : (
        "Connect a wallet to pay"
      ),
    },
    {
      id: "approve",
      title: "Approve",
      status: statusOf("approve"),
      busy: phase.name === "checking" || phase.name === "approving",
      detail:
        phase.name === "checking"
          ? "Checking the wallet's balance…"
          : phase.name === "approving"
            ? payer?.kind === "test"
              ? "Signing with the test wallet…"
              : "Waiting for approval in your wallet…"
            : statusOf("approve") === "done"
              ? "Signed"
              : `One transfer of ${amount ?? "the price"}`,
    },
    {
      id: "confirm",
      title: "Confirm",
      status: statusOf("confirm"),
      busy: phase.name === "confirming",
      detail:
        phase.name === "confirming" ? (
          <>
            Confirming on chain… <SignatureText value={phase.signature} />
          </>
        ) : statusOf("confirm") === "done" && (signature ?? state.paid?.signature) ? (
          <>
            Confirmed <SignatureText value={(signature ?? state.paid?.signature)!} />
          </>
        ) : (
          "The transfer lands on Solana"
        ),
    },
    {
      id: "chunk",
      title: async ? "Start the job" : "Chunk",
      status: statusOf("chunk"),
      busy: phase.name === "chunking",
      detail:
        phase.name === "chunking"
          ? async
            ? "Starting the job…"
            : "Chunking your document…"
          : phase.name === "served"
            ? async
              ? "Job started"
              : "Done"
            : async
              ? "The job starts on its own page"
              : "The request, repeated with the payment",
    },
  ];

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

function SignatureText({ value }: { value: string }) {
  return (
    <code title={value} className="font-mono text-xs">
      {shortId(value, 6)}
    </code>
  );
}

function PayerLine({
  payer,
  balances,
  decimals,
}: {
  payer: Payer;
  balances?: { lamports: bigint; usdcBaseUnits: bigint };
  decimals: number;
}) {
  return (
    <span title={payer.address}>
      {payer.kind === "test" ? "Test wallet" : payer.label}
      {balances ? ` · ${formatBaseUnits(balances.usdcBaseUnits, decimals)} USDC` : ` · ${shortId(payer.address, 4)}`}
    </span>
  );
}

interface ChoosePayerProps {
  price: Price;
  local: boolean;
  payer: Payer | null;
  balances?: { lamports: bigint; usdcBaseUnits: bigint };
  balancesError: Error | null;
  testWallet: TestWallet;
  usingTest: boolean;
  connectError: string | null;
  faucetError: string | null;
  paid?: { signature: string; paidAt: number };
  onUseTestWallet: () => void;
  onTopUp: () => void;
  /** Local mode: test funds for whichever wallet pays. */
  onFundWallet: () => Promise<void>;
  onPay: () => void;
  onRetryWithoutPaying: () => void;
  onForgetPaid: () => void;
}

function ChoosePayer(props: ChoosePayerProps) {
  const { price, local, payer, balances, testWallet, usingTest, connectError, faucetError, paid } = props;
  const [funding, setFunding] = useState(false);
  const amount = `${formatBaseUnits(price.amountBaseUnits, price.decimals)} USDC`;
  const short = balances !== undefined && balances.usdcBaseUnits < price.amountBaseUnits;
  // A payment already made for this request comes first: paying again would charge twice.
  if (paid)
    return <PaidBefore signature={paid.signature} onRetry={props.onRetryWithoutPaying} onForget={props.onForgetPaid} />;
  return (
    <div className="grid gap-4">
      <div className="rounded-xl border border-line p-4">
        <h3 className="text-sm font-semibold text-fg">Pay with</h3>
        <p className="mt-1 text-sm text-muted">
          Phantom or any Solana wallet that supports Wallet Standard.
          {local ? " Or a test wallet, funded with test USDC." : ""}
        </p>
        <div className="mt-3 flex flex-wrap items-center gap-2">
          <WalletMultiButton />
          {local ? (
            <button
              type="button"
              onClick={props.onUseTestWallet}
              className={secondaryButton}
              aria-pressed={usingTest}
              disabled={testWallet.status === "preparing"}
            >
              {testWallet.status === "preparing" ? <Spinner /> : null}
              Use a test wallet
            </button>
          ) : null}
        </div>
        {connectError ? (
          <p role="alert" className="mt-3 text-sm text-danger">
            The wallet did not connect: {connectError} Try again, or choose another wallet.
          </p>
        ) : null}
        {usingTest ? <TestWalletStatus wallet={testWallet} onTopUp={props.onTopUp} /> : null}
      </div>

      <div className="grid gap-2">
        <button
          type="button"
          onClick={props.onPay}
          disabled={!payer}
          className={`${primaryButton} w-full sm:w-auto sm:justify-self-start sm:px-6`}
        >
          Pay {amount}
        </button>
        <p className="text-sm text-muted">
          {payer
            ? `${payer.kind === "test" ? "The test wallet signs" : "Your wallet asks you to approve"} one transfer of exactly ${amount}, plus a network fee of about 0.000005 SOL.`
            : "Connect a wallet first; your wallet then asks you to approve one transfer of exactly this amount."}
          {balances
            ? ` Balance: ${formatBaseUnits(balances.usdcBaseUnits, price.decimals)} USDC, ${formatSol(balances.lamports)} SOL.`
            : ""}
        </p>
        {short ? (
          <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
            <p className="text-sm font-medium text-warning">
              This wallet holds less than {amount}.{local ? "" : " Add USDC before paying."}
            </p>
            {local ? (
              <button
                type="button"
                disabled={funding}
                onClick={() => {
                  setFunding(true);
                  void props.onFundWallet().finally(() => setFunding(false));
                }}
                className={secondaryButton}
              >
                {funding ? <Spinner /> : null}
                Get test USDC from the faucet
              </button>
            ) : null}
          </div>
        ) : null}
        {faucetError ? (
          <p role="alert" className="text-sm text-danger">
            {faucetError}
          </p>
        ) : null}
        {props.balancesError ? (
          <p className="text-sm text-muted">
            The wallet&apos;s balance could not be read; it is checked again when you pay.
          </p>
        ) : null}
      </div>
    </div>
  );
}

function PaidBefore({
  signature,
  onRetry,
  onForget,
}: {
  signature: string;
  onRetry: () => void;
  onForget: () => void;
}) {
  return (
    <div className="rounded-xl border border-warning/40 bg-warning-soft p-4">
      <p className="text-sm font-semibold text-warning">You already paid for this request.</p>
      <p className="mt-1 text-sm leading-6 text-fg">
        A payment (<SignatureText value={signature} />) was made for this document, tier and settings, and the request
        did not complete. Use it again: no second charge.
      </p>
      <div className="mt-3 flex flex-wrap gap-2">
        <button type="button" onClick={onRetry} className={primaryButton}>
          Retry without paying again
        </button>
        <button type="button" onClick={onForget} className={secondaryButton}>
          Forget it and pay again
        </button>
      </div>
    </div>
  );
}

function TestWalletStatus({ wallet, onTopUp }: { wallet: TestWallet; onTopUp: () => void }) {
  if (wallet.status === "off") return null;
  return (
    <div className="mt-3 rounded-lg bg-surface-2 p-3 text-sm text-fg" aria-live="polite">
      {wallet.status === "preparing" ? (
        <p className="flex items-center gap-2">
          <Spinner />{" "}
          {wallet.signer ? "Funding the test wallet from the local faucet…" : "Making a test wallet in this browser…"}
        </p>
      ) : wallet.status === "error" ? (
        <p className="text-danger">The test wallet could not be prepared: {wallet.message}</p>
      ) : (
        <>
          <p>
            Test wallet{" "}
            <span title={wallet.signer.address} className="font-mono text-xs">
              {shortId(wallet.signer.address, 6)}
            </span>
            , kept in this tab until you close it.
          </p>
          {wallet.funded ? (
            <p className="mt-1 text-muted">
              The faucet sent it {wallet.funded.sol} SOL and {wallet.funded.usdc} test USDC.
            </p>
          ) : null}
          <button
            type="button"
            onClick={onTopUp}
            className="mt-2 rounded text-sm font-medium text-accent underline-offset-2 hover:underline"
          >
            Add more test funds
          </button>
        </>
      )}
    </div>
  );
}
