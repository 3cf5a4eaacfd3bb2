/**
 * The paid flow's steps as the list beside it shows them (price, wallet,
 * approve, confirm, chunk), each with its status and a line of detail, and
 * the sentence the live region says for the step happening now.
 */
import type { Step } from "@/components/pay/PaymentSteps";
import type { Payer, Phase, StepId } from "@/components/pay/usePaidRun";
import type { Price } from "@/web/payment/paid-request";
import { formatBaseUnits, shortId } from "@/web/format";

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
export function announcement(
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

interface StepsInput {
  phase: Phase;
  price: Price | undefined;
  payer: Payer | null;
  balances?: { lamports: bigint; usdcBaseUnits: bigint };
  decimals: number;
  /** A payment already made for this request. */
  paidSignature?: string;
  async: boolean;
}

export function paidSteps({ phase, price, payer, balances, decimals, paidSignature, async }: StepsInput): Step[] {
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

  return [
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
      detail: payer ? <PayerLine payer={payer} balances={balances} decimals={decimals} /> : "Connect a wallet to pay",
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
        ) : statusOf("confirm") === "done" && (signature ?? paidSignature) ? (
          <>
            Confirmed <SignatureText value={(signature ?? paidSignature)!} />
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
}

export function SignatureText({ value }: { value: string }) {
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
