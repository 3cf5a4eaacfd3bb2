import { x402Discovery } from "@/lib/service-info/discovery";
import { apiBase } from "@/lib/http/request-context";
import { handle, json, preflight } from "@/lib/http/respond";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

export const GET = handle(async (request: Request) => {
  const { config, payments } = getServices();
  return json(x402Discovery(config, apiBase(request, config), await payments.feePayer()));
});
export const OPTIONS = preflight;
