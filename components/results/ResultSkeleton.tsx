import { ChunkListSkeleton, SizeHistogramSkeleton } from "./skeletons";

/** The shape of a result before it exists, so the page does not jump when it lands. */
export function ResultSkeleton({ label }: { label: string }) {
  return (
    <div role="status" aria-label={label} aria-busy="true" className="space-y-5">
      <div className="h-7 w-72 max-w-full animate-pulse rounded bg-surface-2" />
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5">
        {Array.from({ length: 5 }, (_, i) => (
          <div key={i} className="h-[4.75rem] animate-pulse rounded-xl border border-line bg-surface" />
        ))}
      </div>
      <SizeHistogramSkeleton />
      <div className="h-[4.5rem] animate-pulse rounded-xl border border-line bg-surface" />
      <ChunkListSkeleton />
      <span className="sr-only">{label}…</span>
    </div>
  );
}
