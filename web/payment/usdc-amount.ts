/**
 * Token amounts for people: base units (integers, as the 402 body and the
 * RPC give them) shown as exact decimals, never through floats.
 */
export function formatBaseUnits(baseUnits: bigint | string | number, decimals: number): string {
  const units = BigInt(baseUnits);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

export const LAMPORTS_PER_SOL_DECIMALS = 9;

export const formatSol = (lamports: bigint) => formatBaseUnits(lamports, LAMPORTS_PER_SOL_DECIMALS);
