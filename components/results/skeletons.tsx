/**
 * Placeholders shaped like the results view's parts, kept apart from the
 * parts themselves so showing one does not load the virtual list.
 */

export function ChunkListSkeleton({ rows = 3 }: { rows?: number }) {
  return (
    <div aria-hidden="true" className="space-y-3">
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="h-56 animate-pulse rounded-xl border border-line bg-surface p-4">
          <div className="h-4 w-48 rounded bg-surface-2" />
          <div className="mt-5 space-y-2">
            <div className="h-3 w-full rounded bg-surface-2" />
            <div className="h-3 w-11/12 rounded bg-surface-2" />
            <div className="h-3 w-4/5 rounded bg-surface-2" />
          </div>
        </div>
      ))}
    </div>
  );
}

/** The same frame with no numbers yet, so the real one takes its place without moving anything. */
export function SizeHistogramSkeleton() {
  return (
    <div aria-hidden="true" className="rounded-xl border border-line bg-surface p-4">
      <div className="text-sm font-semibold text-fg">Chunk sizes (tokens)</div>
      <div className="mt-3 h-28 animate-pulse rounded bg-surface-2" />
      <div className="mt-1 border-t border-line pt-1 text-xs">&nbsp;</div>
    </div>
  );
}
