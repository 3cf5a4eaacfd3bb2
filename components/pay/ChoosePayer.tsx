/** Choosing who pays: the connected wallet or, on the local chain, a test wallet; its balance, test funds, and the pay button. */

import { WalletMultiButton } from "@solana/wallet-adapter-react-ui";
import { useState } from "react";
import { primaryButton, secondaryButton } from "@/components/pay/button-styles";
import { Spinner } from "@/components/pay/PaymentSteps";
import type { Payer } from "@/components/pay/usePaidRun";
import type { TestWallet } from "@/components/pay/useTestWallet";
import type { Price } from "@/web/payment/paid-request";
import { formatBaseUnits, formatSol, shortId } from "@/web/format";
import { SignatureText } from "@/components/pay/paid-steps";

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

export function ChoosePayer(props: ChoosePayerProps) {
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
