import { newCapabilityId } from "@/lib/ground/capability-id";
import { z } from "zod";
import { ApiError } from "@/lib/ground/errors";
import { OUTPUT_FORMATS } from "@/lib/formats";
import { TOKENIZER_NAMES } from "@/lib/tokens/names";
import { getBytes, setBytes } from "@/lib/store/byte-values";
import type { Store } from "@/lib/store/types";
import { BatchDocumentStatusSchema, JOB_ID_PATTERN } from "@/lib/api-schema";
import { TIER_IDS, type TierId } from "@/lib/tiers";
import { JobWebhookSchema } from "@/lib/webhooks/job-webhook";

/**
 * Async jobs in the store, so any instance can poll, continue or finish a
 * job any other created. A job is one record; its uploaded document is kept
 * beside it in parts (lib/store/byte-values.ts); both expire with the job.
 *
 * The record carries its lease: the worker that holds it (`lease_owner`)
 * until `lease_until`, renewed while it works, and its cursor: the slice it
 * is at (lib/jobs/slices.ts). What its slices made (OCR'd pages, model
 * answers) is kept beside it (lib/jobs/job-memo.ts). Every write is a
 * compare-and-set against the record as the writer last saw it, so a worker
 * whose lease lapsed and was taken over can no longer write anything: its
 * next write fails and it stops.
 */

export const newJobId = (tier: TierId) => newCapabilityId(tier);

const JobInput = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("upload"), filename: z.string().optional(), contentType: z.string().optional() }),
  z.object({ kind: z.literal("url"), url: z.string() }),
  // A batch (lib/batch/): its documents are in `batch`, their bytes one key each beside the record.
  z.object({ kind: z.literal("batch") }),
]);

/** One document of a batch's job: its wire view (where it stands, why it failed) and where it is kept. */
const BatchMember = BatchDocumentStatusSchema.extend({
  contentType: z.string().optional(),
  /** Completed: the id its own result is stored under. */
  result_id: z.string().optional(),
  /** Accepted documents are numbered 0.. in the order their bytes are stored. */
  input: z.number().int().min(0).optional(),
});
export type BatchMember = z.infer<typeof BatchMember>;

/** The wire view of a batch's document: the answer's, the job status's and the combined result's `documents` entry. */
export const memberStatus = ({ index, filename, status, pages, error }: BatchMember) => ({
  index,
  filename,
  status,
  pages,
  ...(error ? { error } : {}),
});

/** A batch's document the job is done with: chunked, or failed in it. */
export const isMemberDone = ({ status }: BatchMember) => status === "completed" || status === "failed";

export const JobRecord = z.object({
  job_id: z.string(),
  status: z.enum(["processing", "completed", "failed"]),
  progress: z.number().int().min(0).max(100),
  message: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  result_id: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** Workers the job has had; a job whose workers keep dying fails after the configured number. */
  attempts: z.number().int().min(1),
  /**
   * The slice the job waits for or runs: moved on (by the slice that ends, or a poll taking the job over) only
   * after that slice's output is stored. A delivery of another cursor is stale and does nothing.
   */
  cursor: z.number().int().min(0).default(0),
  /** The worker running the current slice; "" while the slice waits for its delivery. */
  lease_owner: z.string(),
  /** Epoch milliseconds. */
  lease_until: z.number(),
  /** What to do: enough for any instance to run it. */
  work: z.object({
    tier: z.enum(TIER_IDS),
    input: JobInput,
    options: z.object({
      maxTokens: z.number(),
      overlapTokens: z.number(),
      outputFormat: z.enum(OUTPUT_FORMATS),
      // Absent in jobs stored before the option existed: notes were not read then, so the default applies.
      includeNotes: z.boolean().default(true),
      tokenizer: z.enum(TOKENIZER_NAMES).optional(),
      ocrLanguages: z.array(z.string()).optional(),
      context: z.literal(true).optional(),
    }),
    api_base: z.string(),
    /** Free tier: amount 0, no transaction. */
    payment: z.object({
      amount: z.number(),
      asset: z.literal("USDC"),
      network: z.string(),
      transaction: z.string().nullable(),
    }),
    /** Paid tiers: the ledger's request key, to release the payment when the job fails. */
    payment_request: z.string().optional(),
    /** Free tier: the client whose daily pages the job takes. */
    client: z.string().optional(),
  }),
  /**
   * Free tier: the pages taken from the client's day (`taken_at`, epoch ms) when the job was accepted, settled
   * to the exact count once extracted, given back if the job fails on the service's side.
   */
  free_pages: z.object({ pages: z.number().int().nonnegative(), taken_at: z.number() }).optional(),
  /** The client's place among its active jobs (lib/quota/client-slots.ts), renewed with the lease, freed when the job ends. */
  client_slot: z.object({ key: z.string(), token: z.string() }).optional(),
  /** Asked with `webhook_url`: where the job's end is POSTed, its signing secret, how the tries went (lib/webhooks/). */
  webhook: JobWebhookSchema.optional(),
  /** A batch's documents, every one the request named (rejected ones too), in request order. */
  batch: z.object({ documents: z.array(BatchMember) }).optional(),
});
export type JobRecord = z.infer<typeof JobRecord>;

const recordKey = (id: string) => `job:${id}`;
const inputKey = (id: string) => `jobinput:${id}`;
const memberKey = (id: string, input: number) => `jobinput:${id}:${input}`;

export const jobExpired = (id: string) =>
  new ApiError(
    "expired_or_unknown",
    `No job ${id} exists: jobs and their results are kept for one hour after they are created. Submit the document again.`,
  );

/** A record as read, with the exact stored text the next compare-and-set must match. */
export interface JobVersion {
  record: JobRecord;
  raw: string;
}

export class JobStore {
  constructor(private readonly store: Store) {}

  /** Writes the input first (a batch's: each accepted document's): a record never exists without its documents. */
  async create(record: JobRecord, upload?: Uint8Array, members: Uint8Array[] = []): Promise<JobVersion> {
    const ttlMs = remainingMs(record);
    if (upload) await setBytes(this.store, inputKey(record.job_id), upload, { ttlMs });
    for (const [input, bytes] of members.entries())
      await setBytes(this.store, memberKey(record.job_id, input), bytes, { ttlMs });
    const raw = JSON.stringify(record);
    if (!(await this.store.setIfAbsent(recordKey(record.job_id), raw, { ttlMs })))
      throw new Error(`job id ${record.job_id} is taken`);
    return { record, raw };
  }

  async get(id: string): Promise<JobVersion | null> {
    if (!JOB_ID_PATTERN.test(id)) return null;
    const raw = await this.store.get(recordKey(id));
    return raw === null ? null : { record: JobRecord.parse(JSON.parse(raw)), raw };
  }

  /** Replaces `current` with `next`; null when someone else wrote first (or the job expired). */
  async replace(current: JobVersion, next: JobRecord): Promise<JobVersion | null> {
    const ttlMs = remainingMs(next);
    if (ttlMs <= 0) return null;
    const raw = JSON.stringify(next);
    return (await this.store.setIfEquals(recordKey(next.job_id), current.raw, raw, { ttlMs }))
      ? { record: next, raw }
      : null;
  }

  /** The job's document; a batch's `input`-th accepted document. */
  async upload(id: string, input?: number): Promise<Uint8Array | null> {
    return getBytes(this.store, input === undefined ? inputKey(id) : memberKey(id, input));
  }
}

/** Time left until the job expires. */
export const remainingMs = (record: Pick<JobRecord, "expires_at">, now = Date.now()) =>
  Date.parse(record.expires_at) - now;
