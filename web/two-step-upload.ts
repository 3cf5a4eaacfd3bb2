/**
 * Files too large for one request body on every host (Vercel refuses bodies
 * over 4.5 MB before the service runs) go in two steps: `POST /api/uploads`
 * declares the file and answers where its bytes go (this service's `PUT`, or
 * Vercel Blob's client upload), then the chunking request names the
 * `upload_id`. A file is uploaded once per page visit: a retry as a job, or
 * the paid request repeated with its payment, reuses its id.
 */
import type { ErrorBody, UploadCreated } from "@/lib/api-schema";

/** Files over this go in two steps: under Vercel's 4.5 MB with room for the multipart framing. */
export const TWO_STEP_UPLOAD_BYTES = 4 * 1024 * 1024;

export type UploadProgress = (sent: number, total: number) => void;

export type UploadOutcome = { kind: "ok"; uploadId: string } | { kind: "error"; status: number; body: ErrorBody };

/** A refused step, as the API's error body (a platform's own 413 page has none). */
async function errorOf(response: Response): Promise<UploadOutcome> {
  const body = (await response.json().catch(() => null)) as ErrorBody | null;
  return {
    kind: "error",
    status: response.status,
    body: body ?? {
      success: false,
      error: response.statusText,
      code: "unreadable_answer",
      message: `The upload was refused with HTTP ${response.status}.`,
    },
  };
}

/** `PUT` with progress: fetch reports none for request bodies, XMLHttpRequest does. */
function putWithProgress(url: string, file: File, onProgress: UploadProgress): Promise<Response> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    xhr.onload = () =>
      resolve(
        new Response(xhr.responseText, {
          status: xhr.status,
          headers: { "content-type": xhr.getResponseHeader("content-type") ?? "" },
        }),
      );
    xhr.onerror = () => reject(new Error("the upload could not reach the service"));
    xhr.send(file);
  });
}

async function uploadFile(file: File, onProgress: UploadProgress): Promise<UploadOutcome> {
  const contentType = file.type || "application/octet-stream";
  const created = await fetch("/api/uploads", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ filename: file.name || "document", content_type: contentType, size: file.size }),
  });
  if (!created.ok) return errorOf(created);
  const { upload_id: uploadId, target } = (await created.json()) as UploadCreated;
  onProgress(0, file.size);
  if (target.kind === "put") {
    const sent = await putWithProgress(new URL(target.url).pathname, file, onProgress);
    return sent.ok ? { kind: "ok", uploadId } : errorOf(sent);
  }
  // Loaded only on hosts that answer with Blob: the embedded server's page never needs it.
  const { upload } = await import("@vercel/blob/client");
  await upload(target.pathname, file, {
    access: target.access,
    handleUploadUrl: new URL(target.handle_upload_url).pathname,
    clientPayload: uploadId,
    contentType,
    onUploadProgress: ({ loaded, total }) => onProgress(loaded, total),
  });
  return { kind: "ok", uploadId };
}

const uploaded = new WeakMap<File, Promise<UploadOutcome>>();

/** The file's upload id, uploading it the first time it is asked for; a failed upload is tried afresh next time. */
export function uploadOnce(file: File, onProgress: UploadProgress = () => undefined): Promise<UploadOutcome> {
  let pending = uploaded.get(file);
  if (!pending) {
    pending = uploadFile(file, onProgress).then((outcome) => {
      if (outcome.kind === "error") uploaded.delete(file);
      return outcome;
    });
    pending.catch(() => uploaded.delete(file));
    uploaded.set(file, pending);
  }
  return pending;
}
