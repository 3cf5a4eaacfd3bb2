import { llmsTxt } from "@/lib/service-info/discovery";
import { apiBase } from "@/lib/http/request-context";
import { CORS_HEADERS, handle } from "@/lib/http/respond";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

export const GET = handle(async (request: Request) => {
  const { config } = getServices();
  return new Response(llmsTxt(config, apiBase(request, config)), {
    headers: { "content-type": "text/markdown; charset=utf-8", ...CORS_HEADERS },
  });
});
