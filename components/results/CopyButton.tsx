"use client";

import { useEffect, useRef, useState } from "react";
import { copyText } from "@/web/clipboard";

interface Props {
  /** Built on click, so copying all of a large result costs nothing until asked. */
  text: () => string;
  label: string;
  /** Extra words in the accessible name ("chunk #12"), so each copy button has its own. */
  srSuffix?: string;
  /** Told what happened, for the page's live region. */
  announce: (message: string) => void;
  announcement: string;
  className?: string;
}

/** Copies, then reads "Copied" for two seconds (the width is kept so nothing around it moves). */
export function CopyButton({ text, label, srSuffix, announce, announcement, className = "" }: Props) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const onClick = async () => {
    const ok = await copyText(text());
    setState(ok ? "copied" : "failed");
    announce(
      ok
        ? announcement
        : "Copying failed: your browser did not allow access to the clipboard. Select the text and copy it instead.",
    );
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState("idle"), 2000);
  };

  return (
    <button
      type="button"
      onClick={() => void onClick()}
      className={`inline-grid items-center rounded-md border border-line bg-surface px-2.5 py-1.5 text-sm font-medium text-fg transition-colors hover:bg-surface-2 ${className}`}
    >
      {/* Both labels share one grid cell, so the button is as wide as the longer one; the hidden one (visibility) is out of the accessible name too. */}
      <span className={`col-start-1 row-start-1 ${state === "idle" ? "" : "invisible"}`}>{label}</span>
      <span
        className={`col-start-1 row-start-1 ${state === "copied" ? "text-success" : state === "failed" ? "text-danger" : "invisible"}`}
      >
        {state === "failed" ? "Failed" : "Copied ✓"}
      </span>
      {srSuffix ? <span className="sr-only"> {srSuffix}</span> : null}
    </button>
  );
}
