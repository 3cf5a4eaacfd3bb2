import ipaddr from "ipaddr.js";
import type { Config } from "@/lib/ground/config";

/**
 * Who is asking, for the free quota and anything else counted per client. `server.mjs` writes the socket's peer
 * address into PEER_HEADER after deleting any value the client sent, so the
 * header cannot be forged. Forwarding headers are believed only when the
 * deployment says a trusted proxy sets them (Vercel does).
 */
export const PEER_HEADER = "x-chunkwise-peer";

/** The first value of a comma-separated forwarding header (the client-facing hop), or undefined. */
export const firstForwarded = (headers: Headers, name: string) => headers.get(name)?.split(",")[0]?.trim() || undefined;

export type ClientAddressOptions = Pick<Config, "trustProxyHeaders" | "clientIp">;

/**
 * The address the nearest trusted proxy saw. Proxies append the address
 * they saw to the right of X-Forwarded-For, so anything left of the last
 * `hops` values may have been written by the client itself: the value
 * `hops` from the right is the one the outermost trusted proxy wrote. A
 * header with fewer values than trusted hops did not come through all of
 * them, and is not believed.
 */
function forwardedAddress(headers: Headers, { header, hops }: Config["clientIp"]): string | undefined {
  const values = (headers.get(header) ?? "")
    .split(",")
    .map((value) => value.trim())
    .filter(Boolean);
  return values.length >= hops ? values[values.length - hops] : undefined;
}

function peerAddress(headers: Headers, options: ClientAddressOptions): string | undefined {
  const forwarded = options.trustProxyHeaders ? forwardedAddress(headers, options.clientIp) : undefined;
  return forwarded ?? (headers.get(PEER_HEADER)?.trim() || undefined);
}

/**
 * The key a client is counted under. An IPv6 client is its /64: a home or
 * cloud connection holds a whole /64 and can rotate through it, so counting
 * single addresses would give it unlimited free pages. An IPv4-mapped IPv6
 * address is its IPv4 address. Anything unparsable is counted as it came.
 */
export function clientKey(address: string): string {
  const unbracketed = address.replace(/^\[(.*)\]$/, "$1");
  if (!ipaddr.isValid(unbracketed)) return address;
  const parsed = ipaddr.process(unbracketed);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const prefix = ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toNormalizedString()}/64`);
  return `${prefix.toString()}/64`;
}

export function clientAddress(headers: Headers, options: ClientAddressOptions): string {
  const address = peerAddress(headers, options);
  return address === undefined ? "unknown" : clientKey(address);
}
