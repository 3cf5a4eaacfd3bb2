import { clientAddress } from "@/lib/http/client-address";
import { handle, json, preflight } from "@/lib/http/respond";
import { rateLimitHeaders } from "@/lib/quota/free-quota";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

/** The calling client's free pages for today, read without taking any: `{limit, remaining, reset}` (reset in epoch seconds). */
export const GET = handle(async (request: Request) => {
  const { config, quota } = getServices();
  const window = await quota.status(clientAddress(request.headers, config));
  return json(
    { limit: window.limit, remaining: window.remaining, reset: window.resetAt },
    { headers: rateLimitHeaders(window) },
  );
});

export const OPTIONS = preflight;
