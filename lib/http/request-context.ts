import type { Config } from "@/lib/config";

/** `<origin>/api` as clients see it: the configured public URL, else the request's own origin. */
export function apiBase(request: Request, config: Config): string {
  return `${config.publicBaseUrl ?? new URL(request.url).origin}/api`;
}
