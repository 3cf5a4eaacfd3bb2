/**
 * The x402 `exact` scheme on Solana, as the resource server that is its own
 * facilitator: parse the X-PAYMENT payload, check the partially signed
 * transfer by the current exact-SVM rules, co-sign it as fee payer, send it
 * and wait for it. Reading the header, checking the transfer and simulating
 * it answer verdicts (accepted, or refused with a reason code); settling
 * throws its refusal as a 402 ApiError, which the gate reads back as a value.
 */
export * from "./payload";
export * from "./verify";
export * from "./settle";
