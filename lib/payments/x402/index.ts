/**
 * The x402 `exact` scheme on Solana, as the resource server that is its own
 * facilitator: parse the X-PAYMENT payload, check the partially signed
 * transfer by the current exact-SVM rules, co-sign it as fee payer, send it
 * and wait for it. Every refusal is an ApiError with its own code, raised
 * before anything reaches the chain.
 */
export * from "./payload";
export * from "./verify";
export * from "./settle";
