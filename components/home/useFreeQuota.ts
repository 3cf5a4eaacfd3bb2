"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { type FreeQuota, type RateLimit, getFreeQuota } from "@/web/api-client";

const KEY = ["free-quota"] as const;

/** The free pages left today: from `GET /api/quota` at first, then from each answer's `X-RateLimit-*` headers. */
export function useFreeQuota() {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: KEY,
    queryFn: async (): Promise<FreeQuota | null> => {
      const outcome = await getFreeQuota();
      // Unknown is shown as unknown; the chunking answer will tell.
      return outcome.kind === "ok" ? outcome.body : null;
    },
  });
  const update = useCallback(
    (rateLimit: RateLimit | undefined) => {
      if (!rateLimit) return;
      const status: FreeQuota = {
        limit: rateLimit.limit,
        remaining: rateLimit.remaining,
        reset: rateLimit.reset,
      };
      client.setQueryData(KEY, status);
    },
    [client],
  );
  return { quota: query.data ?? null, loading: query.isPending, update };
}
