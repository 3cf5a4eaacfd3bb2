import type { ReactNode } from "react";
import type { ResultAnswer } from "@/web/api-client";
import { formatCount, formatUsdc, shortId } from "@/web/format";
import { tierName } from "@/web/labels";

/** The result at a glance: what was made, how, from how many pages, and what it cost. */
export function ResultSummary({ result }: { result: ResultAnswer }) {
  const { metadata, payment } = result;
  const paid = payment.amount > 0;
  const ocrPages = metadata.ocr_pages?.length ?? 0;
  return (
    <div className="space-y-4">
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5">
        <Figure term="Chunks" value={formatCount(result.total_chunks)} />
        <Figure term="Tier" value={tierName(result.tier)} />
        <Figure term="Method" value={metadata.method} code />
        <Figure
          term="Pages"
          value={formatCount(metadata.estimated_pages)}
          detail={ocrPages > 0 ? <span className="block text-xs">{formatCount(ocrPages)} read by OCR</span> : null}
        />
        <Figure
          wide
          term="Payment"
          value={paid ? `${formatUsdc(payment.amount)} ${payment.asset}` : "Free"}
          detail={
            payment.transaction ? (
              <span className="block truncate font-mono text-xs" title={payment.transaction}>
                <span className="sr-only">Transaction </span>
                {shortId(payment.transaction)}
              </span>
            ) : null
          }
        />
      </dl>
      {result.document_summary ? (
        <div className="rounded-xl border border-line bg-accent-soft p-4">
          <h3 className="text-sm font-semibold text-fg">Document summary</h3>
          <p className="mt-1 text-sm leading-relaxed text-fg">{result.document_summary}</p>
        </div>
      ) : null}
    </div>
  );
}

/** `code`: an identifier shown whole (wrapped at any character), never cut short. */
function Figure({
  term,
  value,
  detail,
  wide,
  code,
}: {
  term: string;
  value: string;
  detail?: ReactNode;
  wide?: boolean;
  code?: boolean;
}) {
  return (
    <div
      className={`min-w-0 rounded-xl border border-line bg-surface px-4 py-3 ${wide ? "col-span-2 sm:col-span-1" : ""}`}
    >
      <dt className="text-xs font-medium uppercase tracking-wide text-muted">{term}</dt>
      <dd
        className={`mt-1 font-semibold text-fg ${code ? "break-all font-mono text-sm leading-6" : "truncate text-lg"}`}
        title={value}
      >
        {value}
        {detail ? <span className="mt-0.5 block text-muted">{detail}</span> : null}
      </dd>
    </div>
  );
}
