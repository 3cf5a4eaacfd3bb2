import type { IncomingMessage, ServerResponse } from "node:http";
import { standardErrorBody } from "@/lib/ground/errors";
import { CORS_HEADERS } from "@/lib/http/respond";
import { megabytes } from "@/lib/ground/wording";

/**
 * A host's function body limit, enforced by the embedded server in test
 * mode (`FUNCTION_BODY_LIMIT_BYTES`): Vercel refuses a request body over
 * 4.5 MB with 413 before the function runs, so a client (the web page, an
 * agent) must be shown to take the two-step upload path under it. A body
 * whose Content-Length says too much is refused before anything reads it; a
 * chunked one as soon as its bytes pass the limit, the connection closed.
 *
 * `PUT /api/uploads/{id}` is exempt: on the embedded server it plays the
 * part Vercel Blob's storage plays on Vercel, which takes what a function
 * could not. Its own limit is the upload's declared size (at most
 * MAX_UPLOAD_BYTES).
 */

const EXEMPT = /^\/api\/uploads\/upl_[0-9a-f]+\/?(?:\?.*)?$/;

const isExempt = (request: IncomingMessage) => request.method === "PUT" && EXEMPT.test(request.url ?? "");

function refuse(response: ServerResponse, limit: number): void {
  if (response.headersSent) return;
  const body = JSON.stringify(
    standardErrorBody(
      "body_too_large",
      `The request body is over this host's function limit of ${limit} bytes (${megabytes(limit)}): send larger files through POST /api/uploads, then chunk by upload_id.`,
    ),
  );
  response.writeHead(413, {
    ...CORS_HEADERS,
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
  });
  response.end(body);
}

/**
 * Checks `request` against `limit`: true when it was refused (and answered), so the caller hands it to no
 * handler. A chunked body is watched as it arrives and cut off, answered 413, once over the limit.
 */
export function refusedOverLimit(
  request: IncomingMessage,
  response: ServerResponse,
  limit: number | undefined,
): boolean {
  if (limit === undefined || isExempt(request)) return false;
  const declared = request.headers["content-length"];
  if (declared !== undefined) {
    if (Number(declared) <= limit) return false;
    refuse(response, limit);
    // Read and dropped, never kept, so a client still sending reads the answer instead of a broken pipe
    // (server.requestTimeout bounds a body that never ends).
    request.resume();
    return true;
  }
  if (request.headers["transfer-encoding"] === undefined) return false;
  // The HTTP parser pushes each piece of the body into the request: counted there, before any reader sees it.
  let seen = 0;
  const push = request.push.bind(request);
  request.push = (chunk: unknown, encoding?: BufferEncoding) => {
    // The end passes: the handler's read of a body it was refused finishes, and it answers into a closed response.
    if (chunk === null || chunk === undefined) return push(chunk, encoding);
    seen += (chunk as Buffer).length;
    if (seen <= limit) return push(chunk, encoding);
    // Past the limit: answered once, and the rest dropped unread by any handler.
    refuse(response, limit);
    return true;
  };
  return false;
}
