import type { Config } from "@/lib/ground/config";
import { MAX_IMAGE_PIXELS } from "@/lib/ground/limits";
import { lifetimeText, megabytes } from "@/lib/ground/wording";

/**
 * Every code the API answers with (`code` in an error body, a 402 body or a
 * failed job's `error`): its HTTP status and when it happens. The one table:
 * `ApiError` takes its status from here, so only a listed code can be thrown;
 * the OpenAPI document lists each operation's codes from it (by scope), and
 * docs/errors.md's table is written from it (`npm run docs:errors`).
 */

export const STATUS_NAMES = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
} as const;

export type ErrorStatus = keyof typeof STATUS_NAMES;

/** What an operation involves, to pick the error codes it can answer with. */
export type Scope =
  | "upload"
  | "json"
  | "url"
  | "options"
  | "detect"
  | "document"
  | "freeQuota"
  | "paid"
  | "x402"
  | "embeddings"
  | "aiConfig"
  | "aiCall"
  | "job"
  | "jobResult"
  | "result"
  | "faucet"
  | "metrics"
  | "store"
  | "chain"
  | "uploadId"
  | "uploads"
  | "idempotency"
  | "any";

interface CodeSpec {
  status: ErrorStatus;
  /** The operations that can answer with it; none for a code seen only in a failed job's status. */
  scopes: readonly Scope[];
  /** When it happens, for people: some name this server's limits. */
  when: string | ((config: Config) => string);
}

export const ERROR_CODES = {
  empty_document: { status: 400, scopes: ["detect", "document"], when: "The document holds no text." },
  invalid_encoding: {
    status: 400,
    scopes: ["detect", "document"],
    when: "Text that is neither UTF-8 nor UTF-16 with a byte-order mark (CSV and TSV are read in any encoding).",
  },
  corrupted_pdf: { status: 400, scopes: ["document"], when: "A damaged or incomplete PDF." },
  encrypted_pdf: { status: 400, scopes: ["document"], when: "A password-protected PDF." },
  no_text: {
    status: 400,
    scopes: ["document"],
    when: "No text anywhere: neither a text layer nor anything OCR could read on the PDF's scanned pages or the image.",
  },
  corrupted_image: { status: 400, scopes: ["document"], when: "An image that is damaged or cut short." },
  corrupted_docx: { status: 400, scopes: ["document"], when: "A damaged or invalid .docx." },
  corrupted_document: {
    status: 400,
    scopes: ["document"],
    when: "A damaged or invalid slide deck, workbook, EPUB, ODT, RTF or e-mail (its container, manifest or markup cannot be read).",
  },
  drm_protected: {
    status: 400,
    scopes: ["document"],
    when: "An EPUB whose chapters are encrypted (DRM: META-INF/encryption.xml or rights.xml covering its content).",
  },
  document_too_complex: {
    status: 400,
    scopes: ["document"],
    when: "Reading or chunking the document took more time or memory than allowed, or its markup (HTML, the XML inside a DOCX, PPTX, ODP, XLSX, ODS, ODT or EPUB, an RTF's groups) nests deeper or holds more elements than allowed, or a spreadsheet or CSV holds more cells than allowed, or e-mails are attached inside e-mails deeper than allowed.",
  },
  invalid_options: {
    status: 400,
    scopes: ["options"],
    when: "`max_tokens`, `overlap_tokens`, `output_format` or `include_notes` out of range, `context` on a tier other than ai and ai-pro, or `webhook_url` on a request that is not a job.",
  },
  webhook_url_refused: {
    status: 400,
    scopes: ["options"],
    when: "`webhook_url` is not an http or https URL, or its host does not resolve or resolves to a non-public address.",
  },
  invalid_idempotency_key: {
    status: 400,
    scopes: ["idempotency"],
    when: "An idempotency key (`Idempotency-Key` header, `idempotency_key`, or x402 `payment-identifier` id) that is not 16 to 128 characters of letters, digits, `-` and `_`, or two different keys on one request.",
  },
  invalid_request: { status: 400, scopes: ["json"], when: "The JSON body does not match the schema." },
  invalid_json: { status: 400, scopes: ["json"], when: "The body is not valid JSON." },
  expected_json: { status: 400, scopes: ["json"], when: "The Content-Type is not application/json." },
  expected_multipart: { status: 400, scopes: ["upload"], when: "The body is not multipart/form-data." },
  invalid_multipart: { status: 400, scopes: ["upload"], when: "A malformed multipart body." },
  missing_file: { status: 400, scopes: ["upload"], when: "No `file` part." },
  upload_mismatch: {
    status: 400,
    scopes: ["uploads"],
    when: "The bytes sent are not the upload's declared size, or not its declared SHA-256, or differ from bytes already received for it.",
  },
  invalid_url: { status: 400, scopes: ["url"], when: "Not an http or https URL." },
  url_forbidden: { status: 400, scopes: ["url"], when: "The URL (or a redirect) resolves to a non-public address." },
  url_unresolvable: { status: 400, scopes: ["url"], when: "The URL's host does not resolve." },
  url_timeout: {
    status: 400,
    scopes: ["url"],
    when: (config) => `Fetching the URL took longer than ${config.urlFetch.timeoutMs / 1000} s.`,
  },
  url_fetch_failed: { status: 400, scopes: ["url"], when: "The URL answered with an error or the connection failed." },
  too_many_redirects: {
    status: 400,
    scopes: ["url"],
    when: (config) => `More than ${config.urlFetch.maxRedirects} redirects.`,
  },
  payment_required: {
    status: 402,
    scopes: ["paid"],
    when: "No `X-PAYMENT` or `PAYMENT-SIGNATURE`: pay as the body (or the `PAYMENT-REQUIRED` header) says and repeat the request.",
  },
  payment_invalid: { status: 402, scopes: ["paid"], when: "A malformed `X-PAYMENT` or `PAYMENT-SIGNATURE` header." },
  payment_not_found: {
    status: 402,
    scopes: ["paid"],
    when: "The transaction is not confirmed yet: repeat with the same header.",
  },
  payment_failed: { status: 402, scopes: ["paid"], when: "The transaction failed on chain; no USDC moved." },
  payment_expired: {
    status: 402,
    scopes: ["paid"],
    when: (config) =>
      `The transfer is older than ${config.payments.maxAgeSeconds} s, or an x402 transaction's blockhash expired.`,
  },
  payment_insufficient: { status: 402, scopes: ["paid"], when: "Less than the price reached `payTo`." },
  payment_wrong_asset: { status: 402, scopes: ["paid"], when: "The transfer is not USDC." },
  payment_wrong_recipient: { status: 402, scopes: ["paid"], when: "The transfer does not pay `payTo`." },
  payment_reference_mismatch: {
    status: 402,
    scopes: ["paid"],
    when: "The Memo carries the reference of another request.",
  },
  payment_reference_required: {
    status: 402,
    scopes: ["paid"],
    when: "This server takes only transfers carrying the 402's reference in a Memo.",
  },
  payment_already_used: { status: 402, scopes: ["paid"], when: "The payment already paid for another request." },
  payment_wrong_network: { status: 402, scopes: ["x402"], when: "x402: the payload is for another network." },
  payment_wrong_tier: { status: 402, scopes: ["x402"], when: "x402 v2: the payment accepted another tier's offer." },
  payment_amount_mismatch: { status: 402, scopes: ["x402"], when: "x402: the transfer is not exactly the price." },
  payment_fee_payer_misuse: {
    status: 402,
    scopes: ["x402"],
    when: "x402: the fee payer is not `extra.feePayer`, or an instruction uses its account.",
  },
  payment_invalid_instructions: {
    status: 402,
    scopes: ["x402"],
    when: "x402: instructions beyond the exact-SVM layout.",
  },
  payment_fee_too_high: {
    status: 402,
    scopes: ["x402"],
    when: (config) =>
      `x402: more signers than the fee payer and the payer, or a priority fee above what the tier's price pays for (at SOL $${config.payments.feePayerMaxSolUsd}).`,
  },
  payment_invalid_signature: { status: 402, scopes: ["x402"], when: "x402: a missing or wrong signature." },
  payment_simulation_failed: {
    status: 402,
    scopes: ["x402"],
    when: "x402: the transaction would fail; nothing was sent.",
  },
  x402_unavailable: {
    status: 402,
    scopes: ["x402"],
    when: "This server takes only transaction signatures, not x402 payloads.",
  },
  signature_missing: {
    status: 401,
    scopes: [],
    when: "`/api/jobs/step`: a delivery without QStash's `Upstash-Signature` header (only QStash calls it).",
  },
  signature_invalid: {
    status: 403,
    scopes: [],
    when: "`/api/jobs/step`: a delivery whose `Upstash-Signature` does not verify with this server's signing keys.",
  },
  expired_or_unknown: {
    status: 404,
    scopes: ["result", "job", "uploadId"],
    when: (config) =>
      `No such result, job or upload (\`upload_id\`), or it expired (they are kept ${lifetimeText(config.resultTtlSeconds)}).`,
  },
  not_found: {
    status: 404,
    scopes: ["faucet", "metrics"],
    when: "No API endpoint at this path (the faucet exists only in local mode, `/api/metrics` only with `METRICS_TOKEN`).",
  },
  unknown_endpoint: { status: 404, scopes: [], when: "No tier endpoint by that name under `/chunk/`." },
  metrics_unauthorized: {
    status: 401,
    scopes: ["metrics"],
    when: "`GET /api/metrics` (operators' Prometheus endpoint) without its bearer token, `METRICS_TOKEN`.",
  },
  method_not_allowed: { status: 405, scopes: [], when: "Another HTTP method: the `Allow` header names the right one." },
  payment_in_progress: {
    status: 409,
    scopes: ["paid"],
    when: "A request with this payment is being served: retry for its result.",
  },
  idempotency_key_reused: {
    status: 409,
    scopes: ["idempotency"],
    when: "The `Idempotency-Key` (or `idempotency_key`, or x402 `payment-identifier`) was used by this client for a different request (another tier, document or options) while its answer is kept.",
  },
  idempotency_key_in_flight: {
    status: 409,
    scopes: ["idempotency"],
    when: "A request with this idempotency key is still being served: retry after `Retry-After` seconds for its answer.",
  },
  body_timeout: {
    status: 408,
    scopes: ["upload", "json"],
    when: (config) =>
      `The request body did not arrive within ${config.bodyRead.timeoutMs / 1000} s, or slower than ${config.bodyRead.minBytesPerSecond / 1024} KB/s after the first ${config.bodyRead.graceMs / 1000} s.`,
  },
  upload_incomplete: {
    status: 409,
    scopes: ["uploadId"],
    when: "The upload's bytes have not arrived yet: PUT them (or finish the Blob upload) before chunking by `upload_id`.",
  },
  job_not_finished: { status: 409, scopes: ["jobResult"], when: "The job is still processing: poll its status." },
  job_failed: { status: 409, scopes: ["jobResult"], when: "The job failed: its status carries the error." },
  job_abandoned: {
    status: 500,
    scopes: [],
    when: "A failed job's `error.code` only: its work stopped too many times without finishing (workers died or slices were never delivered); the payment was released, free pages given back.",
  },
  file_too_large: {
    status: 413,
    scopes: ["upload", "uploads"],
    when: (config) => `The upload is over ${megabytes(config.limits.maxUploadBytes)}.`,
  },
  body_too_large: {
    status: 413,
    scopes: ["json", "upload"],
    when: (config) =>
      `The JSON body is over 64 KB${config.functionBodyLimitBytes ? `, or any request body is over this host's function limit of ${megabytes(config.functionBodyLimitBytes)} (send larger files through \`POST /api/uploads\`)` : ""}.`,
  },
  url_too_large: {
    status: 413,
    scopes: ["url"],
    when: (config) => `The URL's document is over ${megabytes(config.urlFetch.maxBytes)}.`,
  },
  too_many_pages: {
    status: 413,
    scopes: ["document"],
    when: (config) => `More than ${config.limits.maxPagesPerRequest} pages.`,
  },
  too_many_characters: {
    status: 413,
    scopes: ["document"],
    when: (config) => `More than ${config.limits.maxCharsPerRequest.toLocaleString("en-US")} characters of text.`,
  },
  image_too_large: {
    status: 413,
    scopes: ["document"],
    when: `An image page of more than ${(MAX_IMAGE_PIXELS / 1e6).toFixed(0)} million pixels (refused before it is decoded).`,
  },
  ocr_too_many_pages: {
    status: 413,
    scopes: ["document"],
    when: (config) =>
      `More than ${config.ocr.syncMaxPages} pages to read by OCR (pages without a text layer, or an image's pages) in one request.`,
  },
  zip_bomb: {
    status: 413,
    scopes: ["document"],
    when: (config) =>
      `A DOCX, PPTX, ODP, XLSX, ODS, ODT or EPUB unpacking to more than ${megabytes(config.limits.maxUnpackedBytes)}, or an e-mail whose attachments decode to more.`,
  },
  unsupported_type: {
    status: 415,
    scopes: ["detect", "document"],
    when: "Not PDF, DOCX, PPTX, ODP, XLSX, ODS, CSV/TSV, ODT, RTF, EPUB, an e-mail (EML, MSG), HTML, Markdown, text or a PNG, JPEG, TIFF or WebP image (the type is read from the bytes).",
  },
  free_quota_exceeded: {
    status: 429,
    scopes: ["freeQuota"],
    when: (config) =>
      `The free tier's ${config.freePagesPerDay} pages of the UTC day are used up; \`Retry-After\` says when they renew.`,
  },
  too_many_unpaid_requests: {
    status: 429,
    scopes: ["paid"],
    when: (config) =>
      `The client took ${config.payments.unpaidReferences.burst} new unpaid 402s at once (${config.payments.unpaidReferences.perMinute} more a minute): pay one, or wait \`Retry-After\` (seconds).`,
  },
  payer_busy: {
    status: 429,
    scopes: ["x402"],
    when: "x402: another payment from the same token account or wallet is being served and not yet settled; a payer has one at a time (`Retry-After`).",
  },
  too_many_requests: {
    status: 429,
    scopes: ["upload", "url"],
    when: (config) =>
      `The client has ${config.perClient.maxConcurrentRequests} chunking requests in progress: wait for one (\`Retry-After\`).`,
  },
  too_many_uploads: {
    status: 429,
    scopes: ["uploads"],
    when: (config) =>
      `The client started ${config.uploads.perClient.burst} uploads at once (${config.uploads.perClient.perMinute} more a minute): wait \`Retry-After\` (seconds).`,
  },
  too_many_jobs: {
    status: 429,
    scopes: ["upload", "url"],
    when: (config) =>
      `The client has ${config.perClient.maxActiveJobs} jobs accepted and not finished: wait for one (\`Retry-After\`); nothing was charged.`,
  },
  internal_error: { status: 500, scopes: ["any"], when: "A fault on our side; nothing was charged." },
  extraction_failed: { status: 500, scopes: ["document"], when: "The document reader failed on our side." },
  processing_failed: {
    status: 500,
    scopes: ["document"],
    when: "Chunking failed on our side; a payment was released, free pages given back.",
  },
  fee_payer_misconfigured: { status: 500, scopes: ["x402"], when: "x402: the server's fee payer cannot pay fees." },
  busy: {
    status: 503,
    scopes: ["document"],
    when: "This instance has as many documents in progress as it takes (`Retry-After`); payment and free pages are untouched.",
  },
  server_misconfigured: {
    status: 503,
    scopes: ["any"],
    when: "The server's configuration is refused (e.g. an RPC serving another chain than `SOLANA_NETWORK`, a mainnet `USDC_MINT` that is not USDC): nothing is served or charged until its operator fixes it.",
  },
  store_unavailable: { status: 503, scopes: ["store"], when: "The store is unreachable: retry later." },
  embeddings_unavailable: {
    status: 503,
    scopes: ["embeddings"],
    when: "The embedding provider failed; the payment was released.",
  },
  ai_not_configured: {
    status: 503,
    scopes: ["aiConfig"],
    when: "This server has no model for the tier (asked before any payment).",
  },
  ai_unavailable: {
    status: 503,
    scopes: ["aiCall"],
    when: "The model provider failed; the payment was released: repeat with the same `X-PAYMENT`.",
  },
  chain_unavailable: {
    status: 503,
    scopes: ["chain"],
    when: "The Solana RPC is unreachable; the payment is untouched.",
  },
  payment_unconfirmed: {
    status: 503,
    scopes: ["x402"],
    when: "x402: the transfer was sent but is not confirmed yet: repeat with the same `X-PAYMENT`.",
  },
  facilitator_unavailable: {
    status: 503,
    scopes: ["x402"],
    when: "x402: the configured facilitator is unreachable.",
  },
} as const satisfies Record<string, CodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes answered with one status, e.g. `CodeOf<402>` for the reasons a payment is refused. */
export type CodeOf<S extends ErrorStatus> = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C]["status"] extends S ? C : never;
}[ErrorCode];

export interface ErrorCodeEntry {
  status: ErrorStatus;
  code: ErrorCode;
  when: string;
  scopes: readonly Scope[];
}

/** The table with this server's limits in its wording, in the order it is written. */
export function errorCatalogue(config: Config): ErrorCodeEntry[] {
  return (Object.entries(ERROR_CODES) as [ErrorCode, CodeSpec][]).map(([code, { status, scopes, when }]) => ({
    status,
    code,
    when: typeof when === "string" ? when : when(config),
    scopes,
  }));
}

/** docs/errors.md's table: one row per code, in the table's order. */
export function errorTableMarkdown(catalogue: ErrorCodeEntry[]): string {
  const rows = catalogue.map(
    ({ status, code, when }) => `| ${status} | \`${code}\` | ${when.replaceAll("|", "\\|")} |`,
  );
  return ["| status | code | when |", "|---|---|---|", ...rows].join("\n");
}
