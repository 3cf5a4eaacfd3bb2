"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { type ReactNode, useEffect, useMemo, useState } from "react";
import { ResultView } from "@/components/results/ResultView";
import { ResultSkeleton } from "@/components/results/ResultSkeleton";
import { type ApiOutcome, type ChunkingResult, type JobStatus, getJobResult, getJobStatus } from "@/web/api-client";
import { formatLocalTime, formatWait, shortId } from "@/web/format";
import { forgetJobPayment, keptJobPayment, type PaidSignature } from "@/web/payment/paid-signatures";

/** The API asks for a poll every 1 to 2 s. */
const POLL_MS = 1_500;
/** While the service cannot be reached, ask less often until it answers again. */
const OFFLINE_POLL_MS = 5_000;

const toEpochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** Re-renders every `ms`, for "expires in 54 min" once polling has stopped. */
function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/**
 * A job at its own URL (ai-pro's, or a long scan's run with `async`): a
 * person can leave and come back within the hour. Polls the status while
 * the job runs (a real progress bar and the stage: the page OCR is reading,
 * the model calls), then shows the result, or why it failed.
 */
export function JobView({ jobId }: { jobId: string }) {
  // ai-pro's jobs enrich the chunks; other tiers' only chunk (their ids start with their tier).
  const enriched = jobId.startsWith("ai-pro_");
  const status = useQuery<ApiOutcome<JobStatus>>({
    queryKey: ["chunkwise.job-status", jobId],
    queryFn: () => getJobStatus(jobId),
    staleTime: 0,
    retry: false,
    refetchOnWindowFocus: true,
    refetchInterval: (query) => {
      if (query.state.status === "error") return OFFLINE_POLL_MS;
      const data = query.state.data;
      return data?.kind === "ok" && data.body.status === "processing" ? POLL_MS : false;
    },
  });
  const outcome = status.data;
  const job = outcome?.kind === "ok" ? outcome.body : null;
  const completed = job?.status === "completed";

  const result = useQuery<ApiOutcome<ChunkingResult>>({
    queryKey: ["chunkwise.job-result", jobId],
    queryFn: () => getJobResult(jobId),
    enabled: completed,
    staleTime: Number.POSITIVE_INFINITY,
    retry: 2,
  });

  // How the job ended decides what happens to the payment remembered in this tab (see paid-signatures.ts).
  const ended = job?.status === "completed" || job?.status === "failed" ? job.status : null;
  const keptPayment = useMemo(() => (ended === "failed" ? keptJobPayment(jobId) : null), [ended, jobId]);
  useEffect(() => {
    if (ended === "completed") forgetJobPayment(jobId);
  }, [ended, jobId]);

  const now = useNow(30_000);

  return (
    <div className="mx-auto w-full max-w-6xl px-4 py-8 sm:px-6 sm:py-10">
      <nav aria-label="Breadcrumb" className="text-sm text-muted">
        <Link href="/" className="rounded font-medium text-accent underline-offset-2 hover:underline">
          Chunkwise
        </Link>{" "}
        / AI-Pro job
      </nav>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-fg sm:text-3xl">AI-Pro job</h1>
      <p className="mt-1 text-sm text-muted">
        Job <code className="font-mono text-xs text-fg">{jobId}</code>. This page is the job&apos;s own address: leave
        and come back any time within the hour.
      </p>

      <div className="mt-6">
        {status.isPending ? (
          <JobCardSkeleton />
        ) : status.isError && !outcome ? (
          <Notice tone="danger" title="The service could not be reached.">
            Checking again every few seconds. The job keeps running on the service meanwhile.
          </Notice>
        ) : outcome && outcome.kind !== "ok" ? (
          outcome.status === 404 ? (
            <Notice tone="warning" title="This job has expired or never existed.">
              Jobs are kept for one hour after they start. <BackHome>Chunk a document</BackHome>
            </Notice>
          ) : (
            <Notice tone="danger" title="The job's status could not be read.">
              {outcome.kind === "error" ? outcome.body.message : "The service answered unexpectedly."}{" "}
              <BackHome>Back to the start</BackHome>
            </Notice>
          )
        ) : job ? (
          <JobCard job={job} now={now} offline={status.isError} keptPayment={keptPayment} enriched={enriched} />
        ) : null}
      </div>

      {job?.status === "processing" ? (
        <div className="mt-8 flex min-h-40 items-center justify-center rounded-2xl border border-dashed border-line-strong p-8 text-center text-sm text-muted">
          {enriched
            ? "The enriched chunks (summaries and entities) appear here when the job completes."
            : "The chunks appear here when the job completes."}
        </div>
      ) : null}

      {completed ? (
        <section aria-label="Result" className="mt-8">
          {result.data?.kind === "ok" ? (
            <ResultView result={result.data.body} />
          ) : result.data ? (
            <Notice tone="danger" title="The result could not be loaded.">
              {result.data.kind === "error" ? result.data.body.message : "The service answered unexpectedly."}{" "}
              <button
                type="button"
                onClick={() => void result.refetch()}
                className="rounded font-medium text-accent underline underline-offset-2"
              >
                Try again
              </button>
            </Notice>
          ) : result.isError ? (
            <Notice tone="danger" title="The result could not be loaded.">
              The service could not be reached.{" "}
              <button
                type="button"
                onClick={() => void result.refetch()}
                className="rounded font-medium text-accent underline underline-offset-2"
              >
                Try again
              </button>
            </Notice>
          ) : (
            <ResultSkeleton label={enriched ? "Loading the enriched result" : "Loading the result"} />
          )}
        </section>
      ) : null}
    </div>
  );
}

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

function JobCard({
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

function BackHome({ children }: { children: ReactNode }) {
  return (
    <Link href="/" className="rounded font-medium text-accent underline underline-offset-2">
      {children}
    </Link>
  );
}

function Notice({ tone, title, children }: { tone: "danger" | "warning"; title: string; children: ReactNode }) {
  const style = tone === "danger" ? "border-danger/40 bg-danger-soft" : "border-warning/40 bg-warning-soft";
  return (
    <div role="alert" className={`rounded-2xl border p-5 ${style}`}>
      <h2 className={`text-base font-semibold ${tone === "danger" ? "text-danger" : "text-warning"}`}>{title}</h2>
      <p className="mt-2 text-sm leading-6 text-fg">{children}</p>
    </div>
  );
}

function JobCardSkeleton() {
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

export default JobView;
