"use client";

import { type ReactNode, useEffect, useRef, useState } from "react";
import { primaryButton, secondaryButton } from "@/components/pay/button-styles";
import { canRetryWithoutPaying } from "@/components/pay/usePaidRun";
import type { PaymentProblemDetail } from "@/web/payment/payment-problem";
import { formatBaseUnits, formatSol, shortId } from "@/web/format";

type Action = "retry_without_paying" | "check_again" | "try_again" | "pay_again" | "top_up" | "back";

export interface ProblemNoticeProps {
  problem: PaymentProblemDetail;
  /** Local test chain: the faucet and the test wallet exist. */
  local: boolean;
  onRetryWithoutPaying: () => void;
  onTryAgain: () => void;
  onPayAgain: () => void;
  /** Local mode: the faucet funds the paying wallet (test or connected), then the run goes back to paying. */
  onTopUp: () => Promise<void>;
  onBack: () => void;
}

const LOCAL_FUNDS_HINT = "This is the local test chain: its faucet gives any wallet test USDC and SOL (no real money).";

interface Explanation {
  title: string;
  body: ReactNode[];
  actions: Action[];
}

function explain(problem: PaymentProblemDetail, local: boolean): Explanation {
  const fundsActions: Action[] = local ? ["top_up", "back"] : ["try_again", "back"];
  switch (problem.kind) {
    case "declined":
      return {
        title: "You declined the payment in your wallet.",
        body: ["Nothing was charged. Try again when you are ready, or go back and choose another tier."],
        actions: ["try_again", "back"],
      };
    case "insufficient_usdc": {
      const missing = problem.needBaseUnits - problem.haveBaseUnits;
      return {
        title: "Not enough USDC in this wallet.",
        body: [
          `The request costs ${formatBaseUnits(problem.needBaseUnits, problem.decimals)} USDC and this wallet holds ${formatBaseUnits(problem.haveBaseUnits, problem.decimals)} USDC. Add at least ${formatBaseUnits(missing, problem.decimals)} USDC, then try again. Nothing was charged.`,
          ...(local ? [LOCAL_FUNDS_HINT] : []),
        ],
        actions: fundsActions,
      };
    }
    case "insufficient_sol":
      return {
        title: "Not enough SOL for the network fee.",
        body: [
          `Sending the payment costs a network fee of ${formatSol(problem.needLamports)} SOL and this wallet holds ${formatSol(problem.haveLamports)} SOL. Add a little SOL, then try again. Nothing was charged.`,
          ...(local ? [LOCAL_FUNDS_HINT] : []),
        ],
        actions: fundsActions,
      };
    case "not_confirmed":
      return problem.reason === "expired"
        ? {
            title: "The payment was not confirmed.",
            body: [
              <>
                The transaction expired before it landed on chain, so it can no longer land. Nothing was charged if it
                never landed. <Signature value={problem.signature} />
              </>,
            ],
            actions: ["pay_again", "back"],
          }
        : {
            title: "The payment was not confirmed in time.",
            body: [
              <>
                The network has not confirmed the transaction within a minute. Nothing was charged if it never landed;
                if it lands, checking again uses it without paying twice. <Signature value={problem.signature} />
              </>,
            ],
            actions: ["check_again", "back"],
          };
    case "transaction_failed":
      return {
        title: "The transfer failed on chain.",
        body: [
          `The network refused it (${problem.chainError}). No USDC moved: a failed transaction changes nothing but its fee.`,
        ],
        actions: ["try_again", "back"],
      };
    case "rpc_unreachable":
      return {
        title: "The Solana network could not be reached.",
        body: [
          `${problem.rpcUrl} did not answer (${problem.message}). Nothing was charged. Check your connection and try again.`,
          ...(local
            ? ["On the local test chain, the chain runs beside the service: check that the service is still running."]
            : []),
        ],
        actions: ["try_again", "back"],
      };
    case "wallet_error":
      return {
        title: "Your wallet could not sign the payment.",
        body: [`${problem.message} Nothing was charged. Unlock or reconnect the wallet, then try again.`],
        actions: ["try_again", "back"],
      };
    case "service_refused":
      return {
        title:
          problem.status === 429 || problem.status >= 500
            ? "The service cannot take this request right now."
            : "The service did not accept this request.",
        body: [
          <>
            {problem.body.message} <Code status={problem.status} code={problem.body.code} />
          </>,
          "Nothing was charged.",
        ],
        actions: problem.status === 429 || problem.status >= 500 ? ["try_again", "back"] : ["back"],
      };
    case "paid_request_failed":
      return canRetryWithoutPaying(problem)
        ? {
            title: "You paid, but the request did not complete.",
            body: [
              <>
                {problem.body.message} <Code status={problem.status} code={problem.body.code} />
              </>,
              <>
                The service released your payment for this exact request, so retrying costs nothing.
                {problem.retryAfter ? ` It suggests waiting ${problem.retryAfter} s first.` : ""}{" "}
                <Signature value={problem.signature} />
              </>,
            ],
            actions: ["retry_without_paying", "back"],
          }
        : {
            title: "The service did not accept the payment.",
            body: [
              <>
                {problem.body.message} <Code status={problem.status} code={problem.body.code} />
              </>,
              <Signature key="s" value={problem.signature} />,
            ],
            actions: ["pay_again", "back"],
          };
    case "service_unreachable":
      return problem.signature
        ? {
            title: "The service could not be reached after you paid.",
            body: [
              <>
                Your payment is kept for this request: retry without paying again once the service answers.{" "}
                <Signature value={problem.signature} />
              </>,
            ],
            actions: ["retry_without_paying", "back"],
          }
        : {
            title: "The service could not be reached.",
            body: ["Nothing was charged. Check your connection and try again."],
            actions: ["try_again", "back"],
          };
  }
}

function Signature({ value }: { value: string }) {
  return (
    <span className="whitespace-nowrap">
      Transaction{" "}
      <code title={value} className="rounded bg-surface px-1 py-0.5 font-mono text-xs text-fg">
        {shortId(value, 6)}
      </code>
      .
    </span>
  );
}

function Code({ status, code }: { status: number; code: string }) {
  return (
    <span className="text-muted">
      (HTTP {status}, <code className="font-mono text-xs">{code}</code>)
    </span>
  );
}

const LABELS: Record<Action, string> = {
  retry_without_paying: "Retry without paying again",
  check_again: "Check again",
  try_again: "Try again",
  pay_again: "Pay again",
  top_up: "Get test funds from the faucet",
  back: "Back",
};

/** What stopped the run, what it cost (usually nothing), and the next thing to do. */
export function ProblemNotice(props: ProblemNoticeProps) {
  const { problem, local } = props;
  const { title, body, actions } = explain(problem, local);
  const [pending, setPending] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  // Keyboard and screen reader users land on the explanation, not on a button that vanished.
  useEffect(() => heading.current?.focus(), [problem]);
  const handlers: Record<Action, () => void> = {
    retry_without_paying: props.onRetryWithoutPaying,
    check_again: props.onRetryWithoutPaying,
    try_again: props.onTryAgain,
    pay_again: props.onPayAgain,
    top_up: () => {
      setPending(true);
      void props.onTopUp().finally(() => setPending(false));
    },
    back: props.onBack,
  };
  return (
    <div role="alert" className="rounded-xl border border-danger/40 bg-danger-soft p-4 sm:p-5">
      <h3 ref={heading} tabIndex={-1} className="text-base font-semibold text-danger outline-none">
        {title}
      </h3>
      {body.map((paragraph, index) => (
        <p key={index} className="mt-2 text-sm leading-6 text-fg">
          {paragraph}
        </p>
      ))}
      <div className="mt-4 flex flex-wrap gap-2">
        {actions.map((action, index) => (
          <button
            key={action}
            type="button"
            onClick={handlers[action]}
            disabled={pending}
            className={index === 0 && action !== "back" ? primaryButton : secondaryButton}
          >
            {pending && action === "top_up" ? "Asking the faucet…" : LABELS[action]}
          </button>
        ))}
      </div>
    </div>
  );
}
