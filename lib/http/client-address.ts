/**
 * Who is asking, for the free quota. `server.mjs` writes the socket's peer
 * address into PEER_HEADER after deleting any value the client sent, so the
 * header cannot be forged. Forwarding headers are believed only when the
 * deployment says a trusted proxy sets them (Vercel does).
 */
export const PEER_HEADER = "x-chunkwise-peer";

/** The first value of a comma-separated forwarding header (the client-facing hop), or undefined. */
export const firstForwarded = (headers: Headers, name: string) => headers.get(name)?.split(",")[0]?.trim() || undefined;

export function clientAddress(headers: Headers, options: { trustProxyHeaders: boolean }): string {
  if (options.trustProxyHeaders) {
    const forwarded = firstForwarded(headers, "x-forwarded-for");
    const real = headers.get("x-real-ip")?.trim();
    if (forwarded) return forwarded;
    if (real) return real;
  }
  return headers.get(PEER_HEADER)?.trim() || "unknown";
}
