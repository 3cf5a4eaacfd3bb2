import { handleUploadBytes } from "@/lib/http/upload-handlers";
import { handle, methodNotAllowed, preflight } from "@/lib/http/respond";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const PUT = handle(async (request: Request, context: { params: Promise<{ id: string }> }) =>
  handleUploadBytes(getServices(), request, (await context.params).id),
);
export const GET = async () => methodNotAllowed("PUT");
export const POST = GET;
export const OPTIONS = preflight;
