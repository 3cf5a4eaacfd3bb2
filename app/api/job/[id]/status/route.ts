import { jobStatus } from "@/lib/jobs/status";
import { handle, json, preflight } from "@/lib/http/respond";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";
// A poll may take over a job whose worker died and run it after answering (Vercel: within this limit).
export const maxDuration = 300;

export const GET = handle(async (_request: Request, context: { params: Promise<{ id: string }> }) =>
  json(await jobStatus(getServices(), (await context.params).id)),
);
export const OPTIONS = preflight;
