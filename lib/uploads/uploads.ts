import { newCapabilityId } from "@/lib/ground/capability-id";
import { sha256Hex } from "@/lib/ground/sha256";
import {
  type CreateUploadRequest,
  UPLOAD_ID_PREFIX,
  type UploadCreated,
  type UploadStored,
} from "@/lib/api-schema/uploads";
import type { Config } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";
import { detect } from "@/lib/extract/detect";
import { timedChunks } from "@/lib/streams/body-deadline";
import { TokenBucket } from "@/lib/store/token-bucket";
import type { Store } from "@/lib/store/types";
import { megabytes } from "@/lib/ground/wording";
import type { BlobStorage } from "./blob-storage";
import { type UploadRecord, UploadStore, type UploadVersion } from "./upload-store";

/**
 * Two-step uploads, for documents larger than a host lets a function's
 * request body be (Vercel: 4.5 MB). `POST /api/uploads` declares the
 * document and answers where its bytes go: to Vercel Blob by client upload
 * when Blob is configured, else to this service (`PUT /api/uploads/{id}`,
 * stored like a job's document). A chunking request then names the
 * `upload_id`; its bytes are read here and take the path an upload takes,
 * so the payment binds to their SHA-256 as it would to a file's.
 */

/** The document a chunking request names by `upload_id`. */
export interface UploadedDocument {
  bytes: Uint8Array;
  filename: string;
  contentType: string;
}

const uploadUnknown = (id: string) =>
  new ApiError(
    "expired_or_unknown",
    `No upload ${id} exists: uploads are kept as long as results, then forgotten. Start a new one with POST /api/uploads.`,
  );

const mismatch = (why: string) => new ApiError("upload_mismatch", why);

/** A Blob pathname under the upload's id: the client's name kept readable, anything odd in it replaced. */
const blobPathname = (id: string, filename: string) =>
  `uploads/${id}/${filename.replace(/[^\w.-]+/g, "_").slice(-120) || "document"}`;

export class Uploads {
  readonly #records: UploadStore;
  readonly #bucket: TokenBucket;

  constructor(
    private readonly config: Config,
    store: Store,
    private readonly blob: BlobStorage | undefined,
  ) {
    this.#records = new UploadStore(store);
    this.#bucket = new TokenBucket(store, "uploadrate:", config.uploads.perClient);
  }

  /** Declares an upload: refused when too large, or when the client started too many lately. */
  async create(request: CreateUploadRequest, client: string, apiBase: string): Promise<UploadCreated> {
    const { maxUploadBytes } = this.config.limits;
    if (request.size > maxUploadBytes)
      throw new ApiError(
        "file_too_large",
        `The document is ${request.size} bytes, over the limit of ${maxUploadBytes} bytes (${megabytes(maxUploadBytes)}).`,
      );
    const taken = await this.#bucket.take(client);
    if (!taken.ok) {
      const seconds = Math.max(1, Math.ceil(taken.retryAfterMs / 1000));
      throw new ApiError("too_many_uploads", `Too many uploads started: retry in ${seconds} s.`, {
        headers: { "Retry-After": String(seconds) },
      });
    }
    const id = newCapabilityId(UPLOAD_ID_PREFIX);
    const expiresAt = new Date(Date.now() + this.config.resultTtlSeconds * 1000).toISOString();
    const blob = this.blob && this.config.uploads.target.kind === "blob" ? this.config.uploads.target : undefined;
    const record: UploadRecord = {
      upload_id: id,
      filename: request.filename,
      content_type: request.content_type,
      size: request.size,
      ...(request.sha256 ? { declared_sha256: request.sha256 } : {}),
      target: blob ? "blob" : "put",
      ...(blob ? { pathname: blobPathname(id, request.filename) } : {}),
      expires_at: expiresAt,
    };
    await this.#records.create(record);
    return {
      upload_id: id,
      expires_at: expiresAt,
      max_bytes: maxUploadBytes,
      target:
        blob && record.pathname
          ? {
              kind: "blob",
              pathname: record.pathname,
              handle_upload_url: `${apiBase}/uploads/blob`,
              access: blob.access,
            }
          : { kind: "put", method: "PUT", url: `${apiBase}/uploads/${id}` },
    };
  }

  /**
   * The bytes of a `put` upload, read as they arrive within the body deadline, capped at the declared size,
   * checked against the declared SHA-256 and read for their type, then stored. The same bytes again answer
   * the same; other bytes are refused.
   */
  async receive(id: string, body: ReadableStream<Uint8Array> | null): Promise<UploadStored> {
    const version = await this.#records.get(id);
    if (!version || version.record.target !== "put") throw uploadUnknown(id);
    const { record } = version;
    const bytes = await this.#readDeclared(record, body);
    const sha256 = sha256Hex(bytes);
    if (record.declared_sha256 && record.declared_sha256 !== sha256)
      throw mismatch(`The bytes' SHA-256 is ${sha256}, not the ${record.declared_sha256} declared.`);
    const answer = { upload_id: id, size: bytes.length, sha256, expires_at: record.expires_at };
    if (record.received) {
      if (record.received.sha256 === sha256) return answer;
      throw mismatch(`Upload ${id} already holds other bytes (SHA-256 ${record.received.sha256}).`);
    }
    // Refused now if no tier reads it, so a client learns it before paying or chunking.
    await detect(
      bytes,
      { filename: record.filename, contentType: record.content_type },
      this.config.limits.maxCharsPerRequest,
    );
    if (await this.#records.receive(version, bytes, sha256)) return answer;
    // Another PUT wrote first: the same bytes are an answer, others a conflict.
    const now = await this.#records.get(id);
    if (now?.record.received?.sha256 === sha256) return answer;
    throw mismatch(`Upload ${id} received other bytes at the same time.`);
  }

  async #readDeclared(record: UploadRecord, body: ReadableStream<Uint8Array> | null): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    let size = 0;
    if (body)
      for await (const part of timedChunks(body, this.config.bodyRead)) {
        size += part.length;
        if (size > record.size) throw mismatch(`More bytes than the ${record.size} declared.`);
        parts.push(part);
      }
    if (size !== record.size) throw mismatch(`${size} bytes arrived; ${record.size} were declared.`);
    return new Uint8Array(Buffer.concat(parts));
  }

  /** The Blob client-upload handshake: a token for the one pathname, type and size the upload declared. */
  async blobHandshake(request: Request, body: unknown): Promise<unknown> {
    const blob = this.blob;
    if (!blob) throw new ApiError("not_found", "This server takes uploads itself: PUT the bytes to the upload's url.");
    return blob.answerHandshake(request, body, async (pathname, clientPayload) => {
      const version = clientPayload ? await this.#records.get(clientPayload) : null;
      if (!version || version.record.target !== "blob" || version.record.pathname !== pathname)
        throw uploadUnknown(clientPayload ?? "(none)");
      const { record } = version;
      // Short-lived: long enough to send 25 MB on a slow line, never past the upload's own end.
      const validUntil = Math.min(Date.parse(record.expires_at), Date.now() + 10 * 60_000);
      return { contentType: record.content_type, maxBytes: record.size, validUntil, uploadId: record.upload_id };
    });
  }

  /** The document an `upload_id` names, read from the store or from Blob; refused when unknown, expired or not yet sent. */
  async read(id: string): Promise<UploadedDocument> {
    const version = await this.#records.get(id);
    if (!version) throw uploadUnknown(id);
    const { record } = version;
    const bytes = record.target === "put" ? await this.#storedBytes(version) : await this.#blobBytes(record);
    return { bytes, filename: record.filename, contentType: record.content_type };
  }

  async #storedBytes({ record }: UploadVersion): Promise<Uint8Array> {
    if (!record.received) throw incomplete(record);
    const bytes = await this.#records.bytes(record);
    if (!bytes) throw uploadUnknown(record.upload_id);
    return bytes;
  }

  async #blobBytes(record: UploadRecord): Promise<Uint8Array> {
    if (!this.blob || !record.pathname) throw uploadUnknown(record.upload_id);
    const opened = await this.blob.open(record.pathname);
    if (!opened) throw incomplete(record);
    // The token capped the size; read against the declared size all the same, never trusting the store's word.
    const bytes = await this.#readDeclared(record, opened.stream);
    if (record.declared_sha256 && sha256Hex(bytes) !== record.declared_sha256)
      throw mismatch(`The uploaded bytes are not the SHA-256 ${record.declared_sha256} declared.`);
    return bytes;
  }
}

const incomplete = (record: UploadRecord) =>
  new ApiError(
    "upload_incomplete",
    `Upload ${record.upload_id} has no bytes yet: ${record.target === "put" ? "PUT them to its url" : "finish the Blob upload"} first (it expires at ${record.expires_at}).`,
  );
