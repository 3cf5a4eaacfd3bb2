import { BatchOptionsSchema, BatchRequestSchema, describeIssues } from "@/lib/api-schema";
import { runBatchRequest } from "@/lib/batch/batch-request";
import { ApiError } from "@/lib/ground/errors";
import { answerOnce } from "@/lib/idempotency/answer-once";
import { idempotencyKeyHeader } from "@/lib/idempotency/key";
import { paymentHeader, perClient, refuseProbe } from "@/lib/http/chunk-handlers";
import { readJson } from "@/lib/http/json-body";
import { readUploads } from "@/lib/http/multipart";
import { apiBase } from "@/lib/http/request-context";
import { json } from "@/lib/http/respond";
import { noteTier } from "@/lib/observability/request-scope";
import type { DocumentInput } from "@/lib/pipeline";
import type { Services } from "@/lib/services/types";
import { TIERS, TIER_IDS, type TierId } from "@/lib/tiers";

/** Request parsing for `POST /api/batch/{tier}`: a multipart body of `file` parts or a JSON body, in; 202, out. */

const USAGE =
  "POST /api/batch/<tier> takes multipart/form-data with one `file` part per document (and the options as fields), or JSON {documents: [{url} | {text, filename} | {upload_id}], ...options}.";

/** Room for the JSON around the documents' text. */
const JSON_ENVELOPE_BYTES = 64 * 1024;

function batchTier(name: string): TierId {
  const tier = TIER_IDS.find((id) => id === name);
  if (!tier)
    throw new ApiError(
      "unknown_endpoint",
      `No endpoint /api/batch/${name}. Batch endpoints: ${TIER_IDS.map((id) => `/api/batch/${id}`).join(", ")}.`,
    );
  return tier;
}

export async function handleBatch(services: Services, request: Request, name: string): Promise<Response> {
  const tier = batchTier(name);
  noteTier(tier);
  await refuseProbe(services, request, [TIERS[tier]], `/batch/${tier}`, "batch");
  return perClient(services, request, async (client) => {
    // A malformed key is refused before the body is read.
    const key = idempotencyKeyHeader(request.headers);
    const { documents, options } = await readBatch(services, request);
    const payment = paymentHeader(request.headers);
    const { body, headers } = await answerOnce(
      services,
      { tier, input: documents, options, client, payment, key },
      () =>
        runBatchRequest(services, {
          tier,
          documents,
          options,
          client,
          payment,
          apiBase: apiBase(request, services.config),
          resourcePath: `/batch/${tier}`,
          resourceKind: "batch",
        }),
    );
    // A batch is always a job: accepted, it runs after this answer.
    return json(body, { status: 202, headers });
  });
}

async function readBatch(services: Services, request: Request) {
  const { limits, bodyRead } = services.config;
  const type = (request.headers.get("content-type") ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) {
    const { files, fields } = await readUploads(request, {
      maxBytes: limits.maxUploadBytes,
      maxFiles: limits.maxBatchDocuments,
      rules: bodyRead,
    });
    const options = BatchOptionsSchema.safeParse(fields);
    if (!options.success) throw new ApiError("invalid_options", describeIssues(options.error));
    if (files.length === 0)
      throw new ApiError("missing_file", "Attach each document in a multipart field named `file`.");
    return { documents: files.map((file): DocumentInput => ({ kind: "upload", ...file })), options: options.data };
  }
  const parsed = BatchRequestSchema.safeParse(
    await readJson(request, USAGE, bodyRead, limits.maxUploadBytes + JSON_ENVELOPE_BYTES),
  );
  if (!parsed.success) throw new ApiError("invalid_request", describeIssues(parsed.error));
  const { documents, ...options } = parsed.data;
  return {
    documents: documents.map((document): DocumentInput =>
      "url" in document
        ? { kind: "url", url: document.url }
        : "upload_id" in document
          ? { kind: "uploaded", uploadId: document.upload_id }
          : { kind: "upload", bytes: new TextEncoder().encode(document.text), filename: document.filename },
    ),
    options,
  };
}
