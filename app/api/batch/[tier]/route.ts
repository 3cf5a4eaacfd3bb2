import { handleBatch } from "@/lib/http/batch-handlers";
import { handle, methodNotAllowed, preflight } from "@/lib/http/respond";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";
// The documents are read, fetched and counted before the answer; the job runs after it (Vercel: within this limit).
export const maxDuration = 300;

export const POST = handle(async (request: Request, context: { params: Promise<{ tier: string }> }) =>
  handleBatch(getServices(), request, (await context.params).tier),
);

export const GET = handle(async () => methodNotAllowed("POST"));
export const OPTIONS = preflight;
