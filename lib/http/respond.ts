import { STATUS_NAMES } from "@/lib/error-codes";
import { ApiError } from "@/lib/errors";

/** CORS for every API answer: the API is public and agents call it from anywhere. */
export const CORS_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, PUT, OPTIONS",
  "access-control-allow-headers": "content-type, x-payment, payment-signature",
  "access-control-expose-headers":
    "payment-required, payment-response, x-payment-response, retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset",
};

export function json(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return jsonText(JSON.stringify(body), init);
}

/** An answer whose JSON is already written (a stored result). */
export function jsonText(text: string, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(text, {
    status: init.status ?? 200,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      ...CORS_HEADERS,
      ...init.headers,
    },
  });
}

/** The one place an error becomes an HTTP answer. Unknown faults are logged and answered as a generic 500. */
export function errorResponse(error: unknown): Response {
  if (!(error instanceof ApiError)) {
    console.error("Internal error, answered with 500:", error);
    return errorResponse(
      new ApiError("internal_error", "Something went wrong on our side; the request was not charged. Try again later."),
    );
  }
  const body = error.body ?? {
    success: false,
    error: STATUS_NAMES[error.status],
    code: error.code,
    message: error.message,
  };
  return json(body, { status: error.status, headers: error.headers });
}

/** Wraps a route handler so that every thrown error takes the one path above. */
export function handle<A extends unknown[]>(fn: (...args: A) => Promise<Response>) {
  return async (...args: A): Promise<Response> => {
    try {
      return await fn(...args);
    } catch (error) {
      return errorResponse(error);
    }
  };
}

export const preflight = () => new Response(null, { status: 204, headers: CORS_HEADERS });

export const methodNotAllowed = (allowed: string): Response =>
  errorResponse(
    new ApiError("method_not_allowed", `Use ${allowed} on this endpoint.`, { headers: { allow: allowed } }),
  );
