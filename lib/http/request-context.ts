import type { Config } from "@/lib/ground/config";
import { firstForwarded } from "@/lib/http/client-address";

/** A Host value: a name or address with an optional port, nothing else. */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * `<origin>/api` as clients see it: the configured public URL; else the
 * host the client addressed (behind a trusted proxy, the forwarded one), on
 * the request's scheme. Not `request.url`'s origin alone: a self-hosted
 * server sees its own bind name there (`localhost`), which other machines
 * cannot reach.
 */
export function apiBase(request: Request, config: Pick<Config, "publicBaseUrl" | "trustProxyHeaders">): string {
  if (config.publicBaseUrl) return `${config.publicBaseUrl}/api`;
  const url = new URL(request.url);
  const forwarded = config.trustProxyHeaders ? firstForwarded(request.headers, "x-forwarded-host") : undefined;
  const host = [forwarded, request.headers.get("host") ?? undefined].find((h) => h !== undefined && HOST.test(h));
  const proto =
    (config.trustProxyHeaders && firstForwarded(request.headers, "x-forwarded-proto")) || url.protocol.replace(":", "");
  const scheme = proto === "https" || proto === "http" ? proto : "http";
  return `${host ? `${scheme}://${host}` : url.origin}/api`;
}
