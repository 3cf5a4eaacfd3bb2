import { z } from "zod";
import type { HealthReport } from "@/lib/api-schema";
import type { Services } from "@/lib/services/types";

const PING_TIMEOUT_MS = 2000;

async function check(probe: () => Promise<void>): Promise<{ ok: boolean; error?: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
      }),
    ]);
    return { ok: true };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `{status: "healthy", network, payments}`, or "degraded" with every
 * dependency's check when one fails. `payments` counts paid requests with and
 * without the 402's reference, so an operator sees when strict references
 * would refuse nobody.
 */
export async function checkHealth(
  services: Pick<Services, "config" | "store" | "chain" | "payments">,
): Promise<HealthReport> {
  const [store, chain, payments] = await Promise.all([
    check(() => services.store.ping()),
    check(async () => {
      await services.chain.call("getSlot", [{ commitment: "confirmed" }], z.number());
      await services.payments.assertChainIdentity();
    }),
    services.payments.referenceUse().catch(() => undefined),
  ]);
  const healthy = store.ok && chain.ok;
  return {
    status: healthy ? ("healthy" as const) : ("degraded" as const),
    network: services.config.network,
    ...(payments ? { payments } : {}),
    ...(healthy
      ? {}
      : { checks: { store: { kind: services.store.kind, ...store }, chain: { rpc: "solana", ...chain } } }),
  };
}
