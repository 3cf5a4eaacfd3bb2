import { jobResult } from "@/lib/jobs/status";
import { handle, jsonText, preflight } from "@/lib/http/respond";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = handle(async (_request: Request, context: { params: Promise<{ id: string }> }) =>
  jsonText(await jobResult(getServices(), (await context.params).id)),
);
export const OPTIONS = preflight;
