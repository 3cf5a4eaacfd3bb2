/**
 * A batch's free check, before any payment or page is taken: each document read (its upload, its two-step
 * upload, or its URL fetched under the URL rules), its type detected and its pages counted cheaply, as a single
 * request checks its document before payment. A document refused here is `rejected` with the error a single
 * request would have answered, and is not charged; the others are accepted and priced.
 */
import { sha256Hex } from "@/lib/ground/sha256";
import { type Loaded, loaded } from "@/lib/pipeline/chunk-result";
import { ApiError } from "@/lib/ground/errors";
import { detect } from "@/lib/extract/detect";
import { estimatePages } from "@/lib/extract/page-count";
import { mainThreadTurn } from "@/lib/ground/main-thread-turns";
import type { DocumentInput } from "@/lib/pipeline";
import type { Services } from "@/lib/services/types";
import { errorBody } from "./batch-job";
import type { BatchMember } from "@/lib/jobs/job-store";

export interface CheckedMember extends BatchMember {
  /** Accepted: its bytes, and what a payment binds it by (the bytes' hash, or the URL as a single request does). */
  accepted?: { doc: Loaded; binding: string };
}

/** Documents read (URLs fetched) at once during the check. */
const READ_CONCURRENTLY = 4;

const tooMany = (max: number, given: number) =>
  new ApiError(
    "invalid_request",
    `A batch takes at most ${max} documents (BATCH_MAX_DOCUMENTS); this one has ${given}. Split it into several batches.`,
  );

/** Every document of the batch checked in order; a fault (not the document's) is thrown, not listed. */
export async function checkMembers(
  services: Pick<Services, "config" | "fetchUrl" | "uploads">,
  inputs: DocumentInput[],
): Promise<CheckedMember[]> {
  const { limits } = services.config;
  if (inputs.length > limits.maxBatchDocuments) throw tooMany(limits.maxBatchDocuments, inputs.length);
  if (inputs.length === 0) throw new ApiError("invalid_request", "The batch names no document.");
  const members: CheckedMember[] = [];
  let totalBytes = 0;
  let accepted = 0;
  // Read (fetched, for URLs) a few at a time: 50 URLs one by one could take 50 fetch timeouts. The rest of the
  // check runs in request order, so which document goes over the byte total does not depend on timing; at most
  // one window's documents are held beyond the total.
  for (let start = 0; start < inputs.length; start += READ_CONCURRENTLY) {
    const window = inputs.slice(start, start + READ_CONCURRENTLY);
    const reads = await Promise.allSettled(window.map((input) => read(services, input)));
    for (const [offset, input] of window.entries()) {
      const index = start + offset;
      const name = input.kind === "url" ? input.url : input.kind === "upload" ? input.filename : input.uploadId;
      const outcome = reads[offset]!;
      try {
        if (outcome.status === "rejected") throw outcome.reason;
        const doc = outcome.value;
        // The same byte limit as a single request's upload, over the whole batch.
        if (totalBytes + doc.bytes.length > limits.maxUploadBytes)
          throw new ApiError(
            "file_too_large",
            `The batch's documents up to this one are over the limit of ${limits.maxUploadBytes} bytes in all (MAX_UPLOAD_BYTES): send the rest in another batch.`,
          );
        await mainThreadTurn();
        doc.detected = await detect(doc.bytes, doc, limits.maxCharsPerRequest);
        const pages = await estimatePages(doc.bytes, doc.detected, {
          maxPages: limits.maxPagesPerRequest,
          timeoutMs: limits.extractTimeoutMs,
        });
        totalBytes += doc.bytes.length;
        members.push({
          index,
          filename: doc.filename,
          ...(doc.contentType ? { contentType: doc.contentType } : {}),
          status: "pending",
          pages,
          input: accepted++,
          accepted: { doc, binding: input.kind === "url" ? `url:${input.url}` : `sha256:${sha256Hex(doc.bytes)}` },
        });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        members.push({
          index,
          filename: (name ?? "document").slice(0, 255),
          status: "rejected",
          pages: 0,
          error: errorBody(error),
        });
      }
    }
  }
  return members;
}

async function read(services: Pick<Services, "fetchUrl" | "uploads">, input: DocumentInput): Promise<Loaded> {
  switch (input.kind) {
    case "upload":
      return loaded(input);
    case "uploaded":
      return loaded(await services.uploads.read(input.uploadId));
    case "url":
      return loaded(await services.fetchUrl(input.url));
  }
}
