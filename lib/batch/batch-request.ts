/**
 * `POST /api/batch/{tier}` and the MCP tool `chunk_documents` without HTTP: the free check of every document
 * (lib/batch/members.ts), then one price (accepted documents x the tier's price) paid once through the payment
 * gate, or the free pages of every accepted document taken at once, then one job (lib/batch/batch-job.ts).
 */
import { createHash } from "node:crypto";
import { requireModel } from "@/lib/ai/model-client";
import type { ChunkOptions } from "@/lib/api-schema";
import { refuseContextWithoutModel, resolveOptions } from "@/lib/pipeline/chunk-result";
import { ApiError, standardErrorBody } from "@/lib/ground/errors";
import { paymentRequired } from "@/lib/payments/payment-required";
import { startJob } from "@/lib/jobs/runner";
import { logFault, paymentReleased, paymentReplayed, paymentSettled } from "@/lib/observability/events";
import { noteTier } from "@/lib/observability/request-scope";
import type { PaymentHeader } from "@/lib/payments/payment-header";
import type { ResourceKind } from "@/lib/payments/x402/v2";
import { acceptJob, type ChunkResponse, type DocumentInput } from "@/lib/pipeline";
import { rateLimitHeaders } from "@/lib/quota/free-quota";
import type { Services } from "@/lib/services/types";
import { TIERS, type TierId, isPaid } from "@/lib/tiers";
import { memberStatus } from "@/lib/jobs/job-store";
import { type CheckedMember, checkMembers } from "./members";

export interface BatchChunkRequest {
  tier: TierId;
  documents: DocumentInput[];
  /** The options of a single request but `async` (a batch always is a job). */
  options: Omit<ChunkOptions, "async">;
  /** Client address, for the free quota, unpaid references and places. */
  client: string;
  payment?: PaymentHeader;
  /** `<origin>/api`. */
  apiBase: string;
  /** The path that was called, for the 402 `resource`. */
  resourcePath: string;
  resourceKind: Extract<ResourceKind, "batch" | "batch-mcp">;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

export async function runBatchRequest(services: Services, request: BatchChunkRequest): Promise<ChunkResponse> {
  const tier = TIERS[request.tier];
  noteTier(tier.id);
  const options = resolveOptions(request.options, services.config.chunking);
  refuseContextWithoutModel(tier, options);
  if (tier.model) requireModel(services.models, tier);
  const webhook = request.options.webhook_url ? await services.webhooks.accept(request.options.webhook_url) : undefined;
  // A client with no free page left is refused before any document is fetched or opened.
  if (!isPaid(tier)) await services.quota.assertAvailable(request.client);

  const members = await checkMembers(services, request.documents);
  const accepted = members.filter((member) => member.accepted);
  if (accepted.length === 0) throw noneAccepted(members);
  const documents = members.map(memberStatus);
  const job = (payment: { amount: number; transaction: string | null }) => ({
    tier: tier.id,
    input: {
      kind: "batch" as const,
      documents: members.map(({ accepted: _bytes, ...member }) => member),
      uploads: accepted.map((member) => member.accepted!.doc.bytes),
    },
    options,
    apiBase: request.apiBase,
    payment: { ...payment, asset: "USDC" as const, network: services.config.network },
    webhook,
  });
  const answer = (body: Record<string, unknown>, amount: number) => ({
    ...body,
    documents,
    accepted: accepted.length,
    rejected: members.length - accepted.length,
    amount,
  });

  if (!isPaid(tier)) {
    return acceptJob(services, request.client, async (slot) => {
      // Every accepted document's pages at once: all of them, or a 429 and none.
      const pages = accepted.reduce((sum, member) => sum + member.pages, 0);
      const reservation = await services.quota.reserve(request.client, pages);
      try {
        const body = await startJob(services, {
          ...job({ amount: 0, transaction: null }),
          client: request.client,
          freePages: reservation,
          slot,
        });
        return { body: answer({ ...body }, 0), headers: rateLimitHeaders(reservation) };
      } catch (error) {
        await reservation.refund().catch((refundError: unknown) => logFault("Quota refund failed", refundError));
        throw error;
      }
    });
  }

  const price = accepted.length * tier.priceBaseUnits;
  // What the payment binds to: the accepted documents, in order, by their single-request bindings.
  const document = `batch:${sha256(accepted.map((member) => member.accepted!.binding).join("\n"))}`;
  const requestKey = sha256(JSON.stringify(["batch", tier.id, document, options]));
  const admission = await services.payments.admit({
    client: request.client,
    tier,
    priceBaseUnits: price,
    document,
    request: requestKey,
    payment: request.payment,
    resource: `${request.apiBase}${request.resourcePath}`,
    resourceKind: request.resourceKind,
  });
  if (admission.kind === "refused") throw paymentRequired(admission);
  if (admission.kind === "replay") {
    paymentReplayed({ tier: tier.id });
    return admission.response;
  }
  const { claim } = admission;
  try {
    // Bought when accepted, as any job: the client's place first, then the money moves.
    return await acceptJob(services, request.client, async (slot) => {
      const settlement = await admission.settle();
      if (settlement.kind === "refused") throw paymentRequired(settlement);
      const settled = settlement.receipt;
      paymentSettled({
        tier: tier.id,
        payer: settled.payer,
        header: request.payment?.name,
        amount: settled.amount,
        transaction: settled.transaction,
      });
      const body = await startJob(services, {
        ...job({ amount: Number(settled.amount), transaction: settled.transaction }),
        paymentRequest: requestKey,
        slot,
      });
      const response = { body: answer({ ...body }, price), headers: settled.headers };
      await claim.complete(response);
      return response;
    });
  } catch (error) {
    await claim.release().then(
      () => paymentReleased({ tier: tier.id, reason: error instanceof ApiError ? error.code : "internal_error" }),
      (releaseError: unknown) => logFault("Payment release failed", releaseError),
    );
    throw error;
  }
}

/** No document passed the free check: a 400 listing each one's error. */
function noneAccepted(members: CheckedMember[]): ApiError {
  const message = `No document of the batch was accepted: ${members.map((m) => `#${m.index} ${m.error?.code}`).join(", ")}. Nothing was charged.`;
  return new ApiError("invalid_request", message, {
    body: { ...standardErrorBody("invalid_request", message), documents: members.map(memberStatus) },
  });
}
