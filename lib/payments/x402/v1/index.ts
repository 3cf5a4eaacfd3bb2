/**
 * The x402 `exact` scheme on Solana, as the resource server that is its own
 * facilitator: parse the X-PAYMENT payload, check the partially signed
 * transfer by the current exact-SVM rules, co-sign it as fee payer, send it
 * and wait for it. Checking the transfer answers a verdict (accepted, or
 * refused with a reason code) before anything reaches the chain; a header
 * that cannot be read and a failed settlement are ApiErrors.
 */
export * from "./payload";
export * from "./verify";
export * from "./settle";
