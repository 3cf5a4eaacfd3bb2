/** A job as its page shows it: status, progress, times, the payment kept for a retry, and the notices of a failed or expired job. */

import Link from "next/link";
import type { ReactNode } from "react";
import type { JobStatus } from "@/web/api-client";
import { formatLocalTime, formatWait, shortId } from "@/web/format";
import type { PaidSignature } from "@/web/payment/paid-signatures";

const toEpochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

const STATUS_LABEL: Record<JobStatus["status"], string> = {
  processing: "Processing",
  completed: "Completed",
  failed: "Failed",
};
const STATUS_STYLE: Record<JobStatus["status"], string> = {
  processing: "bg-accent-soft text-accent",
  completed: "bg-success-soft text-success",
  failed: "bg-danger-soft text-danger",
};

export function JobCard({
  job,
  now,
  offline,
  keptPayment,
  enriched,
}: {
  enriched: boolean;
  job: JobStatus;
  now: number;
  offline: boolean;
  keptPayment: PaidSignature | null;
}) {
  const progress = Math.max(0, Math.min(100, Math.round(job.progress)));
  const created = toEpochSeconds(job.created_at);
  const expires = toEpochSeconds(job.expires_at);
  const expired = expires * 1000 <= now;
  return (
    <section
      aria-labelledby="job-progress-title"
      className="rounded-2xl border border-line bg-surface p-5 shadow-sm sm:p-6"
    >
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="job-progress-title" className="text-lg font-semibold text-fg">
          {job.status === "processing"
            ? enriched
              ? "Chunking and enriching"
              : "Chunking"
            : job.status === "completed"
              ? enriched
                ? "Enriched and ready"
                : "Ready"
              : "The job failed"}
        </h2>
        <span className={`rounded-full px-2.5 py-0.5 text-xs font-semibold ${STATUS_STYLE[job.status]}`}>
          {STATUS_LABEL[job.status]}
        </span>
      </div>

      <div className="mt-4 flex items-center gap-3">
        <div
          role="progressbar"
          aria-label="Job progress"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={progress}
          aria-valuetext={`${progress}%: ${job.message}`}
          className="h-3 flex-1 overflow-hidden rounded-full bg-surface-2"
        >
          <div
            className={`h-full rounded-full transition-[width] duration-700 ease-out ${job.status === "failed" ? "bg-danger" : job.status === "completed" ? "bg-success" : "bg-bar"}`}
            style={{ width: `${progress}%` }}
          />
        </div>
        <span className="w-12 text-right text-sm font-semibold tabular-nums text-fg">{progress}%</span>
      </div>

      <p aria-live="polite" className="mt-3 min-h-6 text-sm text-fg">
        {job.message}
        {offline ? <span className="text-muted"> · reconnecting to the service…</span> : null}
      </p>

      <dl className="mt-4 grid gap-x-8 gap-y-2 text-sm sm:grid-cols-3">
        <div>
          <dt className="text-muted">Started</dt>
          <dd className="font-medium text-fg">{formatLocalTime(created, now)}</dd>
        </div>
        <div>
          <dt className="text-muted">Kept until</dt>
          <dd className="font-medium text-fg">
            {formatLocalTime(expires, now)}{" "}
            <span className="font-normal text-muted">
              ({expired ? "expired" : `expires ${formatWait(expires, now)}`})
            </span>
          </dd>
        </div>
        <div>
          <dt className="text-muted">Job</dt>
          <dd className="font-mono text-xs leading-5 text-fg" title={job.job_id}>
            {job.job_id}
          </dd>
        </div>
      </dl>

      {job.status === "failed" ? (
        <div role="alert" className="mt-5 rounded-xl border border-danger/40 bg-danger-soft p-4">
          <p className="text-sm font-semibold text-danger">
            {job.error?.message ?? "The job stopped without saying why."}
          </p>
          <p className="mt-2 text-sm leading-6 text-fg">
            Your payment was released: it pays for this same document, tier and settings again.{" "}
            {keptPayment ? (
              <>
                Choose them again on the start page and it offers to retry without paying again (payment{" "}
                <code title={keptPayment.signature} className="font-mono text-xs">
                  {shortId(keptPayment.signature, 6)}
                </code>
                ).
              </>
            ) : (
              <>
                Submit the request again with the same <code className="font-mono text-xs">X-PAYMENT</code> signature.
              </>
            )}{" "}
            {job.error?.code ? (
              <span className="text-muted">
                (<code className="font-mono text-xs">{job.error.code}</code>)
              </span>
            ) : null}
          </p>
          <p className="mt-3">
            <BackHome>Try again</BackHome>
          </p>
        </div>
      ) : null}
    </section>
  );
}

export function BackHome({ children }: { children: ReactNode }) {
  return (
    <Link href="/" className="rounded font-medium text-accent underline underline-offset-2">
      {children}
    </Link>
  );
}

export function Notice({ tone, title, children }: { tone: "danger" | "warning"; title: string; children: ReactNode }) {
  const style = tone === "danger" ? "border-danger/40 bg-danger-soft" : "border-warning/40 bg-warning-soft";
  return (
    <div role="alert" className={`rounded-2xl border p-5 ${style}`}>
      <h2 className={`text-base font-semibold ${tone === "danger" ? "text-danger" : "text-warning"}`}>{title}</h2>
      <p className="mt-2 text-sm leading-6 text-fg">{children}</p>
    </div>
  );
}

export function JobCardSkeleton() {
  return (
    <div
      role="status"
      aria-busy="true"
      aria-label="Loading the job"
      className="rounded-2xl border border-line bg-surface p-5 sm:p-6"
    >
      <div className="h-6 w-56 animate-pulse rounded bg-surface-2" />
      <div className="mt-4 h-3 animate-pulse rounded-full bg-surface-2" />
      <div className="mt-3 h-6 w-40 animate-pulse rounded bg-surface-2" />
      <div className="mt-4 grid gap-2 sm:grid-cols-3">
        {[0, 1, 2].map((i) => (
          <div key={i} className="h-10 animate-pulse rounded bg-surface-2" />
        ))}
      </div>
    </div>
  );
}
