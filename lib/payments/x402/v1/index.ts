/**
 * The x402 `exact` scheme on Solana, as the resource server that is its own
 * facilitator: parse the X-PAYMENT payload, check the partially signed
 * transfer by the current exact-SVM rules, co-sign it as fee payer, send it
 * and wait for it. Every step answers a verdict (accepted, or refused with a
 * reason code); only faults and outages (a misconfigured fee payer, the chain
 * unreachable, a transfer not yet confirmed) are thrown.
 */
export * from "./payload";
export * from "./verify";
export * from "./settle";
