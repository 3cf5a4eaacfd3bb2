"use client";

import { type DragEvent, useId, useRef, useState } from "react";
import { formatBytes } from "@/web/format";
import { type PageEstimate, describePages } from "@/web/pages";
import { ACCEPTED_EXTENSIONS } from "@/web/source";

interface Props {
  file: File | null;
  estimate: PageEstimate | null;
  maxUploadBytes: number | null;
  onFile: (file: File | null) => void;
  /** Shown under the zone and tied to the input (aria-describedby), e.g. "too large". */
  problem?: string | null;
  disabled?: boolean;
}

/**
 * A real file input whose label is the drop zone: clicking, Enter/Space on
 * the focused input and dropping a file all land in `onFile`. The row under
 * it has a fixed height, so choosing a file moves nothing on the page.
 */
export function FileDropZone({ file, estimate, maxUploadBytes, onFile, problem, disabled }: Props) {
  const inputId = useId();
  const hintId = useId();
  const problemId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    if (disabled) return;
    const dropped = event.dataTransfer.files[0];
    if (dropped) onFile(dropped);
  };

  return (
    <div>
      <label
        htmlFor={inputId}
        onDragEnter={(event) => {
          event.preventDefault();
          if (!disabled) setDragging(true);
        }}
        onDragOver={(event) => event.preventDefault()}
        onDragLeave={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={onDrop}
        data-dragging={dragging || undefined}
        className={`flex min-h-36 cursor-pointer flex-col items-center justify-center gap-2 rounded-xl border-2 border-dashed px-4 py-6 text-center transition-colors has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-ring ${
          dragging
            ? "border-accent bg-accent-soft"
            : problem
              ? "border-danger bg-surface"
              : "border-line-strong bg-surface hover:border-accent hover:bg-accent-soft/50"
        } ${disabled ? "cursor-not-allowed opacity-60" : ""}`}
      >
        <svg
          aria-hidden="true"
          viewBox="0 0 24 24"
          className="size-8 text-accent"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.6"
          strokeLinecap="round"
          strokeLinejoin="round"
        >
          <path d="M12 15V4m0 0-4 4m4-4 4 4" />
          <path d="M4 15v3a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-3" />
        </svg>
        <span className="text-base text-fg">
          Drop a document here, or{" "}
          <span className="font-semibold text-accent underline underline-offset-4">choose a file</span>
        </span>
        <span id={hintId} className="text-sm text-muted">
          PDF (scanned too), DOCX, ODT, RTF, EPUB, e-mail (EML, MSG), HTML, Markdown, plain text or an image (PNG, JPEG,
          TIFF, WebP)
          {maxUploadBytes ? `, up to ${formatBytes(maxUploadBytes)}` : ""}
        </span>
        <input
          ref={input}
          id={inputId}
          type="file"
          accept={ACCEPTED_EXTENSIONS}
          disabled={disabled}
          aria-describedby={`${hintId}${problem ? ` ${problemId}` : ""}`}
          aria-invalid={problem ? true : undefined}
          className="sr-only"
          onChange={(event) => {
            const chosen = event.currentTarget.files?.[0];
            if (chosen) onFile(chosen);
            // Choosing the same file again after removing it must fire a change too.
            event.currentTarget.value = "";
          }}
        />
      </label>

      <div
        className="mt-3 flex h-16 items-center gap-3 rounded-lg border border-line bg-surface-2 px-3"
        data-testid="file-summary"
      >
        {file ? (
          <>
            <FileIcon />
            <div className="min-w-0 flex-1">
              <p className="truncate font-medium text-fg" title={file.name}>
                {file.name}
              </p>
              <p className="text-sm text-muted">
                {formatBytes(file.size)} · {estimate ? describePages(estimate) : "counting pages…"}
              </p>
            </div>
            <button
              type="button"
              disabled={disabled}
              onClick={() => {
                onFile(null);
                input.current?.focus();
              }}
              className="shrink-0 rounded-md px-2.5 py-1.5 text-sm font-medium text-muted hover:bg-surface hover:text-fg disabled:opacity-50"
            >
              Remove<span className="sr-only"> {file.name}</span>
            </button>
          </>
        ) : (
          <p className="text-sm text-muted">No file chosen yet.</p>
        )}
      </div>
      {problem ? (
        <p id={problemId} className="mt-2 text-sm font-medium text-danger">
          {problem}
        </p>
      ) : null}
    </div>
  );
}

function FileIcon() {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 24 24"
      className="size-8 shrink-0 text-muted"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
      strokeLinejoin="round"
    >
      <path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8l-5-5Z" />
      <path d="M14 3v5h5M9 13h6M9 17h4" strokeLinecap="round" />
    </svg>
  );
}
