import { handleUrl } from "@/lib/http/chunk-handlers";
import { handle, methodNotAllowed, preflight } from "@/lib/http/respond";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";
export const maxDuration = 300;

export const POST = handle(async (request: Request) => handleUrl(getServices(), request));
export const GET = handle(async () => methodNotAllowed("POST"));
export const OPTIONS = preflight;
