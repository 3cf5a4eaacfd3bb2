"use client";

import { useQuery } from "@tanstack/react-query";
import { ApiUnreachable, getApiInfo } from "@/web/api-client";
import { type Problem, problemFromError, unreachableProblem } from "@/web/problems";

class ApiInfoError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.message);
  }
}

/** `GET /api`: tiers, prices, defaults and limits, the page's only source for them. */
export function useApiInfo() {
  const query = useQuery({
    queryKey: ["api-info"],
    staleTime: 5 * 60_000,
    queryFn: async () => {
      try {
        const outcome = await getApiInfo();
        if (outcome.kind === "ok") return outcome.body;
        throw new ApiInfoError(
          outcome.kind === "error" ? problemFromError(outcome.status, outcome.body) : problemFromError(402, {}),
        );
      } catch (error) {
        if (error instanceof ApiUnreachable) throw new ApiInfoError(unreachableProblem());
        throw error;
      }
    },
  });
  const problem = query.error
    ? query.error instanceof ApiInfoError
      ? query.error.problem
      : unreachableProblem()
    : null;
  return { api: query.data ?? null, problem, retry: () => void query.refetch(), retrying: query.isFetching };
}
