"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useState } from "react";
import ResultView from "@/components/results/ResultView";
import { ResultSkeleton } from "@/components/results/ResultSkeleton";
import { type ApiOutcome, type ResultAnswer, type JobStatus, getJobResult, getJobStatus } from "@/web/api-client";
import { forgetJobPayment, keptJobPayment } from "@/web/payment/paid-signatures";
import { JobCard, BackHome, Notice, JobCardSkeleton } from "@/components/jobs/JobCard";

/** The API asks for a poll every 1 to 2 s. */
const POLL_MS = 1_500;
/** While the service cannot be reached, ask less often until it answers again. */
const OFFLINE_POLL_MS = 5_000;

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

  const result = useQuery<ApiOutcome<ResultAnswer>>({
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
