import type { ChunkOptions, ResultAnswer, DocumentSource, TierInfo } from "@/web/api-client";
import type { Problem } from "@/web/problems";

/**
 * The home page's stages. Choosing (the form is live) → chunking (a free
 * request in flight) or paying (the lazily loaded paid flow owns the request
 * and the form is locked, since a payment is bound to one document and one
 * set of options) → done (a result under the form, which is live again).
 * A problem is shown beside whichever stage the page went back to.
 */
export type Stage =
  | { name: "choosing" }
  | { name: "chunking"; request: RunRequest }
  | { name: "paying"; request: RunRequest }
  | { name: "done"; result: ResultAnswer };

export interface RunRequest {
  tier: TierInfo;
  source: DocumentSource;
  options: ChunkOptions;
}

export interface HomeState {
  stage: Stage;
  problem: Problem | null;
  /** Kept while a new run is being chosen, so the last chunks stay readable. */
  lastResult: ResultAnswer | null;
  /** The document the last result came from, for its page preview (a chosen file; a URL the browser does not fetch). */
  lastSource: DocumentSource | null;
  /** Counts results, so each new one gets a fresh results view (search and expanded rows reset). */
  resultCount: number;
}

export type HomeEvent =
  | { type: "run_free"; request: RunRequest }
  | { type: "start_paying"; request: RunRequest }
  | { type: "succeeded"; result: ResultAnswer }
  | { type: "failed"; problem: Problem }
  | { type: "cancel_paying" }
  | { type: "dismiss_problem" };

export const initialHomeState: HomeState = {
  stage: { name: "choosing" },
  problem: null,
  lastResult: null,
  lastSource: null,
  resultCount: 0,
};

export function homeReducer(state: HomeState, event: HomeEvent): HomeState {
  switch (event.type) {
    case "run_free":
      return state.stage.name === "chunking" || state.stage.name === "paying"
        ? state
        : { ...state, stage: { name: "chunking", request: event.request }, problem: null };
    case "start_paying":
      return state.stage.name === "chunking" || state.stage.name === "paying"
        ? state
        : { ...state, stage: { name: "paying", request: event.request }, problem: null };
    case "succeeded":
      return {
        stage: { name: "done", result: event.result },
        problem: null,
        lastResult: event.result,
        lastSource:
          state.stage.name === "chunking" || state.stage.name === "paying" ? state.stage.request.source : null,
        resultCount: state.resultCount + 1,
      };
    case "failed":
      return { ...state, stage: { name: "choosing" }, problem: event.problem };
    case "cancel_paying":
      return state.stage.name === "paying" ? { ...state, stage: { name: "choosing" } } : state;
    case "dismiss_problem":
      return { ...state, problem: null };
  }
}

/** The form is locked while a request (free) or a payment (paid) is under way. */
export const isBusy = (stage: Stage) => stage.name === "chunking" || stage.name === "paying";
