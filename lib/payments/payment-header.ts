/** The header a payment came in: it decides how it is read and how the receipt is named. */
export interface PaymentHeader {
  name: "X-PAYMENT" | "PAYMENT-SIGNATURE";
  value: string;
}
