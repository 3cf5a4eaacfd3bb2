/**
 * JSON with u64 values written as plain JSON numbers at full precision, the
 * way a Solana RPC node writes lamports and slots (kit reads them back as
 * bigint). A bigint is first wrapped in a marker object; inside JSON strings
 * quotes are escaped, so the marker can only match where a value was a bigint.
 */
export function stringifyWithBigInts(value: unknown): string {
  const json = JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? { $bigint: v.toString() } : v));
  return json.replace(/\{"\$bigint":"(-?\d+)"\}/g, "$1");
}
