import { handle, jsonText, preflight } from "@/lib/http/respond";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

export const GET = handle(async (_request: Request, context: { params: Promise<{ id: string }> }) =>
  jsonText(await getServices().results.load((await context.params).id)),
);
export const OPTIONS = preflight;
