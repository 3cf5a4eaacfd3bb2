import { ApiError } from "@/lib/ground/errors";
import { routeLabel } from "@/lib/http/route-label";
import { logEvent, logFault } from "@/lib/observability/events";
import { recordRequest } from "@/lib/observability/metrics";
import { type RequestScope, inRequestScope, requestIdFrom } from "@/lib/observability/request-scope";

/** CORS for every API answer: the API is public and agents call it from anywhere. */
export const CORS_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, PUT, OPTIONS",
  "access-control-allow-headers": "content-type, x-payment, payment-signature, idempotency-key",
  "access-control-expose-headers":
    "payment-required, payment-response, x-payment-response, retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, x-request-id, idempotent-replayed",
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
function errorResponse(error: unknown): Response {
  if (!(error instanceof ApiError)) {
    logFault("Internal error, answered with 500", error);
    return errorResponse(
      new ApiError("internal_error", "Something went wrong on our side; the request was not charged. Try again later."),
    );
  }
  return json(error.body ?? error.standardBody(), { status: error.status, headers: error.headers });
}

/**
 * Wraps a route handler: every thrown error takes the one path above; the request gets its id (X-Request-Id,
 * on every log line of it), one log line when answered, and its metrics.
 */
export function handle<A extends unknown[]>(fn: (...args: A) => Promise<Response>) {
  return async (...args: A): Promise<Response> => {
    const started = performance.now();
    const request = args[0] instanceof Request ? args[0] : undefined;
    const scope: RequestScope = { requestId: requestIdFrom(request?.headers ?? new Headers()) };
    return inRequestScope(scope, async () => {
      let response: Response;
      let code: string | undefined;
      try {
        response = await fn(...args);
      } catch (error) {
        code = error instanceof ApiError ? error.code : "internal_error";
        response = errorResponse(error);
      }
      const seconds = (performance.now() - started) / 1000;
      const answer = {
        route: request ? routeLabel(new URL(request.url).pathname) : "{other}",
        method: request?.method ?? "GET",
        tier: scope.tier,
        status: response.status,
        code,
      };
      recordRequest({ ...answer, seconds });
      logEvent(
        response.status >= 500 ? "request.failed" : response.status >= 400 ? "request.refused" : "request.completed",
        { ...answer, duration_ms: Math.round(seconds * 1000) },
        response.status >= 500 ? "warn" : "info",
      );
      return withHeader(response, "x-request-id", scope.requestId);
    });
  };
}

/** Sets a header, copying the response first when its headers are immutable (a fetched or redirect response). */
function withHeader(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set(name, value);
    return copy;
  }
}

export const preflight = () => new Response(null, { status: 204, headers: CORS_HEADERS });

export const methodNotAllowed = (allowed: string): Response =>
  errorResponse(
    new ApiError("method_not_allowed", `Use ${allowed} on this endpoint.`, { headers: { allow: allowed } }),
  );
