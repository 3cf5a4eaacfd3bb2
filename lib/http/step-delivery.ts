import { Receiver } from "@upstash/qstash";
import { ApiError } from "@/lib/ground/errors";
import { json } from "@/lib/http/respond";
import type { Services } from "@/lib/services/types";
import { Step, type StepOutcome } from "@/lib/jobs/engine";
import { runStep } from "@/lib/jobs/steps";

/** A step's body is a few ids: anything longer is not one of ours. */
const MAX_STEP_BYTES = 16 * 1024;

/** QStash reads the status: 2xx ends the message, anything else is delivered again later (with backoff). */
const OUTCOME_STATUS: Record<StepOutcome, number> = { done: 200, stale: 200, busy: 409, killed: 504 };

/**
 * A QStash delivery to `/api/jobs/step`: its `Upstash-Signature` (a JWT signed with the current or next signing
 * key, naming this URL and the body's SHA-256) verified with the package's own `Receiver` before anything is read
 * from the body, then the step run here, within this function's time.
 */
export async function receiveStep(services: Services, request: Request): Promise<Response> {
  const { engine } = services.config.jobs;
  if (engine.kind !== "qstash")
    throw new ApiError("not_found", "This server runs its jobs in process: it takes no QStash deliveries.");
  const signature = request.headers.get("upstash-signature");
  if (!signature) throw new ApiError("signature_missing", "Only QStash delivers here: Upstash-Signature is missing.");
  if (Number(request.headers.get("content-length") ?? 0) > MAX_STEP_BYTES)
    throw new ApiError("invalid_request", "A step's body is a few ids.");
  const body = await request.text();
  if (body.length > MAX_STEP_BYTES) throw new ApiError("invalid_request", "A step's body is a few ids.");
  const receiver = new Receiver({
    currentSigningKey: engine.currentSigningKey,
    nextSigningKey: engine.nextSigningKey,
  });
  const verified = await receiver.verify({ signature, body, url: engine.stepUrl }).catch(() => false);
  if (!verified) throw new ApiError("signature_invalid", "Upstash-Signature does not verify with this server's keys.");
  let step: Step;
  try {
    step = Step.parse(JSON.parse(body));
  } catch {
    throw new ApiError("invalid_request", "Not a step this server publishes.");
  }
  const outcome = await runStep(services, step);
  return json({ success: true, outcome }, { status: OUTCOME_STATUS[outcome] });
}
