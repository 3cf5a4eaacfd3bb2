import { receiveStep } from "@/lib/http/step-delivery";
import { handle } from "@/lib/http/respond";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";
// One slice of a job runs within this limit; JOB_SLICE_MS stays well inside it.
export const maxDuration = 300;

export const POST = handle(async (request: Request) => receiveStep(getServices(), request));
