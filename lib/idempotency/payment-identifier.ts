import { decodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import {
  PAYMENT_IDENTIFIER,
  type PaymentIdentifierExtension,
  declarePaymentIdentifierExtension,
  extractPaymentIdentifier,
} from "@x402/extensions/payment-identifier";
import { checkedKey } from "@/lib/idempotency/key";
import { MAX_PAYMENT_SIGNATURE_CHARS, type PaymentHeader } from "@/lib/payments/payment-header";

/**
 * x402 v2's `payment-identifier` extension (specs/extensions/payment_identifier.md): the 402 declares it, a
 * client echoes it in its payment payload with `info.id`, its idempotency key.
 */

/** The 402's declaration: optional (`required: false`), since the `Idempotency-Key` header serves the same end. */
export function paymentIdentifierDeclaration(): Record<typeof PAYMENT_IDENTIFIER, PaymentIdentifierExtension> {
  return { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) };
}

/**
 * The id a v2 payment payload carries, checked against the key rule (400 when malformed); undefined for any other
 * payment, or a payload that does not decode (the payment gate refuses that one with its own reason). The id is
 * read without the package's `validatePaymentIdentifier`, which compiles the schema the client sent: a client's
 * JSON Schema is not compiled here.
 */
export function paymentIdentifierOf(payment: PaymentHeader | undefined): string | undefined {
  // Past the gate's own bound it is refused there, undecoded.
  if (payment?.name !== "PAYMENT-SIGNATURE" || payment.value.length > MAX_PAYMENT_SIGNATURE_CHARS) return undefined;
  let payload: PaymentPayload;
  try {
    payload = decodePaymentSignatureHeader(payment.value.trim());
  } catch {
    return undefined;
  }
  if (typeof payload !== "object" || payload === null) return undefined;
  const id = extractPaymentIdentifier(payload, false);
  return id === null ? undefined : checkedKey(id, `The payment's ${PAYMENT_IDENTIFIER} id`);
}
