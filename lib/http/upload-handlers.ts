import { CreateUploadRequestSchema, describeIssues } from "@/lib/api-schema";
import { tooManyRequests } from "@/lib/quota/client-slots";
import { ApiError } from "@/lib/ground/errors";
import { clientAddress } from "@/lib/http/client-address";
import { readJson } from "@/lib/http/json-body";
import { apiBase } from "@/lib/http/request-context";
import { json } from "@/lib/http/respond";
import type { Services } from "@/lib/services/types";

/** Request parsing for two-step uploads (lib/uploads/uploads.ts): HTTP in, one call, HTTP out. */

export async function handleCreateUpload(services: Services, request: Request): Promise<Response> {
  const parsed = CreateUploadRequestSchema.safeParse(
    await readJson(
      request,
      "POST /api/uploads takes a JSON body {filename, content_type, size, sha256?} with Content-Type: application/json.",
      services.config.bodyRead,
    ),
  );
  if (!parsed.success) throw new ApiError("invalid_request", describeIssues(parsed.error));
  const client = clientAddress(request.headers, services.config);
  return json(await services.uploads.create(parsed.data, client, apiBase(request, services.config)), {
    status: 201,
  });
}

/** `PUT /api/uploads/{id}`: the bytes, holding one of the client's places for requests in progress while they arrive. */
export function handleUploadBytes(services: Services, request: Request, id: string): Promise<Response> {
  const client = clientAddress(request.headers, services.config);
  const slots = services.clientRequests;
  return slots.holding(
    client,
    () => tooManyRequests(slots.limit),
    async () => json(await services.uploads.receive(id, request.body)),
  );
}

/** `POST /api/uploads/blob`: `@vercel/blob`'s client-upload handshake. */
export async function handleBlobHandshake(services: Services, request: Request): Promise<Response> {
  const body = await readJson(
    request,
    "POST /api/uploads/blob is `upload()`'s handleUploadUrl (@vercel/blob/client): it takes the JSON that upload() sends.",
    services.config.bodyRead,
  );
  return json(await services.uploads.blobHandshake(request, body));
}
