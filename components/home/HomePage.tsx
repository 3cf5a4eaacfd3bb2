"use client";

import type { ApiInfo } from "@/web/api-client";
import { ProblemAlert } from "./ProblemAlert";
import { useApiInfo } from "./useApiInfo";
import { ChunkWorkbench } from "./ChunkWorkbench";

export function HomePage() {
  const { api, problem: apiProblem, retry: retryApi, retrying } = useApiInfo();
  return (
    <div className="mx-auto max-w-5xl px-4 pb-8 pt-10 sm:px-6 sm:pt-14">
      <Hero api={api} />
      {apiProblem ? (
        <div className="mt-8 space-y-3">
          <ProblemAlert problem={{ ...apiProblem, title: "The tiers and limits could not be loaded" }} />
          <button
            type="button"
            onClick={retryApi}
            disabled={retrying}
            className="rounded-lg border border-line bg-surface px-4 py-2 text-sm font-medium hover:bg-surface-2 disabled:opacity-60"
          >
            {retrying ? "Trying again…" : "Try again"}
          </button>
        </div>
      ) : (
        <ChunkWorkbench api={api} />
      )}
    </div>
  );
}

function Hero({ api }: { api: ApiInfo | null }) {
  return (
    <div className="max-w-3xl">
      <h1 className="text-3xl font-bold tracking-tight text-fg sm:text-4xl">Chunk documents for retrieval</h1>
      <p className="mt-3 text-base leading-relaxed text-muted sm:text-lg">
        Drop a PDF (scanned or not), Word, HTML, Markdown or text file, or an image of a page, and get chunks sized in
        tokens, ready for your vector store. The free tier needs nothing; paid tiers settle per document in USDC on
        Solana.
      </p>
      {/* Height reserved before GET /api answers, so the form below never moves. */}
      <p className="mt-4 h-7 text-sm">
        {api?.localnet ? (
          <span className="inline-flex h-7 items-center gap-2 whitespace-nowrap rounded-full bg-warning-soft px-3 font-medium text-warning">
            <span aria-hidden="true" className="size-2 shrink-0 rounded-full bg-current" />
            Local test chain: no real money
          </span>
        ) : null}
      </p>
    </div>
  );
}
