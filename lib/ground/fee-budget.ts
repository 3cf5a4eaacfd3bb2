/**
 * What an x402 payment may cost the fee payer. The fee payer pays the base
 * fee of every signature and the priority fee (compute unit limit × price)
 * the payer chose; both must stay below the price the payment brings in, at
 * the highest SOL price the operator plans for (FEE_PAYER_MAX_SOL_USD).
 * Worked out from the tier's price, so a cheaper tier gets a smaller budget.
 */

/**
 * The default of FEE_PAYER_MAX_SOL_USD. The cheapest tier (structure,
 * 0.002 USDC) must pay for the two signatures every x402 payment carries
 * (10,000 lamports), which holds only below $200 a SOL; $190 leaves it a
 * priority budget of 525 lamports, ~25x what x402 clients ask (20,000 units
 * at 1 µlamport is under 1 lamport).
 */
export const DEFAULT_FEE_PAYER_MAX_SOL_USD = 190;

/** Solana's base fee per signature. */
export const LAMPORTS_PER_SIGNATURE = 5000n;
/**
 * The fee payer and the transfer's authority: all an exact payment needs
 * (Lighthouse guards and Memos add instructions, not signers). Each extra
 * signer would cost the fee payer another base fee.
 */
export const MAX_SIGNATURES = 2;
/** Above any tier's budget anyway; kept as the ceiling the cheapest budgets are cut from. */
const MAX_PRIORITY_FEE_CEILING_LAMPORTS = 50_000n;

/** The price in lamports at `solUsd` dollars per SOL (USDC base units are 10⁻⁶ USD, lamports 10⁻⁹ SOL), rounded down. */
export function priceInLamports(priceBaseUnits: bigint, solUsd: number): bigint {
  return BigInt(Math.floor((Number(priceBaseUnits) * 1000) / solUsd));
}

export interface FeeBudget {
  maxSignatures: number;
  /** The most priority fee (limit × price, rounded up) a payment may ask the fee payer to pay. */
  maxPriorityFeeLamports: bigint;
}

/** The budget of a payment of `priceBaseUnits`: whatever the price leaves after the signatures' base fees, less a lamport, capped by the ceiling. */
export function feeBudget(priceBaseUnits: bigint, solUsd: number): FeeBudget {
  const left = priceInLamports(priceBaseUnits, solUsd) - BigInt(MAX_SIGNATURES) * LAMPORTS_PER_SIGNATURE - 1n;
  return {
    maxSignatures: MAX_SIGNATURES,
    maxPriorityFeeLamports:
      left < 0n ? 0n : left < MAX_PRIORITY_FEE_CEILING_LAMPORTS ? left : MAX_PRIORITY_FEE_CEILING_LAMPORTS,
  };
}

/** The most a payment within `budget` can cost the fee payer, in lamports. */
export const worstCaseFeeLamports = (budget: FeeBudget) =>
  BigInt(budget.maxSignatures) * LAMPORTS_PER_SIGNATURE + budget.maxPriorityFeeLamports;

/** The priority fee a compute budget asks for, rounded up as the runtime does. */
export const priorityFeeLamports = (units: number, microLamports: bigint) =>
  (BigInt(units) * microLamports + 999_999n) / 1_000_000n;
