/** The OpenAPI document at the origin's root too: x402scan and agentcash discovery look for it at `/openapi.json`. */
export { GET, OPTIONS } from "@/app/api/openapi.json/route";

export const dynamic = "force-dynamic";
