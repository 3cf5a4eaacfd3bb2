/**
 * The one error type of the service. Anything thrown inside `lib/` that a
 * client should see is an ApiError; route handlers turn it into the error
 * body of DESIGN.md section 3 in exactly one place (`lib/http/respond.ts`).
 */
export const STATUS_NAMES = {
  400: "Bad Request",
  402: "Payment Required",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
} as const;

export type ErrorStatus = keyof typeof STATUS_NAMES;

export class ApiError extends Error {
  readonly status: ErrorStatus;
  readonly code: string;
  readonly headers: Record<string, string>;
  /** Replaces the standard error body; only the 402 answer uses it, since its shape is the spec's own. */
  readonly body?: Record<string, unknown>;

  constructor(
    status: ErrorStatus,
    code: string,
    message: string,
    options: { headers?: Record<string, string>; body?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.headers = options.headers ?? {};
    this.body = options.body;
  }
}

export const badRequest = (code: string, message: string) => new ApiError(400, code, message);
