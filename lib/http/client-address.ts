import ipaddr from "ipaddr.js";

/**
 * Who is asking, for the free quota and anything else counted per client. `server.mjs` writes the socket's peer
 * address into PEER_HEADER after deleting any value the client sent, so the
 * header cannot be forged. Forwarding headers are believed only when the
 * deployment says a trusted proxy sets them (Vercel does).
 */
export const PEER_HEADER = "x-chunkwise-peer";

/** The first value of a comma-separated forwarding header (the client-facing hop), or undefined. */
export const firstForwarded = (headers: Headers, name: string) => headers.get(name)?.split(",")[0]?.trim() || undefined;

function peerAddress(headers: Headers, options: { trustProxyHeaders: boolean }): string | undefined {
  if (options.trustProxyHeaders) {
    const forwarded = firstForwarded(headers, "x-forwarded-for");
    const real = headers.get("x-real-ip")?.trim();
    if (forwarded) return forwarded;
    if (real) return real;
  }
  return headers.get(PEER_HEADER)?.trim() || undefined;
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

export function clientAddress(headers: Headers, options: { trustProxyHeaders: boolean }): string {
  const address = peerAddress(headers, options);
  return address === undefined ? "unknown" : clientKey(address);
}
