import { useId } from "react";
import { formatCount, plural } from "@/web/format";
import { type Bin, histogram, sizeStats } from "@/web/histogram";

/**
 * Chunk sizes in tokens, in bins up to the `max_tokens` used. Bars are
 * divs; screen readers get the same numbers as text (the image's label and
 * the caption), not a picture.
 */
export function SizeHistogram({ sizes, maxTokens }: { sizes: readonly number[]; maxTokens: number }) {
  const captionId = useId();
  const bins = histogram(sizes, maxTokens);
  const stats = sizeStats(sizes);
  const tallest = Math.max(1, ...bins.map((bin) => bin.count));
  const description = bins.map((bin) => `${binLabel(bin)} tokens: ${plural(bin.count, "chunk")}`).join("; ");

  return (
    <figure aria-labelledby={captionId} className="rounded-xl border border-line bg-surface p-4">
      <figcaption id={captionId} className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <span className="text-sm font-semibold text-fg">Chunk sizes (tokens)</span>
        {stats ? (
          <span className="text-xs tabular-nums text-muted">
            min {formatCount(stats.min)} · median {formatCount(stats.median)} · max {formatCount(stats.max)} · limit{" "}
            {formatCount(maxTokens)}
          </span>
        ) : null}
      </figcaption>
      <div
        role="img"
        aria-label={`Histogram of ${plural(sizes.length, "chunk")} by size. ${description}.`}
        className="mt-3 flex h-28 items-end gap-1"
      >
        {bins.map((bin) => (
          <div
            key={bin.from}
            className="flex h-full flex-1 flex-col justify-end"
            title={`${binLabel(bin)} tokens: ${plural(bin.count, "chunk")}`}
          >
            <div
              className="rounded-t-sm bg-bar"
              style={{ height: `${bin.count === 0 ? 0 : Math.max(3, (bin.count / tallest) * 100)}%` }}
            />
          </div>
        ))}
      </div>
      <div
        aria-hidden="true"
        className="mt-1 flex justify-between border-t border-line pt-1 text-xs tabular-nums text-muted"
      >
        <span>0</span>
        <span>{formatCount(Math.round(maxTokens / 2))}</span>
        <span>{formatCount(maxTokens)}</span>
      </div>
    </figure>
  );
}

const binLabel = (bin: Bin) => `${formatCount(bin.from)}–${formatCount(bin.to)}`;
