/** Display formatting shared by the page's components. */

const BYTE_UNITS = ["bytes", "KB", "MB", "GB"] as const;

/** 1 KB = 1024 bytes, one decimal below 10 units ("2.4 MB", "512 KB", "90 bytes"). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? "byte" : "bytes"}`;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1).replace(/\.0$/, "") : Math.round(value)} ${BYTE_UNITS[unit]}`;
}

/**
 * Token amounts for people: base units (integers, as the 402 body and the
 * RPC give them) shown as exact decimals with no trailing zeros, never
 * through floats ("0.002").
 */
export function formatBaseUnits(baseUnits: bigint | string | number, decimals: number): string {
  const units = BigInt(baseUnits);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** USDC base units (6 decimals by default). */
export const formatUsdc = (baseUnits: bigint | string | number, decimals = 6) => formatBaseUnits(baseUnits, decimals);

/** Lamports as SOL. */
export const formatSol = (lamports: bigint) => formatBaseUnits(lamports, 9);

export const formatCount = (n: number) => n.toLocaleString("en-US");

export const plural = (n: number, one: string, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** "in 3 h 20 min" until an epoch-seconds instant; "now" once it passed. */
export function formatWait(untilEpochSeconds: number, nowMs = Date.now()): string {
  const minutes = Math.max(0, Math.ceil((untilEpochSeconds * 1000 - nowMs) / 60_000));
  if (minutes === 0) return "now";
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return `in ${hours ? `${hours} h ` : ""}${rest || !hours ? `${rest} min` : ""}`.trim();
}

/** When an epoch-seconds instant comes, in local time: "today at 18:00", "tomorrow at 01:00", "on Monday at 01:00". */
export function formatLocalTime(epochSeconds: number, nowMs = Date.now()): string {
  const at = new Date(epochSeconds * 1000);
  const time = at.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  if (at.toDateString() === new Date(nowMs).toDateString()) return `today at ${time}`;
  if (at.toDateString() === new Date(nowMs + 86_400_000).toDateString()) return `tomorrow at ${time}`;
  return `on ${at.toLocaleDateString(undefined, { weekday: "long" })} at ${time}`;
}

/** Shortens a long id (a transaction signature) for display: the start and end, with the whole in a title. */
export const shortId = (id: string, keep = 8) =>
  id.length <= keep * 2 + 1 ? id : `${id.slice(0, keep)}…${id.slice(-keep)}`;
