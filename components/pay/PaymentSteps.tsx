"use client";

import type { ReactNode } from "react";
import type { StepId } from "@/components/pay/usePaidRun";

type StepStatus = "pending" | "active" | "done" | "failed";

export interface Step {
  id: StepId;
  title: string;
  /** One line under the title: the amount, the wallet, the signature... (space is reserved, so nothing jumps). */
  detail: ReactNode;
  status: StepStatus;
  /** Active and working (a spinner), rather than waiting for the person. */
  busy?: boolean;
}

const STATUS_TEXT: Record<StepStatus, string> = {
  pending: "not started",
  active: "in progress",
  done: "done",
  failed: "stopped",
};

/** The paid run's steps, in order, each marked for what it is now (also in words, for screen readers). */
export function PaymentSteps({ steps }: { steps: Step[] }) {
  return (
    <ol className="min-w-0" aria-label="Payment steps">
      {steps.map((step, index) => (
        <li
          key={step.id}
          className="relative flex gap-3.5 pb-4 last:pb-0"
          aria-current={step.status === "active" ? "step" : undefined}
        >
          {index < steps.length - 1 ? (
            <span
              aria-hidden="true"
              className={`absolute left-[15px] top-8 bottom-0 w-0.5 rounded ${step.status === "done" ? "bg-accent" : "bg-line"}`}
            />
          ) : null}
          <StepMarker status={step.status} busy={step.busy ?? false} number={index + 1} />
          <div className="min-w-0 flex-1 pt-1">
            <p className={`text-sm font-semibold ${step.status === "pending" ? "text-muted" : "text-fg"}`}>
              {step.title}
              <span className="sr-only">: {STATUS_TEXT[step.status]}</span>
            </p>
            <p className="min-h-5 truncate text-sm text-muted">{step.detail}</p>
          </div>
        </li>
      ))}
    </ol>
  );
}

function StepMarker({ status, busy, number }: { status: StepStatus; busy: boolean; number: number }) {
  const ring = "relative z-10 flex size-8 shrink-0 items-center justify-center rounded-full text-sm font-semibold";
  if (status === "done")
    return (
      <span aria-hidden="true" className={`${ring} bg-accent text-accent-fg`}>
        <svg
          viewBox="0 0 20 20"
          className="size-4"
          fill="none"
          stroke="currentColor"
          strokeWidth="2.5"
          strokeLinecap="round"
          strokeLinejoin="round"
        >
          <path d="M5 10.5l3.2 3.2L15 7" />
        </svg>
      </span>
    );
  if (status === "failed")
    return (
      <span aria-hidden="true" className={`${ring} bg-danger-soft text-danger ring-2 ring-danger`}>
        !
      </span>
    );
  if (status === "active")
    return (
      <span aria-hidden="true" className={`${ring} bg-accent-soft text-accent ring-2 ring-accent`}>
        {busy ? <Spinner /> : number}
      </span>
    );
  return (
    <span aria-hidden="true" className={`${ring} border border-line-strong bg-surface text-muted`}>
      {number}
    </span>
  );
}

export function Spinner({ className = "size-4" }: { className?: string }) {
  return (
    <svg viewBox="0 0 24 24" className={`${className} animate-spin`} fill="none" aria-hidden="true">
      <circle cx="12" cy="12" r="9" stroke="currentColor" strokeOpacity="0.25" strokeWidth="3" />
      <path d="M21 12a9 9 0 0 0-9-9" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
    </svg>
  );
}
