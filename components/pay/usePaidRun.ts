"use client";

// First: before any schema of the payment modules is made.
import "@/web/zod-jitless";
import type { TransactionSigner } from "@solana/kit";
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef } from "react";
import type { PaidRunProps } from "@/components/pay/paid-run-props";
import { PaymentChain } from "@/web/payment/payment-chain";
import { type Price, type Served, askPrice, checkFunds, redeemPayment, signPayment } from "@/web/payment/paid-request";
import {
  forgetPaidSignature,
  linkJobToPayment,
  paidRequestKey,
  recallPaidSignature,
  rememberPaidSignature,
} from "@/web/payment/paid-signatures";
import { PaymentProblem, type PaymentProblemDetail } from "@/web/payment/payment-problem";

/**
 * The paid run as a small state machine: ask for the price, then (once a
 * payer is ready) check funds, sign, send, confirm and redeem. Each phase is
 * what the page shows as the current step; a problem remembers the step it
 * stopped at so the step list can mark it.
 */
export type StepId = "price" | "wallet" | "approve" | "confirm" | "chunk";

export type Phase =
  | { name: "pricing" }
  | { name: "choosing" }
  | { name: "checking" }
  | { name: "approving" }
  | { name: "confirming"; signature: string }
  | { name: "chunking"; signature: string }
  | { name: "served" }
  | { name: "problem"; at: StepId; problem: PaymentProblemDetail };

export interface Payer {
  kind: "wallet" | "test";
  address: string;
  signer: TransactionSigner;
  /** The wallet's name as the person knows it ("Phantom", "Test wallet"). */
  label: string;
}

interface State {
  phase: Phase;
  price?: Price;
  /** A payment made earlier for this exact request whose redemption failed: it can be redeemed again. */
  paid?: { signature: string; paidAt: number };
}

type Action =
  { type: "phase"; phase: Phase } | { type: "priced"; price: Price } | { type: "paid"; paid?: State["paid"] };

function reducer(state: State, action: Action): State {
  switch (action.type) {
    case "phase":
      return { ...state, phase: action.phase };
    case "priced":
      return { ...state, price: action.price, phase: { name: "choosing" } };
    case "paid":
      return { ...state, paid: action.paid };
  }
}

/** A retry with the same signature helps unless the service refused the payment itself. */
const RETRYABLE_PAYMENT_CODES = new Set(["payment_not_found", "payment_unconfirmed", "payment_in_progress"]);
export const canRetryWithoutPaying = (problem: PaymentProblemDetail): boolean =>
  (problem.kind === "paid_request_failed" &&
    (problem.status !== 402 || RETRYABLE_PAYMENT_CODES.has(problem.body.code))) ||
  (problem.kind === "service_unreachable" && problem.signature !== undefined) ||
  (problem.kind === "not_confirmed" && problem.reason === "timeout");

export function usePaidRun(props: PaidRunProps) {
  const { api, onResult, onJob } = props;
  // One run pays for one request: it follows the request's values, not the identity of the objects the page passes.
  const file = props.source.kind === "file" ? props.source.file : null;
  const url = props.source.kind === "url" ? props.source.url : null;
  const { max_tokens, overlap_tokens, output_format } = props.options;

  const { tier, source, options } = useMemo(
    () => ({ tier: props.tier, source: props.source, options: props.options }),
    // The values above, not the objects: the page passes new ones on every render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [props.tier.id, file, url, max_tokens, overlap_tokens, output_format],
  );
  const chain = useMemo(() => new PaymentChain(api.payment.rpc_url), [api.payment.rpc_url]);
  const decimals = api.asset.decimals;
  const [state, dispatch] = useReducer(reducer, { phase: { name: "pricing" } });
  const alive = useRef(true);
  const abort = useRef<AbortController | null>(null);

  // The latest callbacks, so a run in flight reports to the page as it is now.
  const callbacks = useRef({ onResult, onJob });
  useLayoutEffect(() => {
    callbacks.current = { onResult, onJob };
  });

  const requestKey = useMemo(() => paidRequestKey(tier.id, source, options), [tier.id, source, options]);
  const keyOfRequest = useCallback(() => requestKey, [requestKey]);

  const set = useCallback((phase: Phase) => {
    if (alive.current) dispatch({ type: "phase", phase });
  }, []);

  const fail = useCallback((at: StepId, error: unknown) => {
    if (!alive.current) return;
    const problem: PaymentProblemDetail =
      error instanceof PaymentProblem
        ? error.detail
        : { kind: "wallet_error", message: error instanceof Error ? error.message : String(error) };
    dispatch({ type: "phase", phase: { name: "problem", at, problem } });
  }, []);

  const finish = useCallback(
    async (served: Served) => {
      const key = await keyOfRequest();
      // A job can still fail (and release the payment): its page settles the remembered signature.
      if (served.kind === "job") linkJobToPayment(served.job.job_id, key);
      else forgetPaidSignature(key);
      if (!alive.current) return;
      dispatch({ type: "paid", paid: undefined });
      set({ name: "served" });
      if (served.kind === "result") callbacks.current.onResult(served.result);
      else callbacks.current.onJob(served.job);
    },
    [keyOfRequest, set],
  );

  /** Step (a), and a payment remembered from before for this same request. */
  const ask = useCallback(async () => {
    set({ name: "pricing" });
    try {
      const remembered = recallPaidSignature(await keyOfRequest());
      if (alive.current) dispatch({ type: "paid", paid: remembered ?? undefined });
      const answer = await askPrice(tier, source, options, decimals);
      if (!alive.current) return;
      if (answer.kind === "served") return void (await finish(answer.served));
      dispatch({ type: "priced", price: answer.price });
    } catch (error) {
      fail("price", error);
    }
  }, [tier, source, options, decimals, keyOfRequest, finish, fail, set]);

  useEffect(() => {
    alive.current = true;
    void ask();
    return () => {
      alive.current = false;
      abort.current?.abort();
    };
  }, [ask]);

  /** Steps (e) and (f) with a signature already confirmed on chain. */
  const redeem = useCallback(
    async (signature: string) => {
      set({ name: "chunking", signature });
      try {
        await finish(await redeemPayment(tier, source, options, signature));
      } catch (error) {
        fail("chunk", error);
      }
    },
    [tier, source, options, finish, fail, set],
  );

  const confirmAndRedeem = useCallback(
    async (signature: string, lastValidBlockHeight: bigint) => {
      set({ name: "confirming", signature });
      abort.current = new AbortController();
      try {
        await chain.waitForConfirmation(signature, lastValidBlockHeight, abort.current.signal);
      } catch (error) {
        // A transaction whose blockhash expired can never land: nothing to retry with.
        if (
          error instanceof PaymentProblem &&
          error.detail.kind === "not_confirmed" &&
          error.detail.reason === "expired"
        )
          forgetPaidSignature(await keyOfRequest());
        return fail("confirm", error);
      }
      await redeem(signature);
    },
    [chain, keyOfRequest, redeem, fail, set],
  );

  /** The last blockhash height of the payment in flight, for "keep waiting". */
  const inFlight = useRef<{ signature: string; lastValidBlockHeight: bigint } | null>(null);

  /** Steps (c) to (f): check funds, sign, send, confirm, redeem. */
  const pay = useCallback(
    async (payer: Payer) => {
      const price = state.price;
      if (!price) return;
      set({ name: "checking" });
      try {
        await checkFunds(chain, payer.address, price);
      } catch (error) {
        return fail("approve", error);
      }
      set({ name: "approving" });
      let signed;
      try {
        signed = await signPayment(chain, payer.signer, price);
      } catch (error) {
        return fail("approve", error);
      }
      set({ name: "confirming", signature: signed.signature });
      try {
        await chain.send(signed.wireTransaction, {
          signature: signed.signature,
          usdc: { need: price.amountBaseUnits, decimals: price.decimals },
          payer: payer.address,
          mint: price.mint,
        });
      } catch (error) {
        return fail("confirm", error);
      }
      // Sent: from here on the person may have paid, so the signature survives a reload.
      rememberPaidSignature(await keyOfRequest(), signed.signature);
      if (alive.current) dispatch({ type: "paid", paid: { signature: signed.signature, paidAt: Date.now() } });
      inFlight.current = { signature: signed.signature, lastValidBlockHeight: signed.blockhash.lastValidBlockHeight };
      await confirmAndRedeem(signed.signature, signed.blockhash.lastValidBlockHeight);
    },
    [state.price, chain, keyOfRequest, confirmAndRedeem, fail, set],
  );

  /** After a problem: the same signature again (paid already), or keep waiting for one not yet confirmed. */
  const retryWithoutPaying = useCallback(async () => {
    const phase = state.phase;
    if (
      phase.name === "problem" &&
      phase.problem.kind === "not_confirmed" &&
      inFlight.current?.signature === phase.problem.signature
    ) {
      return confirmAndRedeem(inFlight.current.signature, inFlight.current.lastValidBlockHeight);
    }
    const signature =
      state.paid?.signature ??
      (phase.name === "problem" && "signature" in phase.problem ? phase.problem.signature : undefined);
    if (signature) await redeem(signature);
  }, [state.phase, state.paid, confirmAndRedeem, redeem]);

  /** Forget a remembered payment (it will not be used) and go back to paying. */
  const dismissPaid = useCallback(async () => {
    forgetPaidSignature(await keyOfRequest());
    if (alive.current) dispatch({ type: "paid", paid: undefined });
  }, [keyOfRequest]);

  /** Back to choosing a payer after a problem before payment; or ask again when pricing failed. */
  const startOver = useCallback(() => {
    if (state.price) set({ name: "choosing" });
    else void ask();
  }, [state.price, ask, set]);

  return { state, chain, pay, retryWithoutPaying, dismissPaid, startOver };
}
