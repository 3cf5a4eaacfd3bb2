import { handleUpload } from "@/lib/http/chunk-handlers";
import { handle, methodNotAllowed, preflight } from "@/lib/http/respond";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";
// The ai tier waits for its model calls, and ai-pro's job runs after the answer (Vercel: within this limit).
export const maxDuration = 300;

export const POST = handle(async (request: Request, context: { params: Promise<{ endpoint: string }> }) =>
  handleUpload(getServices(), request, (await context.params).endpoint),
);

export const GET = handle(async () => methodNotAllowed("POST"));
export const OPTIONS = preflight;
