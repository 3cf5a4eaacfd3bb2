"use client";

import { useQuery } from "@tanstack/react-query";
import { useCallback, useDeferredValue, useId, useMemo, useState } from "react";
import { type ErrorBody, type ResultAnswer, type DocumentSource, getStoredResult } from "@/web/api-client";
import { type ChunkView, filterChunks, toChunkViews } from "@/web/chunk-view";
import { chunksJsonl, resultJson, saveFile, storeRecords } from "@/web/downloads";
import { formatCount, plural } from "@/web/format";
import { formatName } from "@/web/labels";
import { ChunkList } from "./ChunkList";
import { CopyButton } from "./CopyButton";
import { PagePreview, PREVIEWABLE_TYPES } from "./PagePreview";
import { ResultSummary } from "./ResultSummary";
import { SizeHistogram } from "./SizeHistogram";
import { ChunkListSkeleton, SizeHistogramSkeleton } from "./skeletons";

/** A stored result that could not be fetched: its error body, for the alert. */
class StoredResultError extends Error {
  constructor(readonly body: ErrorBody) {
    super(body.message);
  }
}

/** The chunks of a result: inline, or fetched from its `download_url` (100 or more chunks, or a finished job). */
function useChunks(result: ResultAnswer) {
  const stored = !result.chunks && result.download_url ? result.download_url : null;
  const query = useQuery({
    queryKey: ["stored-result", stored],
    enabled: stored !== null,
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
    queryFn: async () => {
      const outcome = await getStoredResult(stored!);
      if (outcome.kind === "ok") return outcome.body;
      throw new StoredResultError(
        outcome.kind === "error"
          ? outcome.body
          : {
              success: false,
              error: "Payment Required",
              code: outcome.body.code,
              message: "The stored result asked for payment, which it never should.",
            },
      );
    },
  });
  if (!stored) return { chunks: result.chunks ?? [], loading: false, error: null };
  return {
    chunks: query.data?.chunks ?? null,
    loading: query.isPending,
    error: query.error,
    retry: () => query.refetch(),
  };
}

/**
 * Everything about one chunking result: the summary, a size histogram,
 * search, downloads, copying, the virtualised list of chunks, and with the
 * document at hand (a chosen PDF or image) each chunk shown on its page.
 * Used by the home page (free and paid sync tiers) and the job page.
 */
export default function ResultView({ result, source }: { result: ResultAnswer; source?: DocumentSource }) {
  const headingId = useId();
  const searchId = useId();
  const { chunks, loading, error, retry } = useChunks(result);
  const format = result.metadata.output_format;
  const views = useMemo(() => (chunks ? toChunkViews(chunks, format) : []), [chunks, format]);
  const [query, setQuery] = useState("");
  const deferredQuery = useDeferredValue(query);
  const shown = useMemo(() => filterChunks(views, deferredQuery), [views, deferredQuery]);
  const sizes = useMemo(() => views.map((chunk) => chunk.tokens ?? 0), [views]);
  const maxTokens = typeof result.metadata.max_tokens === "number" ? result.metadata.max_tokens : Math.max(1, ...sizes);
  const [announcement, setAnnouncement] = useState("");
  // A fresh string each time, so the same message twice is announced twice.
  const announce = (message: string) =>
    setAnnouncement((previous) => (previous === message ? `${message}\u00a0` : message));
  const records = chunks ? storeRecords(result, chunks) : null;
  const file = source?.kind === "file" && PREVIEWABLE_TYPES.has(result.metadata.content_type) ? source.file : null;
  const [previewing, setPreviewing] = useState<{ chunk: ChunkView; opener: HTMLElement } | null>(null);
  const showOnPage = useCallback((chunk: ChunkView, opener: HTMLElement) => setPreviewing({ chunk, opener }), []);

  return (
    <section aria-labelledby={headingId} className="space-y-5" data-testid="result-view">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id={headingId} tabIndex={-1} className="text-xl font-semibold tracking-tight text-fg">
          Chunks of <span className="break-all">{result.metadata.filename}</span>
        </h2>
        {result.expires_in && result.download_url ? (
          <p className="text-sm text-muted">
            Stored for {result.expires_in} at{" "}
            <a href={result.download_url} className="font-mono text-accent underline underline-offset-4">
              {result.result_id ?? "its download URL"}
            </a>
          </p>
        ) : null}
      </div>

      <ResultSummary result={result} />

      {error ? (
        <div role="alert" className="rounded-xl border border-danger bg-danger-soft p-4 text-sm text-fg">
          <p className="font-semibold text-danger">The chunks could not be loaded.</p>
          <p className="mt-1">
            {error instanceof StoredResultError
              ? error.body.message
              : "The service could not be reached. Check your connection and try again."}
          </p>
          {retry ? (
            <button
              type="button"
              onClick={() => void retry()}
              className="mt-3 rounded-md border border-line bg-surface px-3 py-1.5 font-medium hover:bg-surface-2"
            >
              Try again
            </button>
          ) : null}
        </div>
      ) : loading || !chunks ? (
        <div aria-busy="true" aria-label="Loading the chunks" className="space-y-5">
          <SizeHistogramSkeleton />
          <div className="h-[4.5rem] animate-pulse rounded-xl border border-line bg-surface" />
          <ChunkListSkeleton />
        </div>
      ) : (
        <>
          <SizeHistogram sizes={sizes} maxTokens={maxTokens} />

          <div className="flex flex-col gap-3 rounded-xl border border-line bg-surface p-4 lg:flex-row lg:items-end">
            <div className="min-w-0 flex-1">
              <label htmlFor={searchId} className="block text-sm font-medium text-fg">
                Search chunks
              </label>
              <input
                id={searchId}
                type="search"
                value={query}
                onChange={(event) => setQuery(event.currentTarget.value)}
                placeholder="Words in the text, sections, summaries or entities"
                autoComplete="off"
                className="mt-1.5 block h-10 w-full rounded-lg border border-line-strong bg-surface px-3 text-base text-fg placeholder:text-muted/70"
              />
            </div>
            <div className="flex flex-wrap items-center gap-2" role="group" aria-label="Download and copy">
              <DownloadButton onClick={() => saveFile(resultJson(result, chunks))} label="JSON" />
              <DownloadButton onClick={() => saveFile(chunksJsonl(result, chunks))} label="JSONL" />
              {records ? (
                <DownloadButton onClick={() => saveFile(records)} label={`${formatName(format)} (JSON)`} />
              ) : null}
              <CopyButton
                label="Copy all"
                text={() => JSON.stringify(chunks, null, 2)}
                announce={announce}
                announcement={`All ${plural(chunks.length, "chunk")} copied to the clipboard as JSON.`}
              />
            </div>
          </div>

          <p className="text-sm text-muted" aria-live="polite" data-testid="chunk-count">
            {deferredQuery.trim()
              ? `${plural(shown.length, "chunk")} of ${formatCount(views.length)} match “${deferredQuery.trim()}”`
              : `Showing all ${plural(views.length, "chunk")}`}
          </p>

          {shown.length ? (
            <ChunkList
              chunks={shown}
              format={format}
              announce={announce}
              onShowOnPage={file ? showOnPage : undefined}
            />
          ) : (
            <p className="rounded-xl border border-dashed border-line p-8 text-center text-muted">
              No chunk contains “{deferredQuery.trim()}”. Try fewer or other words.
            </p>
          )}
        </>
      )}

      <p aria-live="polite" role="status" className="sr-only">
        {announcement}
      </p>
      {file && previewing ? (
        <PagePreview
          file={file}
          contentType={result.metadata.content_type}
          chunk={previewing.chunk}
          onClose={() => {
            // The list is virtualised: the button that opened the page may have scrolled out and gone.
            if (previewing.opener.isConnected) previewing.opener.focus();
            setPreviewing(null);
          }}
        />
      ) : null}
    </section>
  );
}

function DownloadButton({ onClick, label }: { onClick: () => void; label: string }) {
  return (
    <button
      type="button"
      onClick={onClick}
      className="inline-flex items-center gap-1.5 rounded-md border border-line bg-surface px-2.5 py-1.5 text-sm font-medium text-fg hover:bg-surface-2"
    >
      <svg
        aria-hidden="true"
        viewBox="0 0 20 20"
        className="size-4"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.7"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        <path d="M10 3v10m0 0-4-4m4 4 4-4M4 16h12" />
      </svg>
      <span className="sr-only">Download </span>
      {label}
    </button>
  );
}
