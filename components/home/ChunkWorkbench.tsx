/** The home page's form and its outcome: choose a document, a tier and options, run it (free, paid or as a job), show the result. */

import dynamic from "next/dynamic";
import { useRouter } from "next/navigation";
import { type FormEvent, type ReactNode, useEffect, useReducer, useRef, useState } from "react";
import type { PaidRunProps } from "@/components/pay/paid-run-props";
import { ChunkOptionsFields } from "@/components/options/ChunkOptionsFields";
import { ResultSkeleton } from "@/components/results/ResultSkeleton";
import { TierPicker, TierPickerSkeleton } from "@/components/tiers/TierPicker";
import { DocumentPicker } from "@/components/upload/DocumentPicker";
import { usePageEstimate } from "@/components/upload/usePageEstimate";
import { ApiUnreachable, type ApiInfo, type TierId, isJob, postChunk } from "@/web/api-client";
import { formatUsdc } from "@/web/format";
import { tierName } from "@/web/labels";
import { type OptionsDraft, defaultDraft, validateOptions } from "@/web/options";
import { problemFromError, unreachableProblem } from "@/web/problems";
import { type SourceDraft, emptySource, sourceProblem, toDocumentSource } from "@/web/source";
import { FreeQuotaLine } from "./FreeQuotaLine";
import { type RunRequest, homeReducer, initialHomeState, isBusy } from "./home-machine";
import { ProblemAlert } from "./ProblemAlert";
import { useFreeQuota } from "./useFreeQuota";

/** The paid flow and its wallet code load only once a paid tier is chosen, never on the free path. */
const loadPaidRun = () => import("@/components/pay/PaidRun");
const PaidRun = dynamic<PaidRunProps>(loadPaidRun, {
  ssr: false,
  loading: () => (
    <div
      role="status"
      className="flex min-h-40 items-center justify-center rounded-xl border border-line bg-surface text-sm text-muted"
    >
      Loading the payment step…
    </div>
  ),
});

/** The results view (and the virtual list) is only needed once there is a result; its download starts with the request. */
const loadResultView = () => import("@/components/results/ResultView");
const ResultView = dynamic(loadResultView, {
  ssr: false,
  loading: () => <ResultSkeleton label="Loading the results view" />,
});

/** The form (document, tier, options), the run button, and what comes back. */
export function ChunkWorkbench({ api }: { api: ApiInfo | null }) {
  const router = useRouter();
  const [state, dispatch] = useReducer(homeReducer, initialHomeState);
  const [source, setSource] = useState<SourceDraft>(emptySource);
  const [chosenTier, setChosenTier] = useState<TierId | null>(null);
  const [optionsDraft, setOptionsDraft] = useState<OptionsDraft | null>(null);
  const [triedToRun, setTriedToRun] = useState(false);
  /** A large file's two-step upload (web/two-step-upload.ts): bytes sent of the total, while it runs. */
  const [uploadProgress, setUploadProgress] = useState<{ sent: number; total: number } | null>(null);
  const estimate = usePageEstimate(source.mode === "file" ? source.file : null);
  const { quota, loading: quotaLoading, update: updateQuota } = useFreeQuota();
  const resultsRef = useRef<HTMLDivElement>(null);

  const tiers = api?.tiers ?? [];
  // A free tier first, when this server runs one: trying the service needs no wallet.
  const tierId =
    chosenTier ??
    (tiers.find((t) => t.price_base_units === 0 && t.available) ?? tiers.find((t) => t.available))?.id ??
    null;
  const tier = tiers.find((t) => t.id === tierId) ?? null;
  const draft = optionsDraft ?? (api ? defaultDraft(api) : null);
  const validation = api && draft ? validateOptions(draft, api) : null;
  const maxUploadBytes = api?.limits.max_upload_bytes ?? null;
  const problemWithSource = maxUploadBytes === null ? null : sourceProblem(source, maxUploadBytes);
  // A file too large is said at once; a missing document only once the person tried to go on.
  const oversize =
    source.mode === "file" && source.file !== null && maxUploadBytes !== null && source.file.size > maxUploadBytes;
  const shownSourceProblem = triedToRun || oversize ? problemWithSource : null;
  const busy = isBusy(state.stage);
  const result = state.stage.name === "done" ? state.stage.result : state.lastResult;

  // Bring the answer into view, and keyboard focus with it, when a run finishes.
  const finished = state.stage.name === "done" ? state.stage.result : null;
  useEffect(() => {
    if (!finished) return;
    const heading = resultsRef.current?.querySelector<HTMLElement>("h2");
    heading?.focus({ preventScroll: true });
    resultsRef.current?.scrollIntoView({ behavior: "smooth", block: "start" });
  }, [finished]);

  const chooseTier = (id: TierId) => {
    setChosenTier(id);
    if (tiers.find((t) => t.id === id)?.price_base_units) void loadPaidRun();
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setTriedToRun(true);
    const documentSource = toDocumentSource(source);
    if (!api || !tier || !validation?.options || problemWithSource || !documentSource) {
      focusFirstInvalid(event.currentTarget as HTMLFormElement);
      return;
    }
    const request: RunRequest = { tier, source: documentSource, options: validation.options };
    if (tier.price_base_units > 0) {
      void loadResultView();
      dispatch({ type: "start_paying", request });
      return;
    }
    dispatch({ type: "run_free", request });
    void loadResultView();
    const onUploadProgress = (sent: number, total: number) => setUploadProgress({ sent, total });
    try {
      let outcome = await postChunk(tier, documentSource, validation.options, undefined, onUploadProgress);
      // A scan with more pages to OCR than one request reads: the same request as a job, followed on its page.
      if (outcome.kind === "error" && outcome.body.code === "ocr_too_many_pages")
        outcome = await postChunk(tier, documentSource, { ...validation.options, async: true });
      setUploadProgress(null);
      if (outcome.kind === "ok") {
        updateQuota(outcome.rateLimit);
        if (isJob(outcome.body)) router.push(`/jobs/${encodeURIComponent(outcome.body.job_id)}`);
        else dispatch({ type: "succeeded", result: outcome.body });
      } else if (outcome.kind === "error") {
        updateQuota(outcome.rateLimit);
        dispatch({
          type: "failed",
          problem: problemFromError(outcome.status, outcome.body, {
            retryAfter: outcome.retryAfter,
            rateLimit: outcome.rateLimit,
          }),
        });
      } else {
        dispatch({
          type: "failed",
          problem: problemFromError(402, {
            code: outcome.body.code,
            message: outcome.body.message ?? "This tier asks for payment.",
          }),
        });
      }
    } catch (error) {
      setUploadProgress(null);
      if (!(error instanceof ApiUnreachable)) throw error;
      dispatch({ type: "failed", problem: unreachableProblem() });
    }
  };

  const paid = tier !== null && tier.price_base_units > 0;
  return (
    <>
      <form
        onSubmit={(event) => void onSubmit(event)}
        noValidate
        aria-label="Chunk a document"
        className="mt-10 space-y-6"
      >
        <Step number={1} title="Choose a document">
          <DocumentPicker
            draft={source}
            onChange={setSource}
            estimate={estimate}
            maxUploadBytes={maxUploadBytes}
            problem={shownSourceProblem}
            disabled={busy}
          />
        </Step>

        <Step
          number={2}
          title="Choose a tier"
          aside={api ? `Prices per document, in ${api.asset.symbol} on ${api.network}` : null}
        >
          {api && tierId ? (
            <TierPicker tiers={tiers} value={tierId} onChange={chooseTier} disabled={busy} />
          ) : (
            <TierPickerSkeleton />
          )}
        </Step>

        <Step number={3} title="Options">
          {api && draft && validation ? (
            <ChunkOptionsFields
              api={api}
              draft={draft}
              errors={triedToRun || optionsDraft ? validation.errors : {}}
              onChange={setOptionsDraft}
              disabled={busy}
            />
          ) : (
            <div aria-hidden="true" className="h-[6.75rem] animate-pulse rounded-lg bg-surface-2" />
          )}
        </Step>

        <div className="space-y-4 rounded-2xl border border-line bg-surface p-5 sm:p-6">
          <div className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
            <div className="min-w-0">
              {paid && tier ? (
                <p className="min-h-6 text-sm text-fg">
                  <span className="font-medium">{tierName(tier.id)}</span> costs{" "}
                  <span className="font-semibold tabular-nums">
                    {formatUsdc(tier.price_base_units, api?.asset.decimals)} {api?.asset.symbol ?? "USDC"}
                  </span>{" "}
                  for this document
                  {tier.mode === "async" ? (
                    <span className="text-muted">; it runs as a job with its own page</span>
                  ) : null}
                  .
                </p>
              ) : (
                <FreeQuotaLine
                  quota={quota}
                  loading={quotaLoading}
                  estimate={source.mode === "file" ? estimate : null}
                />
              )}
            </div>
            <button
              type="submit"
              disabled={busy || !api}
              className="inline-flex h-12 shrink-0 items-center justify-center gap-2 rounded-xl bg-accent px-6 text-base font-semibold text-accent-fg shadow-sm transition-colors hover:bg-accent-hover disabled:cursor-not-allowed disabled:opacity-60"
            >
              {state.stage.name === "chunking" ? (
                <>
                  <Spinner /> Chunking…
                </>
              ) : paid && tier ? (
                `Continue to payment · ${formatUsdc(tier.price_base_units, api?.asset.decimals)} ${api?.asset.symbol ?? "USDC"}`
              ) : (
                "Chunk for free"
              )}
            </button>
          </div>
          {uploadProgress && busy ? (
            <div className="flex items-center gap-3 text-sm text-muted">
              <label htmlFor="upload-progress">
                {uploadProgress.sent < uploadProgress.total ? "Uploading the file…" : "Uploaded; chunking…"}
              </label>
              <progress
                id="upload-progress"
                className="h-2 w-48"
                max={uploadProgress.total}
                value={uploadProgress.sent}
              />
            </div>
          ) : null}
          {state.problem ? (
            <ProblemAlert problem={state.problem} onDismiss={() => dispatch({ type: "dismiss_problem" })} />
          ) : null}
        </div>
      </form>

      {state.stage.name === "paying" && api ? (
        <section aria-label="Payment" className="mt-6">
          <PaidRun
            api={api}
            tier={state.stage.request.tier}
            source={state.stage.request.source}
            options={state.stage.request.options}
            onResult={(paidResult) => dispatch({ type: "succeeded", result: paidResult })}
            onJob={(job) => router.push(`/jobs/${encodeURIComponent(job.job_id)}`)}
            onCancel={() => dispatch({ type: "cancel_paying" })}
          />
        </section>
      ) : null}

      <div ref={resultsRef} className="mt-10 scroll-mt-24">
        {state.stage.name === "chunking" ? (
          <ResultSkeleton label="Chunking the document" />
        ) : result ? (
          <ResultView key={state.resultCount} result={result} source={state.lastSource ?? undefined} />
        ) : null}
      </div>
    </>
  );
}

function focusFirstInvalid(form: HTMLFormElement) {
  // After React has rendered the messages.
  requestAnimationFrame(() => form.querySelector<HTMLElement>("[aria-invalid='true']")?.focus());
}

function Step({
  number,
  title,
  aside,
  children,
}: {
  number: number;
  title: string;
  aside?: string | null;
  children: ReactNode;
}) {
  const id = `step-${number}`;
  return (
    <section aria-labelledby={id} className="rounded-2xl border border-line bg-surface/60 p-5 sm:p-6">
      <div className="mb-4 flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h2 id={id} className="flex items-center gap-3 text-lg font-semibold text-fg">
          <span
            aria-hidden="true"
            className="inline-flex size-7 items-center justify-center rounded-full bg-accent-soft text-sm font-bold text-accent"
          >
            {number}
          </span>
          {title}
        </h2>
        {aside ? <p className="text-sm text-muted">{aside}</p> : null}
      </div>
      {children}
    </section>
  );
}

function Spinner() {
  return (
    <span
      aria-hidden="true"
      className="size-4 animate-spin rounded-full border-2 border-current border-r-transparent"
    />
  );
}
