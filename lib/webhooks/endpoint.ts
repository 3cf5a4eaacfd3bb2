import { request } from "undici";
import { ApiError } from "@/lib/ground/errors";
import {
  type AddressPolicy,
  bareHostname,
  createPinnedAgent,
  discard,
  parseFetchUrl,
  resolveAllowed,
} from "@/lib/fetch/safe-fetch";

/**
 * A client's webhook receiver, reached under the document URLs' address rules (lib/fetch/safe-fetch.ts): checked
 * when the job is accepted, and resolved, checked and pinned again on every try, since its DNS may have changed
 * meanwhile. A try is one POST with a deadline for all of it, redirects never followed, and the answer's body
 * never read: only its status counts, so a slow or hostile receiver holds nothing past the deadline.
 */
export interface WebhookEndpoint {
  /** At acceptance: throws `webhook_url_refused` (400) for a URL no try could reach. */
  check: (url: string) => Promise<void>;
  post: (url: string, body: string, headers: Record<string, string>) => Promise<PostOutcome>;
}

/** How a try went: an expected outcome, so a value (a reason code when it failed), never a throw. */
type PostOutcome =
  | { ok: true; status: number }
  | {
      ok: false;
      status?: number;
      reason:
        | "timeout"
        | "http_status"
        | "redirect"
        | "invalid_url"
        | "url_forbidden"
        | "url_unresolvable"
        | "connection_failed";
    };

const REFUSABLE = new Set(["invalid_url", "url_forbidden", "url_unresolvable"] as const);
type Refusal = typeof REFUSABLE extends Set<infer T> ? T : never;
const isRefusal = (code: string): code is Refusal => REFUSABLE.has(code as Refusal);

export function createWebhookEndpoint(options: { policy: AddressPolicy; timeoutMs: number }): WebhookEndpoint {
  const { policy, timeoutMs } = options;
  return {
    async check(url) {
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const target = parseFetchUrl(url);
        await resolveAllowed(target, policy, signal);
      } catch (error) {
        if (error instanceof ApiError && isRefusal(error.code))
          throw new ApiError("webhook_url_refused", `webhook_url: ${error.message}`);
        throw new ApiError(
          "webhook_url_refused",
          signal.aborted
            ? `webhook_url: resolving its host took longer than ${timeoutMs} ms.`
            : "webhook_url: its host could not be resolved.",
          { cause: error },
        );
      }
    },

    async post(url, body, headers) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      const checked = new Map<string, readonly string[]>();
      const agent = createPinnedAgent(checked);
      try {
        const target = parseFetchUrl(url);
        checked.set(bareHostname(target), await resolveAllowed(target, policy, controller.signal));
        const res = await request(target, {
          method: "POST",
          dispatcher: agent,
          signal: controller.signal,
          body,
          headers: { ...headers, "user-agent": "Chunkwise/0.1 (webhook)", "content-type": "application/json" },
          maxRedirections: 0,
        });
        discard(res.body);
        if (res.statusCode >= 200 && res.statusCode <= 299) return { ok: true, status: res.statusCode };
        const reason = res.statusCode >= 300 && res.statusCode <= 399 ? "redirect" : "http_status";
        return { ok: false, status: res.statusCode, reason };
      } catch (error) {
        if (controller.signal.aborted) return { ok: false, reason: "timeout" };
        if (error instanceof ApiError && isRefusal(error.code)) return { ok: false, reason: error.code };
        return { ok: false, reason: "connection_failed" };
      } finally {
        clearTimeout(timer);
        // Closes a connection the receiver still holds open.
        await agent.destroy().catch(() => undefined);
      }
    },
  };
}
