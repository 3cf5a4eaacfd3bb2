import { handle } from "@/lib/http/respond";
import { metricsAnswer } from "@/lib/observability/metrics-endpoint";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Operators' Prometheus scrape of this instance (METRICS_TOKEN); 404 without that setting. */
export const GET = handle(async (request: Request) => {
  const { text, contentType } = await metricsAnswer(getServices().config, request.headers.get("authorization"));
  return new Response(text, { headers: { "content-type": contentType, "cache-control": "no-store" } });
});
