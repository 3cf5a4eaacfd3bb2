import { apiInfo } from "@/lib/service-info/api-info";
import { apiBase } from "@/lib/http/request-context";
import { handle, json, preflight } from "@/lib/http/respond";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

export const GET = handle(async (request: Request) => {
  const { config, payments } = getServices();
  return json(apiInfo(config, apiBase(request, config), { feePayer: await payments.feePayer() }));
});

export const OPTIONS = preflight;
