import { ERROR_CODES, type ErrorCode, type ErrorStatus, STATUS_NAMES } from "@/lib/ground/error-codes";

/**
 * The one error type of the service. Anything thrown inside `lib/` that a
 * client should see is an ApiError; route handlers turn it into the error
 * body of DESIGN.md section 3 in exactly one place (`lib/http/respond.ts`).
 * Its status is its code's, from the table in `lib/ground/error-codes.ts`.
 */
export class ApiError extends Error {
  readonly status: ErrorStatus;
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;
  /** Replaces the standard error body: the 402 answer (its shape is the spec's own), and a batch's 400 listing its documents. */
  readonly body?: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { headers?: Record<string, string>; body?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ApiError";
    this.status = ERROR_CODES[code].status;
    this.code = code;
    this.headers = options.headers ?? {};
    this.body = options.body;
  }

  /** The standard error body, whatever `body` replaces it with in an answer. */
  standardBody() {
    return standardErrorBody(this.code, this.message);
  }
}

/** The error body of DESIGN.md section 3: `{success: false, error: <the status's name>, code, message}`. */
export const standardErrorBody = (code: ErrorCode, message: string) => ({
  success: false as const,
  error: STATUS_NAMES[ERROR_CODES[code].status],
  code,
  message,
});
