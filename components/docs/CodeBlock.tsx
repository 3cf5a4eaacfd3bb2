"use client";

import { useEffect, useState } from "react";
import { copyText } from "@/web/clipboard";

const LANGUAGE_NAMES: Record<string, string> = { sh: "Shell", ts: "TypeScript", json: "JSON" };

/** A comment line of the examples' languages, shown quieter than the code. */
const isComment = (line: string) => /^\s*(#|\/\/)/.test(line);

/**
 * A block of code with a copy button. The block itself is focusable so a
 * keyboard can scroll it sideways; the result of copying is announced.
 */
export function CodeBlock({ code, language, label }: { code: string; language: string; label: string }) {
  const [copied, setCopied] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (copied === "idle") return;
    const timer = setTimeout(() => setCopied("idle"), 2000);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = async () => setCopied((await copyText(code)) ? "copied" : "failed");

  return (
    <div className="min-w-0 overflow-hidden rounded-xl border border-line bg-surface-2">
      <div className="flex items-center justify-between gap-2 border-b border-line py-1.5 pl-4 pr-1.5">
        <span className="text-xs font-medium uppercase tracking-wide text-muted">{LANGUAGE_NAMES[language] ?? language}</span>
        <button
          type="button"
          onClick={() => void copy()}
          aria-label={`Copy: ${label}`}
          className="inline-flex h-8 items-center gap-1.5 rounded-md px-2.5 text-xs font-medium text-muted transition-colors hover:bg-surface hover:text-fg"
        >
          <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="size-4">
            {copied === "copied" ? (
              <path fillRule="evenodd" d="M16.7 5.3a1 1 0 0 1 0 1.4l-8 8a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.4L8 12.58l7.3-7.3a1 1 0 0 1 1.4 0Z" clipRule="evenodd" />
            ) : (
              <path d="M7 3.5A1.5 1.5 0 0 1 8.5 2h6A1.5 1.5 0 0 1 16 3.5v9a1.5 1.5 0 0 1-1.5 1.5h-6A1.5 1.5 0 0 1 7 12.5v-9ZM4 6.5A1.5 1.5 0 0 1 5.5 5H6v7.5A2.5 2.5 0 0 0 8.5 15H13v.5a1.5 1.5 0 0 1-1.5 1.5h-6A1.5 1.5 0 0 1 4 15.5v-9Z" />
            )}
          </svg>
          <span aria-hidden="true">{copied === "copied" ? "Copied" : copied === "failed" ? "Press Ctrl+C" : "Copy"}</span>
        </button>
      </div>
      {/* A labelled, focusable region: long lines scroll sideways instead of wrapping. */}
      <pre tabIndex={0} aria-label={label} className="overflow-x-auto px-4 py-3.5 font-mono text-[13px] leading-relaxed text-fg">
        <code>
          {code.split("\n").map((line, i) => (
            <span key={i} className={`block min-h-[1lh] ${isComment(line) ? "text-muted" : ""}`}>
              {line}
            </span>
          ))}
        </code>
      </pre>
      <span role="status" className="sr-only">
        {copied === "copied" ? "Copied to the clipboard." : copied === "failed" ? "Copying failed: select the code and copy it." : ""}
      </span>
    </div>
  );
}
