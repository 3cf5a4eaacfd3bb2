import { createHash, timingSafeEqual } from "node:crypto";
import type { Config } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";
import { prometheusText } from "@/lib/observability/meter-provider";

/**
 * GET /api/metrics: this instance's metrics for Prometheus, to the holder of METRICS_TOKEN (`Authorization:
 * Bearer <token>`). Without the setting the endpoint does not exist (404, as any unknown path), so a deployment
 * that never chose a token publishes nothing.
 */
export async function metricsAnswer(
  config: Pick<Config, "observability">,
  authorization: string | null,
): Promise<{ text: string; contentType: string }> {
  const expected = config.observability.metricsToken;
  if (!expected) throw new ApiError("not_found", "No API endpoint at /api/metrics. GET /api lists the endpoints.");
  const given = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1] ?? "";
  if (!sameSecret(given, expected))
    throw new ApiError("metrics_unauthorized", "Send the operator's METRICS_TOKEN as Authorization: Bearer <token>.", {
      headers: { "www-authenticate": 'Bearer realm="metrics"' },
    });
  return { text: await prometheusText(), contentType: "text/plain; version=0.0.4; charset=utf-8" };
}

/** Compared as hashes, in constant time: neither the token's bytes nor its length leak through timing. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
