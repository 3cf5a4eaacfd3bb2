import type { ChunkOptions, DocumentSource, TierId } from "@/web/api-client";

/**
 * Signatures of payments made for a request that then failed: kept in
 * sessionStorage under the request they paid for (tier, document, options),
 * so "Retry without paying again" survives a reload. The service releases a
 * payment when the paid work fails, and one payment pays for exactly one
 * request, hence the key.
 */
const PREFIX = "chunkwise.paid.";

export interface PaidSignature {
  signature: string;
  /** Epoch milliseconds of the payment. */
  paidAt: number;
}

async function sha256Hex(data: ArrayBuffer): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The request's identity: a file by its bytes (as the service binds the payment), a URL by itself. */
export async function paidRequestKey(tier: TierId, source: DocumentSource, options: ChunkOptions): Promise<string> {
  let document: string;
  if (source.kind === "url") document = `url:${source.url}`;
  else if (globalThis.crypto?.subtle) document = `sha256:${await sha256Hex(await source.file.arrayBuffer())}`;
  else document = `file:${source.file.name}:${source.file.size}:${source.file.lastModified}`;
  const settings = [options.max_tokens ?? "", options.overlap_tokens ?? "", options.output_format ?? ""].join(",");
  return `${PREFIX}${tier}:${document}:${settings}`;
}

export function recallPaidSignature(key: string): PaidSignature | null {
  try {
    const value = sessionStorage.getItem(key);
    if (!value) return null;
    const parsed = JSON.parse(value) as Partial<PaidSignature>;
    return typeof parsed.signature === "string" && typeof parsed.paidAt === "number"
      ? { signature: parsed.signature, paidAt: parsed.paidAt }
      : null;
  } catch {
    return null;
  }
}

export function rememberPaidSignature(key: string, signature: string): void {
  try {
    sessionStorage.setItem(key, JSON.stringify({ signature, paidAt: Date.now() } satisfies PaidSignature));
  } catch {
    // Storage disabled: the retry button still works until the page is left.
  }
}

export function forgetPaidSignature(key: string): void {
  try {
    sessionStorage.removeItem(key);
  } catch {
    // Nothing stored.
  }
}

/*
 * An ai-pro payment is redeemed for a job that runs on after the page moved
 * to the job's own URL. If the job fails the service releases the payment,
 * so its signature stays remembered under the request until the job's page
 * sees how it ended: completed forgets it; failed keeps it, and choosing the
 * same document and tier again offers "Retry without paying again".
 */
const JOB_PREFIX = "chunkwise.job-payment.";

export function linkJobToPayment(jobId: string, requestKey: string): void {
  try {
    sessionStorage.setItem(JOB_PREFIX + jobId, requestKey);
  } catch {
    // Storage disabled: nothing to link.
  }
}

/** The job failed: the payment kept for a retry, if this tab paid for it. */
export function keptJobPayment(jobId: string): PaidSignature | null {
  try {
    const requestKey = sessionStorage.getItem(JOB_PREFIX + jobId);
    return requestKey ? recallPaidSignature(requestKey) : null;
  } catch {
    return null;
  }
}

/** The job completed: its payment is spent, so nothing is offered for a retry. */
export function forgetJobPayment(jobId: string): void {
  try {
    const requestKey = sessionStorage.getItem(JOB_PREFIX + jobId);
    if (!requestKey) return;
    sessionStorage.removeItem(JOB_PREFIX + jobId);
    forgetPaidSignature(requestKey);
  } catch {
    // Storage disabled: nothing was remembered.
  }
}
