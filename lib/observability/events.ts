import { logger } from "@/lib/observability/log";
import {
  type FreePagesOutcome,
  type JobState,
  countFreePages,
  countJob,
  countPayment,
  countUsdcSettled,
} from "@/lib/observability/metrics";

/**
 * What happened, as log records with an `event` field (and the metric it moves), one call at each place it
 * happens. Fields are identifiers, amounts and reason codes: a payer's address and a transaction's signature
 * (public on chain) are fine; a payment header, a key or a document's text never are.
 */

type Fields = Record<string, string | number | boolean | undefined>;

export function logEvent(event: string, fields: Fields = {}, level: "info" | "warn" | "error" = "info"): void {
  logger()[level]({ event, ...fields });
}

/** A fault beside the answer (a refund or release that failed, a worker that died): logged with its error. */
export function logFault(message: string, error: unknown, fields: Fields = {}): void {
  logger().error({ event: "fault", ...fields, err: error }, message);
}

export interface PaymentFacts {
  tier: string;
  /** USDC base units. */
  amount: bigint;
  payer: string;
  /** The header it came in: X-PAYMENT (a signature or x402 v1) or PAYMENT-SIGNATURE (x402 v2). */
  header?: string;
}

export function paymentVerified(facts: PaymentFacts): void {
  countPayment("verified", facts.tier);
  logEvent("payment.verified", { ...facts, amount: String(facts.amount) });
}

export function paymentSettled(facts: PaymentFacts & { transaction: string }): void {
  countPayment("settled", facts.tier);
  countUsdcSettled(facts.amount, facts.tier);
  logEvent("payment.settled", { ...facts, amount: String(facts.amount) });
}

export function paymentRefused(facts: { tier: string; code: string; header?: string }): void {
  countPayment("refused", facts.tier);
  logEvent("payment.refused", facts);
}

export function paymentReleased(facts: { tier: string; reason: string; job_id?: string }): void {
  countPayment("released", facts.tier);
  logEvent("payment.released", facts);
}

export function paymentReplayed(facts: { tier: string }): void {
  countPayment("replayed", facts.tier);
  logEvent("payment.replayed", facts);
}

export function jobEvent(
  state: JobState,
  facts: { job_id: string; tier: string; code?: string; attempt?: number },
): void {
  countJob(state, facts.tier);
  logEvent(`job.${state}`, facts, state === "failed" ? "warn" : "info");
}

export function freePagesEvent(outcome: FreePagesOutcome, facts: { pages: number; remaining?: number }): void {
  countFreePages(outcome, facts.pages);
  logEvent(`quota.${outcome}`, facts);
}
