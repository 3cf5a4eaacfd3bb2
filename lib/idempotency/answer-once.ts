import { ApiError } from "@/lib/ground/errors";
import { requestFingerprint } from "@/lib/idempotency/fingerprint";
import { oneKey } from "@/lib/idempotency/key";
import { paymentIdentifierOf } from "@/lib/idempotency/payment-identifier";
import { IdempotencyRecords } from "@/lib/idempotency/records";
import { mainThreadTurn } from "@/lib/ground/main-thread-turns";
import { logFault } from "@/lib/observability/events";
import type { PaymentHeader } from "@/lib/payments/payment-header";
import type { ChunkResponse, DocumentInput } from "@/lib/pipeline";
import type { Services } from "@/lib/services/types";
import type { TierId } from "@/lib/tiers";

/**
 * Idempotency around a chunking request (the IETF `Idempotency-Key` draft, and x402's `payment-identifier`):
 * the first request with a key runs; the same request again with the key gets the first one's answer (status,
 * body, receipt headers; a job's id) without touching payment or quota; another request with the key is
 * refused (409 `idempotency_key_reused`), as is the same one while the first is still running (409
 * `idempotency_key_in_flight`). Wrapped around the pipeline by the handlers, so the payment gate and the quota
 * never see a replay.
 *
 * Keys are scoped per client address (lib/http/client-address.ts), paid requests included: the address is known
 * before the body is read and cannot be forged, while a payer is known only after its payment is verified (a
 * chain read on the signature path), and a signature on chain names its payer to anyone who looks.
 */

/** Replayed answers say so, as Stripe's and the draft's examples do. */
const REPLAYED_HEADER = "Idempotent-Replayed";

/** Longer than any synchronous request's work and its settlement (the route's maxDuration is 300 s). */
const LEASE_MS = 10 * 60 * 1000;

export interface IdempotentAsk {
  client: string;
  /** The `Idempotency-Key` header's key, or the MCP tool's `idempotency_key`, checked (lib/idempotency/key.ts). */
  key: string | undefined;
  /** The payment sent, whose x402 v2 payload may carry a `payment-identifier`. */
  payment: PaymentHeader | undefined;
  tier: TierId;
  /** One document, or a batch's documents in order. */
  input: DocumentInput | readonly DocumentInput[];
  options: object;
}

export async function answerOnce(
  services: Pick<Services, "store" | "config">,
  ask: IdempotentAsk,
  run: () => Promise<ChunkResponse>,
): Promise<ChunkResponse> {
  const key = oneKey(ask.key, paymentIdentifierOf(ask.payment));
  if (key === undefined) return run();
  const records = new IdempotencyRecords(services.store, services.config.resultTtlSeconds * 1000, LEASE_MS);
  // Hashing an upload reads all of it: on a main-thread turn of its own, as the pipeline's own hashing is.
  if ([ask.input].flat().some((input) => input.kind === "upload")) await mainThreadTurn();
  const fingerprint = requestFingerprint(ask.tier, ask.input, ask.options);
  const begun = await records.begin(ask.client, key, fingerprint);
  switch (begun.kind) {
    case "replay":
      return { body: begun.response.body, headers: { ...begun.response.headers, [REPLAYED_HEADER]: "true" } };
    case "reused":
      throw new ApiError(
        "idempotency_key_reused",
        "This idempotency key was used for a different request (another tier, document or options). Use a new key for a new request.",
      );
    case "in_flight":
      throw new ApiError(
        "idempotency_key_in_flight",
        `A request with this idempotency key is still being served: retry after ${begun.retryAfterSeconds} s for its answer.`,
        { headers: { "Retry-After": String(begun.retryAfterSeconds) } },
      );
    case "started":
      break;
  }
  let response: ChunkResponse;
  try {
    response = await run();
  } catch (error) {
    await begun.abandon().catch((abandonError: unknown) => logFault("Idempotency key release failed", abandonError));
    throw error;
  }
  // The work is done and maybe paid for: a store that fails now costs the replay, never the answer.
  await begun.finish(response).catch((finishError: unknown) => logFault("Idempotency answer not kept", finishError));
  return response;
}
