import { handleBlobHandshake } from "@/lib/http/upload-handlers";
import { handle, methodNotAllowed, preflight } from "@/lib/http/respond";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const POST = handle(async (request: Request) => handleBlobHandshake(getServices(), request));
export const GET = async () => methodNotAllowed("POST");
export const OPTIONS = preflight;
