import type { Problem } from "@/web/problems";

/** An error the page met, in an alert region so screen readers speak it at once. */
export function ProblemAlert({ problem, onDismiss }: { problem: Problem; onDismiss?: () => void }) {
  return (
    <div
      role="alert"
      data-code={problem.code}
      className="flex gap-3 rounded-xl border border-danger/60 bg-danger-soft p-4 text-sm text-fg"
    >
      <svg aria-hidden="true" viewBox="0 0 20 20" className="mt-0.5 size-5 shrink-0 text-danger" fill="currentColor">
        <path
          fillRule="evenodd"
          d="M10 18a8 8 0 1 0 0-16 8 8 0 0 0 0 16Zm-.75-11.5a.75.75 0 0 1 1.5 0v4a.75.75 0 0 1-1.5 0v-4ZM10 14.75a1 1 0 1 0 0-2 1 1 0 0 0 0 2Z"
          clipRule="evenodd"
        />
      </svg>
      <div className="min-w-0 flex-1">
        <p className="font-semibold text-danger">{problem.title}</p>
        <p className="mt-1 break-words">{problem.message}</p>
        {problem.hint ? <p className="mt-1 break-words text-muted">{problem.hint}</p> : null}
      </div>
      {onDismiss ? (
        <button
          type="button"
          onClick={onDismiss}
          className="size-8 shrink-0 rounded-md text-muted hover:bg-surface hover:text-fg"
          aria-label="Dismiss the error"
        >
          <span aria-hidden="true">×</span>
        </button>
      ) : null}
    </div>
  );
}
