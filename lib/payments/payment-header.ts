/** The header a payment came in: it decides how it is read and how the receipt is named. */
export interface PaymentHeader {
  name: "X-PAYMENT" | "PAYMENT-SIGNATURE";
  value: string;
}

/** The longest PAYMENT-SIGNATURE header decoded; a longer one is refused undecoded. */
export const MAX_PAYMENT_SIGNATURE_CHARS = 16_384;
