import { createKeyPairSignerFromBytes, getBase58Decoder, getBase58Encoder } from "@solana/kit";
import type { Config } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";
import { type ChainRpc, lookupTableReader } from "@/lib/payments/chain-rpc";
import { type Claim, PaymentLedger, type StoredResponse } from "@/lib/payments/ledger";
import type { PaymentRefused } from "@/lib/payments/payment-required";
import type { PaymentHeader } from "@/lib/payments/payment-header";
import { PaymentReferences } from "@/lib/payments/references";
import { type PaymentRequirement, paymentRequirement, x402Network } from "@/lib/payments/requirements";
import { parseSignature, verifySignaturePayment } from "@/lib/payments/signature";
import {
  type VerifiedX402,
  cosignX402,
  paymentResponseHeader,
  readX402Header,
  settleX402,
  simulateX402,
  verifyX402Payment,
  type X402Payment,
} from "@/lib/payments/x402/v1";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { type Refusal, type Verdict, accept, refuse } from "@/lib/payments/refusal";
import { X402FacilitatorClient } from "@/lib/payments/x402/facilitator";
import {
  type ResourceKind,
  type PaymentPayloadV2,
  asVerifiable,
  checkAccepted,
  offerV2,
  parsePaymentSignatureHeader,
  paymentResponseHeaderV2,
} from "@/lib/payments/x402/v2";
import type { Store } from "@/lib/store/types";
import type { Tier } from "@/lib/tiers";
import { ReferenceUseCounter } from "@/lib/payments/reference-use";
import { ChainIdentity } from "@/lib/payments/chain-identity";
import { type Hold, UnsettledPayments } from "@/lib/payments/unsettled";
import { paymentRefused } from "@/lib/observability/events";

/**
 * Admission of paid requests, whichever way they pay (a transfer's signature, x402 v1 or v2): each is judged,
 * held and claimed so one transfer pays once, and answered as a value: refused, a replay, or paid.
 */

export interface PaidRequest {
  /** Who asks (lib/http/client-address.ts): unpaid references are counted per client. */
  client: string;
  tier: Tier;
  /** What this request costs, in USDC base units, when not the tier's price (a batch: its accepted documents times it). */
  priceBaseUnits?: number;
  /** What a reference binds to: `sha256:<hex>` of the uploaded bytes, or `url:<url>` (a batch: a digest over its members'). */
  document: string;
  /** Tier, document and options: the same payment with the same request gets the same answer again. */
  request: string;
  payment?: PaymentHeader;
  /** Full URL of the endpoint, for the requirement's `resource`. */
  resource: string;
  /** How the endpoint takes its input, for the 402's discovery metadata. */
  resourceKind: ResourceKind;
}

export interface Receipt {
  transaction: string;
  amount: bigint;
  payer: string;
  /** Headers the paid response carries (X-PAYMENT-RESPONSE or PAYMENT-RESPONSE on the x402 path). */
  headers: Record<string, string>;
}

/** A settlement: the final receipt, or the refusal of a payment whose money did not move. */
export type Settlement = { kind: "settled"; receipt: Receipt } | PaymentRefused;

/** What `admit` answers, in the manner of x402's `HTTPProcessResult`: refused, a replay, or paid. */
export type Admission = PaymentRefused | Replay | Paid;
type Replay = { kind: "replay"; response: StoredResponse };
type Paid = {
  kind: "paid";
  receipt: Receipt;
  claim: Claim;
  /** Move the money before the work: the work costs money, or this payer let a payment fail after its work. */
  settleFirst: boolean;
  /**
   * Moves the money, once the work has succeeded (nothing to do when the
   * client paid before asking), and gives the final receipt: a
   * facilitator names the transaction only then.
   */
  settle: () => Promise<Settlement>;
};

/** Settlement failures that mean the payer's funds were not there when the work was done. */
const DEFAULT_CODES = new Set([
  "payment_simulation_failed",
  "payment_failed",
  "payment_insufficient",
  "payment_expired",
]);
/** Longer than any synchronous request's work (extraction, CPU tasks) and its settlement. */
const HOLD_TTL_MS = 10 * 60 * 1000;

const payerBusy = () =>
  new ApiError(
    "payer_busy",
    "Another x402 payment from this token account or wallet is being served and not yet settled: a payer has one at a time. Retry once it is answered, or pay with a transfer's signature.",
    { headers: { "Retry-After": "5" } },
  );

/** The tier as this request is priced: its own price, or the request's (a batch's). */
const pricedTier = (request: PaidRequest): Tier =>
  request.priceBaseUnits === undefined ? request.tier : { ...request.tier, priceBaseUnits: request.priceBaseUnits };

/** What identifies a payer for holds and defaults: the transfer's source token account and its authority. */
const payerKeys = (verified: VerifiedX402) => [`source:${verified.source}`, `authority:${verified.payer}`];

export class PaymentGate {
  readonly #config: Config;
  readonly #rpc: ChainRpc;
  readonly #ledger: PaymentLedger;
  readonly #references: PaymentReferences;
  readonly #store: Store;
  readonly #ledgerTtlMs: number;
  readonly #unsettled: UnsettledPayments;
  readonly #referenceUse: ReferenceUseCounter;
  readonly #chainIdentity: ChainIdentity;
  #feePayer: Promise<string | undefined> | undefined;

  constructor(config: Config, store: Store, rpc: ChainRpc) {
    this.#config = config;
    this.#rpc = rpc;
    const windowMs = config.payments.maxAgeSeconds * 1000;
    this.#store = store;
    this.#ledgerTtlMs = windowMs + 24 * 3600 * 1000;
    this.#ledger = new PaymentLedger(store, this.#ledgerTtlMs);
    this.#references = new PaymentReferences(store, windowMs, config.payments.unpaidReferences);
    this.#unsettled = new UnsettledPayments(store, HOLD_TTL_MS, windowMs);
    this.#referenceUse = new ReferenceUseCounter(store);
    this.#chainIdentity = new ChainIdentity(rpc, config.network);
  }

  /** Refuses (503 `server_misconfigured`) while the RPC serves another chain than SOLANA_NETWORK's. */
  assertChainIdentity(): Promise<void> {
    return this.#chainIdentity.assert();
  }

  /** Paid requests with and without the 402's reference in a Memo, over the last days (GET /api/health). */
  referenceUse() {
    return this.#referenceUse.totals();
  }

  /** The x402 fee payer: the facilitator's, or ours derived once from its secret key; undefined when x402 settlement is not configured. */
  feePayer(): Promise<string | undefined> {
    const { facilitator, feePayerSecretKey } = this.#config.payments;
    this.#feePayer ??= facilitator
      ? Promise.resolve(facilitator.feePayer)
      : feePayerSecretKey
        ? createKeyPairSignerFromBytes(getBase58Encoder().encode(feePayerSecretKey)).then((s) => s.address)
        : Promise.resolve(undefined);
    return this.#feePayer;
  }

  async admit(request: PaidRequest): Promise<Admission> {
    const { payment } = request;
    if (!payment)
      return this.#refuse(request, {
        code: "payment_required",
        message: `The ${request.tier.id} tier costs ${pricedTier(request).priceBaseUnits} USDC base units ${request.priceBaseUnits === undefined ? "per request" : "for this batch"}: send them to payTo, then repeat the request with X-PAYMENT: <transaction signature>; or pay with an x402 client.`,
      });
    if (payment.name === "PAYMENT-SIGNATURE") {
      const v2 = parsePaymentSignatureHeader(payment.value);
      return v2.ok ? this.#admitV2(v2.value, request) : this.#refuse(request, v2.refusal);
    }
    const x402 = readX402Header(payment.value);
    if (x402) return x402.ok ? this.#admitX402(x402.value, request) : this.#refuse(request, x402.refusal);
    const signature = parseSignature(payment.value);
    return signature.ok ? this.#admitSignature(signature.value, request) : this.#refuse(request, signature.refusal);
  }

  /** A refusal carries what its 402 needs: the reason, and the offer with a fresh reference to pay with. */
  async #refuse(request: PaidRequest, reason: Refusal): Promise<PaymentRefused> {
    // A request without payment is asked for one; one with a payment is refused, with the reason.
    if (request.payment) paymentRefused({ tier: request.tier.id, code: reason.code, header: request.payment.name });
    return {
      kind: "refused",
      ...reason,
      requirement: await this.#requirement(request, true),
      resourceKind: request.resourceKind,
      network: this.#config.network,
    };
  }

  /** A v2 payment must accept exactly what this request offers; its memo must be the reference issued for it. */
  async #admitV2(payment: PaymentPayloadV2, request: PaidRequest): Promise<Admission> {
    const accepted = checkAccepted(
      payment.accepted,
      offerV2(await this.#requirement(request, false), this.#config.network),
    );
    if (!accepted.ok) return this.#refuse(request, accepted.refusal);
    const { memo } = payment.accepted.extra;
    if (memo === undefined) {
      if (this.#config.payments.requireReference)
        return this.#refuse(request, {
          code: "payment_reference_required",
          message: "This server accepts only payments carrying the 402 answer's extra.memo.",
        });
    } else {
      const bound = await this.#references.find([memo]);
      if (!bound || bound.tier !== request.tier.id || bound.document !== request.document)
        return this.#refuse(request, {
          code: "payment_reference_mismatch",
          message:
            "The payment's extra.memo is not the reference issued for this request (another document, URL or tier, or expired): pay the offer of this request's 402.",
        });
    }
    return this.#admitX402(asVerifiable(payment), request, payment);
  }

  async #requirement(request: PaidRequest, withReference: boolean): Promise<PaymentRequirement> {
    const reference = withReference ? await this.#reference(request) : undefined;
    const feePayer = await this.feePayer();
    return paymentRequirement(this.#config, pricedTier(request), request.resource, {
      ...(feePayer ? { feePayer } : {}),
      ...(reference ? { reference } : {}),
    });
  }

  /**
   * The reference a 402 carries. A client over its allowance of unpaid
   * references is refused with 429 when it sent no payment; a refused
   * payment still gets its 402 (with the reason), without a new reference.
   */
  async #reference(request: PaidRequest): Promise<string | undefined> {
    const issued = await this.#references.issue(request.client, request.tier.id, request.document);
    if ("reference" in issued) return issued.reference;
    if (request.payment) return undefined;
    throw new ApiError(
      "too_many_unpaid_requests",
      `This client has asked for ${this.#config.payments.unpaidReferences.burst} new payment offers in a short time without paying them (${this.#config.payments.unpaidReferences.perMinute} more a minute): pay one of the 402 answers you have, or retry after ${issued.retryAfterSeconds} s.`,
      { headers: { "Retry-After": String(issued.retryAfterSeconds) } },
    );
  }

  /** Makes a payment usable again after the async work it bought has failed (see PaymentLedger.releaseDone). */
  releasePayment(transaction: string, request: string): Promise<void> {
    return this.#ledger.releaseDone(transaction, request);
  }

  async #admitSignature(signature: string, request: PaidRequest): Promise<Admission> {
    // Before the chain is read: on another chain than SOLANA_NETWORK's no verdict could be right.
    await this.#chainIdentity.assert();
    const bought = await this.#bought(signature, request);
    if (bought) return bought;

    const price = BigInt(pricedTier(request).priceBaseUnits);
    const { payments, payTo, usdcMint } = this.#config;
    const verdict = await verifySignaturePayment(this.#rpc, signature, {
      payTo,
      mint: usdcMint,
      price,
      maxAgeSeconds: payments.maxAgeSeconds,
      confirmTimeoutMs: payments.confirmTimeoutMs,
    });
    if (!verdict.ok) return this.#refuse(request, verdict.refusal);
    const transfer = verdict.value;
    const withReference = await this.#checkMemoReference(transfer.memos, request);
    if (!withReference.ok) return this.#refuse(request, withReference.refusal);

    return this.#claim(
      signature,
      request,
      { transaction: signature, amount: transfer.amount, payer: transfer.payer, headers: {} },
      withReference.value,
    );
  }

  async #admitX402(
    payment: X402Payment,
    request: PaidRequest,
    /** The payload as a v2 client sent it, when it came in PAYMENT-SIGNATURE. */
    v2?: PaymentPayloadV2,
  ): Promise<Admission> {
    await this.#chainIdentity.assert();
    const version = v2 ? 2 : 1;
    const memo = v2?.accepted.extra.memo;
    const { facilitator, feePayerSecretKey } = this.#config.payments;
    const feePayer = await this.feePayer();
    if (!feePayer)
      return this.#refuse(request, {
        code: "x402_unavailable",
        message:
          "This server does not settle x402 payments; pay with a USDC transfer and send its signature in X-PAYMENT.",
      });
    const requirement = await this.#requirement(request, false);
    // Our own rules first, even with a facilitator: a refused payload never leaves this process.
    const checked = await verifyX402Payment(
      payment,
      requirement,
      feePayer,
      lookupTableReader(this.#rpc),
      this.#config.payments.feePayerMaxSolUsd,
    );
    if (!checked.ok) return this.#refuse(request, checked.refusal);
    const verified = checked.value;
    if (memo !== undefined && !verified.memos.includes(memo))
      return this.#refuse(request, {
        code: "payment_reference_mismatch",
        message:
          "The transaction carries no Memo with the accepted extra.memo, the reference this payment is bound by.",
      });
    // A v1 payload names no reference of its own: its Memos are looked up like a signature payment's.
    const withReference = v2 ? accept(memo !== undefined) : await this.#checkMemoReference(verified.memos, request);
    if (!withReference.ok) return this.#refuse(request, withReference.refusal);
    const paying: X402Paying = { verified, request, version, withReference: withReference.value };
    if (facilitator) {
      // The facilitator speaks v2: a v1 payment is the same transaction accepting the same offer.
      const offer = offerV2(requirement, this.#config.network);
      return this.#admitThroughFacilitator(
        new X402FacilitatorClient(facilitator.url),
        v2 ?? { x402Version: 2, accepted: offer, payload: payment.payload },
        v2?.accepted ?? offer,
        paying,
      );
    }
    const cosigning = await cosignX402(verified, feePayerSecretKey!);
    if (!cosigning.ok) return this.#refuse(request, cosigning.refusal);
    const cosigned = cosigning.value;

    const bought = await this.#bought(cosigned.signature, request);
    if (bought) return bought;
    const { confirmTimeoutMs } = this.#config.payments;
    return this.#whileHeld(paying, async (hold) => {
      // Would it go through? Asked before any work, so a payment that cannot settle buys no work.
      const simulated = await simulateX402(this.#rpc, cosigned);
      if (!simulated.ok) return this.#refuse(request, simulated.refusal);
      const admission = await this.#claim(
        cosigned.signature,
        request,
        this.#x402Receipt(cosigned.signature, verified, version),
        paying.withReference,
      );
      if (admission.kind !== "paid") return admission;
      return {
        ...admission,
        settle: () =>
          this.#settling(paying, hold, async () => {
            const settled = await settleX402(this.#rpc, cosigned, {
              confirmTimeoutMs: Math.max(confirmTimeoutMs, 30_000),
            });
            return settled.ok ? accept(admission.receipt) : settled;
          }),
      };
    });
  }

  /** A signature path's or x402 v1 payment's Memos against the references issued: whether one is this request's. */
  async #checkMemoReference(memos: string[], request: PaidRequest): Promise<Verdict<boolean>> {
    const bound = await this.#references.find(memos);
    if (bound && (bound.tier !== request.tier.id || bound.document !== request.document))
      return refuse(
        "payment_reference_mismatch",
        "This payment's Memo carries the reference of a different request (another document, URL or tier); it can pay only for that one.",
      );
    if (!bound && this.#config.payments.requireReference)
      return refuse(
        "payment_reference_required",
        "This server accepts only transfers carrying the 402 answer's extra.reference in a Memo instruction.",
      );
    return accept(bound !== null);
  }

  /**
   * Admits an x402 payment while its payer holds no other unsettled one, and
   * holds the payer until the payment settles or is given up (the claim
   * released or completed). Decides whether the money moves before the work.
   */
  async #whileHeld(paying: X402Paying, admit: (hold: Hold) => Promise<Admission>): Promise<Admission> {
    const keys = payerKeys(paying.verified);
    const hold = await this.#unsettled.hold(keys);
    if (!hold) throw payerBusy();
    let admission: Admission;
    try {
      admission = await admit(hold);
    } catch (error) {
      await hold.release();
      throw error;
    }
    if (admission.kind !== "paid") {
      await hold.release();
      return admission;
    }
    const settleFirst =
      // Model calls cost money: a tier with a model settles before its work.
      paying.request.tier.model !== undefined ||
      (await this.#unsettled.defaulted([...keys, `client:${paying.request.client}`]));
    const { claim } = admission;
    return {
      ...admission,
      settleFirst,
      claim: {
        complete: async (response) => {
          await claim.complete(response);
          await hold.release();
        },
        release: async () => {
          await claim.release();
          await hold.release();
        },
      },
    };
  }

  /**
   * Settles, then frees the payer; a payer whose funds were gone by then pays before the work from now on. The mark
   * is made while the payer is still held, so no payment of theirs is admitted in between as a payer in good standing.
   */
  async #settling(paying: X402Paying, hold: Hold, settle: () => Promise<Verdict<Receipt>>): Promise<Settlement> {
    let settled: Verdict<Receipt>;
    try {
      settled = await settle();
      if (!settled.ok && DEFAULT_CODES.has(settled.refusal.code))
        await this.#unsettled.markDefaulted([...payerKeys(paying.verified), `client:${paying.request.client}`]);
    } finally {
      await hold.release();
    }
    return settled.ok ? { kind: "settled", receipt: settled.value } : this.#refuse(paying.request, settled.refusal);
  }

  /**
   * The facilitator co-signs, so the transaction's id is known only once it
   * has settled: until then the payment is claimed under the payer's own
   * signature, verified by the facilitator before the work and settled after
   * it. Once settled, the settlement is recorded under the payer's signature
   * (a retry of the same payload is not settled twice) and the transaction id
   * is claimed for the same request, so it cannot pay again on the signature
   * path.
   */
  async #admitThroughFacilitator(
    client: X402FacilitatorClient,
    payment: PaymentPayload,
    requirements: PaymentRequirements,
    paying: X402Paying,
  ): Promise<Admission> {
    const { verified, request, version, withReference } = paying;
    const payer = payerSignature(verified);
    if (!payer)
      return this.#refuse(request, { code: "payment_invalid", message: "The payload is not signed by its payer." });
    const settledKey = `x402-settled:${payer}`;
    const settledBefore = await this.#store.get(settledKey);
    if (settledBefore) {
      const bought = await this.#bought(settledBefore, request);
      if (bought) return bought;
      const admission = await this.#claim(
        settledBefore,
        request,
        this.#x402Receipt(settledBefore, verified, version),
        withReference,
      );
      // Settled already: nothing is left unsettled, so nothing to hold.
      return admission.kind === "paid" ? { ...admission, settleFirst: false } : admission;
    }
    const pendingId = `x402-payer:${payer}`;
    const bought = await this.#bought(pendingId, request);
    if (bought) return bought;
    return this.#whileHeld(paying, async (hold) => {
      const accepted = await client.verify(payment, requirements);
      if (!accepted.ok) return this.#refuse(request, accepted.refusal);
      const admission = await this.#claim(pendingId, request, this.#x402Receipt("", verified, version), withReference);
      if (admission.kind !== "paid") return admission;

      let byTransaction: Claim | undefined;
      const settle = () =>
        this.#settling(paying, hold, async () => {
          const lock = `x402-settling:${payer}`;
          if (!(await this.#store.setIfAbsent(lock, "1", { ttlMs: 60_000 })))
            throw new ApiError(
              "payment_in_progress",
              "This payment is being settled right now; retry in a few seconds.",
              { headers: { "Retry-After": "2" } },
            );
          let transaction: string;
          try {
            const settled = await client.settle(payment, requirements);
            if (!settled.ok) return settled;
            transaction = settled.value.signature;
            await this.#store.set(settledKey, transaction, { ttlMs: this.#ledgerTtlMs });
          } finally {
            await this.#store.del(lock);
          }
          const claimed = await this.#ledger.claim(transaction, request.request);
          if ("claim" in claimed) byTransaction = claimed.claim;
          return accept(this.#x402Receipt(transaction, verified, version));
        });
      const claim: Claim = {
        complete: async (response) => {
          await byTransaction?.complete(response);
          await admission.claim.complete(response);
        },
        release: async () => {
          await byTransaction?.release();
          await admission.claim.release();
        },
      };
      return { ...admission, claim, settle };
    });
  }

  /** What a payment already did: null when unused, else the replay of what it bought here or the refusal of its reuse. */
  async #bought(paymentId: string, request: PaidRequest): Promise<Admission | null> {
    const purchase = await this.#ledger.replay(paymentId, request.request);
    if (!purchase) return null;
    return "refusal" in purchase
      ? this.#refuse(request, purchase.refusal)
      : { kind: "replay", response: purchase.response };
  }

  #x402Receipt(transaction: string, verified: VerifiedX402, version: 1 | 2): Receipt {
    const receipt = { signature: transaction, payer: verified.payer };
    return {
      transaction,
      amount: verified.amount,
      payer: verified.payer,
      headers:
        version === 2
          ? { "PAYMENT-RESPONSE": paymentResponseHeaderV2({ ...receipt, network: this.#config.network }) }
          : {
              "X-PAYMENT-RESPONSE": paymentResponseHeader({ ...receipt, network: x402Network(this.#config.network) }),
            },
    };
  }

  async #claim(paymentId: string, request: PaidRequest, receipt: Receipt, withReference: boolean): Promise<Admission> {
    const claimed = await this.#ledger.claim(paymentId, request.request);
    if ("refusal" in claimed) return this.#refuse(request, claimed.refusal);
    if ("response" in claimed) return { kind: "replay", response: claimed.response };
    const claim: Claim = {
      ...claimed.claim,
      complete: async (response) => {
        await claimed.claim.complete(response);
        await this.#references.paid(request.client, request.tier.id, request.document);
        await this.#referenceUse.record(withReference);
      },
    };
    // Settled already unless the caller says otherwise: the spec's signature path moved the money before asking.
    return { kind: "paid", receipt, claim, settleFirst: false, settle: async () => ({ kind: "settled", receipt }) };
  }
}

/** An x402 payment past our own checks, on its way to being held, claimed and settled. */
interface X402Paying {
  verified: VerifiedX402;
  request: PaidRequest;
  version: 1 | 2;
  /** It carries the 402's reference (v2: extra.memo; v1: a Memo naming one of ours). */
  withReference: boolean;
}

function payerSignature(verified: VerifiedX402): string | undefined {
  const bytes = verified.transaction.signatures[verified.payer];
  return bytes ? getBase58Decoder().decode(bytes) : undefined;
}
