import { get } from "@vercel/blob";
import { type HandleUploadBody, handleUpload } from "@vercel/blob/client";

/**
 * Vercel Blob, behind the two things the service asks of it: answering the
 * client-upload handshake of `upload()` (`handleUpload` signs a client token
 * locally with the read-write token: no network), and opening a blob to
 * read it. An interface so the core is testable without Vercel.
 */
interface UploadGrant {
  /** The only content type the token allows. */
  contentType: string;
  maxBytes: number;
  /** Epoch ms: the token's end, at most the upload's own. */
  validUntil: number;
  /** Carried inside the token; Blob echoes it to an upload-completed callback. */
  uploadId: string;
}

export interface BlobStorage {
  /**
   * The answer to one handshake request of `upload()`; `grant` decides from the pathname and the client's
   * payload (the upload id) what the token allows, and throws to refuse.
   */
  answerHandshake: (
    request: Request,
    body: unknown,
    grant: (pathname: string, clientPayload: string | null) => Promise<UploadGrant>,
  ) => Promise<unknown>;
  /** The blob's bytes as a stream, or null when nothing was uploaded there. */
  open: (pathname: string) => Promise<{ stream: ReadableStream<Uint8Array>; size: number } | null>;
}

export function vercelBlobStorage(options: { token: string; access: "private" | "public" }): BlobStorage {
  return {
    answerHandshake: (request, body, grant) =>
      handleUpload({
        token: options.token,
        request,
        body: body as HandleUploadBody,
        onBeforeGenerateToken: async (pathname, clientPayload) => {
          const allowed = await grant(pathname, clientPayload);
          return {
            allowedContentTypes: [allowed.contentType],
            maximumSizeInBytes: allowed.maxBytes,
            validUntil: allowed.validUntil,
            addRandomSuffix: false,
            allowOverwrite: false,
            tokenPayload: allowed.uploadId,
          };
        },
        // Nothing to record: a chunking request opens the blob by its pathname, which the upload's record holds.
        onUploadCompleted: async () => undefined,
      }),
    open: async (pathname) => {
      const found = await get(pathname, { access: options.access, token: options.token, useCache: false });
      if (!found || found.statusCode !== 200) return null;
      return { stream: found.stream, size: found.blob.size };
    },
  };
}
