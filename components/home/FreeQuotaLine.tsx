import type { FreeQuota } from "@/web/api-client";
import { formatCount, formatLocalTime } from "@/web/format";
import type { PageEstimate } from "@/web/pages";

/** "N of M free pages left today", with a warning when the chosen document will not fit. One line of reserved height. */
export function FreeQuotaLine({
  quota,
  loading,
  estimate,
}: {
  quota: FreeQuota | null;
  loading: boolean;
  estimate: PageEstimate | null;
}) {
  if (loading) return <p className="min-h-6 text-sm text-muted">Checking your free pages for today…</p>;
  if (!quota)
    return (
      <p className="min-h-6 text-sm text-muted">
        The free tier allows a number of pages per day; the answer will say how many are left.
      </p>
    );
  const tooBig = estimate?.kind === "pages" && estimate.pages > quota.remaining;
  return (
    <p className="min-h-6 text-sm" data-testid="free-quota">
      <span className={quota.remaining === 0 ? "font-medium text-danger" : "font-medium text-fg"}>
        {formatCount(quota.remaining)} of {formatCount(quota.limit)} free pages left today
      </span>
      {quota.remaining === 0 ? (
        <span className="text-muted"> · more {formatLocalTime(quota.reset)}, or choose a paid tier</span>
      ) : tooBig ? (
        <span className="text-warning">
          {" "}
          · this document has {estimate.approximate ? "about " : ""}
          {formatCount(estimate.pages)} pages, more than are left
        </span>
      ) : (
        <span className="text-muted"> · resets {formatLocalTime(quota.reset)}</span>
      )}
    </p>
  );
}
