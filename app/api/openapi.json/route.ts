import { apiBase } from "@/lib/http/request-context";
import { handle, json, preflight } from "@/lib/http/respond";
import { openApiDocument } from "@/lib/openapi";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

/** The OpenAPI 3.1 document, with this server's URL, limits and defaults. */
export const GET = handle(async (request: Request) => {
  const { config } = getServices();
  return json(openApiDocument(config, apiBase(request, config)));
});

export const OPTIONS = preflight;
