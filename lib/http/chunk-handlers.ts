import { ChunkOptionsSchema, UrlChunkRequestSchema, describeIssues } from "@/lib/api-schema";
import { tooManyRequests } from "@/lib/quota/client-slots";
import { ApiError } from "@/lib/ground/errors";
import { clientAddress } from "@/lib/http/client-address";
import { answerOnce } from "@/lib/idempotency/answer-once";
import { idempotencyKeyHeader } from "@/lib/idempotency/key";
import { readJson } from "@/lib/http/json-body";
import { type Upload, readUpload } from "@/lib/http/multipart";
import { apiBase } from "@/lib/http/request-context";
import { json } from "@/lib/http/respond";
import { noteTier } from "@/lib/observability/request-scope";
import type { PaymentHeader } from "@/lib/payments/payment-header";
import { isBodilessProbe, probeOffer } from "@/lib/payments/probe-offer";
import { type DocumentInput, runChunkRequest } from "@/lib/pipeline";
import type { Services } from "@/lib/services/types";
import { TIERS, TIER_IDS, type Tier, type TierId, isPaid } from "@/lib/tiers";

/** Request parsing for the chunking routes: HTTP in, one `runChunkRequest` call, HTTP out. */

/** x402 v2 clients pay in PAYMENT-SIGNATURE; the spec's signature and x402 v1 payloads come in X-PAYMENT. */
export function paymentHeader(headers: Headers): PaymentHeader | undefined {
  const v2 = headers.get("payment-signature");
  if (v2 !== null) return { name: "PAYMENT-SIGNATURE", value: v2 };
  const v1 = headers.get("x-payment");
  return v1 === null ? undefined : { name: "X-PAYMENT", value: v1 };
}

const ENDPOINT_TIERS = new Map<string, TierId>(
  TIER_IDS.flatMap((id) => TIERS[id].endpoints.map((path) => [path.replace("/chunk/", ""), id] as const)),
);

function tierForEndpoint(endpoint: string): TierId {
  const tier = ENDPOINT_TIERS.get(endpoint);
  if (!tier)
    throw new ApiError(
      "unknown_endpoint",
      `No endpoint /api/chunk/${endpoint}. Tier endpoints: ${[...ENDPOINT_TIERS.keys()].map((e) => `/api/chunk/${e}`).join(", ")}.`,
    );
  return tier;
}

/**
 * Runs `work` holding one of the client's places for requests in progress, taken before the body is read: a
 * refusal (429 `too_many_requests`) holds no upload and touches neither payment nor quota, and a client trickling
 * bodies holds at most its own places. The instance's place (503 `busy`) comes later, right before the work
 * (lib/pipeline/index.ts), once the body is read and the payment verified.
 */
export function perClient(services: Services, request: Request, work: (client: string) => Promise<Response>) {
  const client = clientAddress(request.headers, services.config);
  const slots = services.clientRequests;
  return slots.holding(
    client,
    () => tooManyRequests(slots.limit),
    () => work(client),
  );
}

/** A discovery crawler's bodiless, unpaid POST to a paid route: its 402 offer, before any body rule refuses it. */
export async function refuseProbe(
  services: Services,
  request: Request,
  tiers: Tier[],
  resourcePath: string,
  kind: "form-data" | "json" | "batch",
) {
  const [first, ...others] = tiers.filter(isPaid);
  if (!first || paymentHeader(request.headers) || !isBodilessProbe(request.headers)) return;
  const resource = `${apiBase(request, services.config)}${resourcePath}`;
  throw probeOffer(services.config, [first, ...others], resource, kind, await services.payments.feePayer());
}

export async function handleUpload(services: Services, request: Request, endpoint: string): Promise<Response> {
  const tier = tierForEndpoint(endpoint);
  noteTier(tier);
  await refuseProbe(services, request, [TIERS[tier]], `/chunk/${endpoint}`, "form-data");
  return perClient(services, request, (client) => chunkUpload(services, request, endpoint, tier, client));
}

async function chunkUpload(
  services: Services,
  request: Request,
  endpoint: string,
  tier: TierId,
  client: string,
): Promise<Response> {
  // A malformed key is refused before the body is read.
  const key = idempotencyKeyHeader(request.headers);
  const upload = await readUpload(request, {
    maxBytes: services.config.limits.maxUploadBytes,
    rules: services.config.bodyRead,
  });
  const options = ChunkOptionsSchema.safeParse(upload.fields);
  if (!options.success) throw new ApiError("invalid_options", describeIssues(options.error));
  const ask = {
    tier,
    input: multipartInput(upload),
    options: options.data,
    client,
    payment: paymentHeader(request.headers),
  };
  const { body, headers } = await answerOnce(services, { ...ask, key }, () =>
    runChunkRequest(services, {
      ...ask,
      apiBase: apiBase(request, services.config),
      resourcePath: `/chunk/${endpoint}`,
    }),
  );
  return json(body, { headers });
}

/** The document of a multipart request: its `file`, or the `upload_id` it names; exactly one. */
function multipartInput({ file, fields }: Upload): DocumentInput {
  const uploadId = fields.upload_id;
  if (file && uploadId !== undefined)
    throw new ApiError("invalid_request", "Give exactly one of `file` and `upload_id`, not both.");
  if (file) return { kind: "upload", ...file };
  if (uploadId !== undefined) return { kind: "uploaded", uploadId };
  throw new ApiError(
    "missing_file",
    "Attach the document in a multipart field named `file`, or name a two-step upload in `upload_id` (POST /api/uploads).",
  );
}

export async function handleUrl(services: Services, request: Request): Promise<Response> {
  await refuseProbe(
    services,
    request,
    TIER_IDS.map((id) => TIERS[id]),
    "/chunk",
    "json",
  );
  return perClient(services, request, (client) => chunkUrl(services, request, client));
}

async function chunkUrl(services: Services, request: Request, client: string): Promise<Response> {
  const key = idempotencyKeyHeader(request.headers);
  const parsed = UrlChunkRequestSchema.safeParse(
    await readJson(
      request,
      "POST /api/chunk takes a JSON body {url or upload_id, tier, output_format} with Content-Type: application/json; upload files to /api/chunk/<tier> instead.",
      services.config.bodyRead,
    ),
  );
  if (!parsed.success) throw new ApiError("invalid_request", describeIssues(parsed.error));
  const { url, upload_id: uploadId, tier, ...options } = parsed.data;
  const ask = {
    tier,
    // The schema lets exactly one of them through.
    input: uploadId === undefined ? { kind: "url" as const, url: url! } : { kind: "uploaded" as const, uploadId },
    options,
    client,
    payment: paymentHeader(request.headers),
  };
  const { body, headers } = await answerOnce(services, { ...ask, key }, () =>
    runChunkRequest(services, {
      ...ask,
      apiBase: apiBase(request, services.config),
      resourcePath: "/chunk",
      resourceKind: "json",
    }),
  );
  return json(body, { headers });
}
