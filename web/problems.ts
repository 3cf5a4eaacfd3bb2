import type { ErrorBody, RateLimit } from "@/web/api-client";
import { formatLocalTime, formatWait } from "@/web/format";

/**
 * An API error as the page shows it: a title saying what happened, the
 * service's own message (which says what to do), and, where the page knows
 * more than the service, one more hint.
 */
export interface Problem {
  title: string;
  message: string;
  hint?: string;
  code?: string;
}

const TITLES: Record<number, string> = {
  400: "The document could not be chunked",
  404: "Not found",
  413: "The document is too large",
  415: "This type of file cannot be chunked",
  429: "Too many requests",
  500: "Something went wrong on our side",
  503: "The service is unavailable right now",
};

export function problemFromError(
  status: number,
  body: Partial<ErrorBody>,
  extra: { retryAfter?: number; rateLimit?: RateLimit; nowMs?: number } = {},
): Problem {
  const message = body.message || `The service answered HTTP ${status}.`;
  const code = body.code;
  if (code === "free_quota_exceeded") {
    const reset =
      extra.rateLimit?.reset ??
      (extra.retryAfter ? Math.floor((extra.nowMs ?? Date.now()) / 1000) + extra.retryAfter : undefined);
    const someLeft = (extra.rateLimit?.remaining ?? 0) > 0;
    return {
      title: someLeft ? "Not enough free pages left today" : "No free pages left today",
      message,
      hint: reset
        ? `Free pages come back ${formatLocalTime(reset, extra.nowMs)} your time (${formatWait(reset, extra.nowMs)}).`
        : "Free pages come back at midnight UTC.",
      code,
    };
  }
  // The service's messages say what to do; a hint is added only where the page knows more.
  const hint =
    status === 503 || status === 500
      ? `Nothing was charged. Try again${extra.retryAfter ? ` ${formatWait(Math.floor((extra.nowMs ?? Date.now()) / 1000) + extra.retryAfter, extra.nowMs)}` : " in a minute"}.`
      : undefined;
  return { title: TITLES[status] ?? `The request failed (HTTP ${status})`, message, hint, code };
}

export const unreachableProblem = (): Problem => ({
  title: "The service could not be reached",
  message: "No answer came back: you may be offline, or the server is down.",
  hint: "Check your connection and try again.",
  code: "unreachable",
});
