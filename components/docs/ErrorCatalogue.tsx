import type { OpenApiDoc } from "@/web/openapi-reference";
import { InlineCode } from "./InlineText";

/** Every error code of the API, by status, from the document's catalogue. */
export function ErrorCatalogue({ doc }: { doc: OpenApiDoc }) {
  const entries = doc["x-error-codes"] ?? [];
  const statuses = [...new Set(entries.map((entry) => entry.status))].sort((a, b) => a - b);
  return (
    <div className="space-y-4">
      {statuses.map((status) => (
        <section key={status} aria-labelledby={`errors-${status}`} className="rounded-xl border border-line bg-surface p-4 sm:p-5">
          <h3 id={`errors-${status}`} className="flex items-baseline gap-2 text-sm font-semibold text-fg">
            <span className="font-mono font-bold">{status}</span>
            <span>{entries.find((entry) => entry.status === status)?.error}</span>
          </h3>
          <dl className="mt-3 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[minmax(12rem,max-content)_minmax(0,1fr)]">
            {entries
              .filter((entry) => entry.status === status)
              .map((entry) => (
                <div key={entry.code} className="contents">
                  <dt>
                    <code className="break-all font-mono text-xs font-semibold text-fg">{entry.code}</code>
                  </dt>
                  <dd className="mb-2 text-muted sm:mb-0">
                    <InlineCode text={entry.when} />
                  </dd>
                </div>
              ))}
          </dl>
        </section>
      ))}
    </div>
  );
}
