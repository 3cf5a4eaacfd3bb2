import type { ApiInfo } from "@/web/api-client";
import { tierName } from "@/web/labels";

const ROWS = 5;

/** The tiers as `GET /api` lists them on this server: price, endpoints, method, availability. */
export function TierTable({ api }: { api: ApiInfo | null }) {
  return (
    // Focusable so a keyboard can scroll the table sideways on a narrow screen.
    <div tabIndex={0} role="region" aria-label="Table of tiers (scrolls sideways)" className="overflow-x-auto rounded-xl border border-line bg-surface">
      <table className="w-full min-w-[42rem] border-collapse text-left text-sm" aria-busy={api ? undefined : true}>
        <caption className="sr-only">Tiers, their prices per request, endpoints and methods</caption>
        <thead>
          <tr className="border-b border-line text-xs uppercase tracking-wider text-muted">
            <th scope="col" className="px-4 py-3 font-semibold">Tier</th>
            <th scope="col" className="px-4 py-3 font-semibold">Price per request</th>
            <th scope="col" className="px-4 py-3 font-semibold">Upload endpoints</th>
            <th scope="col" className="px-4 py-3 font-semibold">Method</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-line">
          {api
            ? api.tiers.map((tier) => (
                <tr key={tier.id} className="align-top">
                  <th scope="row" className="px-4 py-3 font-semibold text-fg">
                    <span className="block">{tierName(tier.id)}</span>
                    <code className="font-mono text-xs font-normal text-muted">{tier.id}</code>
                    {tier.mode === "async" ? <span className="mt-1 block text-xs font-medium text-warning">async job</span> : null}
                    {tier.available ? null : <span className="mt-1 block text-xs font-medium text-danger">not available here</span>}
                  </th>
                  <td className="px-4 py-3 tabular-nums text-fg">
                    {tier.price_base_units === 0 ? (
                      <>
                        Free <span className="block text-xs text-muted">{api.limits.free_pages_per_day} pages a day</span>
                      </>
                    ) : (
                      <>
                        ${tier.price_usd} <span className="text-muted">USDC</span>
                        <span className="block font-mono text-xs text-muted">{tier.price_base_units} base units</span>
                      </>
                    )}
                  </td>
                  <td className="px-4 py-3">
                    {tier.endpoints.map((endpoint) => (
                      <code key={endpoint} className="block whitespace-nowrap font-mono text-xs text-fg">
                        POST {new URL(endpoint).pathname}
                      </code>
                    ))}
                  </td>
                  <td className="px-4 py-3 text-muted">{tier.method}</td>
                </tr>
              ))
            : Array.from({ length: ROWS }, (_, i) => (
                <tr key={i} aria-hidden="true">
                  <td colSpan={4} className="px-4 py-3">
                    <div className="h-[3.25rem] animate-pulse rounded-md bg-surface-2" />
                  </td>
                </tr>
              ))}
        </tbody>
      </table>
    </div>
  );
}
