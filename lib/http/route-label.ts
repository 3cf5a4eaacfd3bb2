import { TIERS, TIER_IDS } from "@/lib/tiers";

/**
 * A request's route as a metric label: the path with its ids replaced (`/api/job/{id}/status`), so the label takes
 * a bounded set of values whatever paths clients send.
 */

const FIRST_SEGMENTS = new Set([
  "health",
  "quota",
  "openapi.json",
  "mcp",
  "chunk",
  "batch",
  "results",
  "job",
  "jobs",
  "uploads",
  "dev",
  "metrics",
]);

/** Segments after the first that name a route, not a thing: tier endpoints and the routes' own words. */
const WORDS = new Set([
  ...TIER_IDS.flatMap((id) => TIERS[id].endpoints.map((path) => path.replace("/chunk/", ""))),
  // The batch endpoints are named by tier id.
  ...TIER_IDS,
  "status",
  "result",
  "step",
  "faucet",
]);

export function routeLabel(pathname: string): string {
  const [api, first, ...rest] = pathname.split("/").filter(Boolean);
  if (api !== "api") return "{other}";
  if (first === undefined) return "/api";
  if (!FIRST_SEGMENTS.has(first)) return "/api/{unknown}";
  // Deeper than any route: the rest is one placeholder.
  const tail = rest.slice(0, 3).map((segment) => (WORDS.has(segment) ? segment : "{id}"));
  return ["/api", first, ...tail].join("/");
}
