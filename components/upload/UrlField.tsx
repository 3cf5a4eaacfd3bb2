"use client";

import { useId } from "react";

interface Props {
  url: string;
  onChange: (url: string) => void;
  problem?: string | null;
  disabled?: boolean;
}

export function UrlField({ url, onChange, problem, disabled }: Props) {
  const id = useId();
  const hintId = useId();
  const problemId = useId();
  return (
    <div className="min-h-36">
      <label htmlFor={id} className="block text-sm font-medium text-fg">
        Document URL
      </label>
      <input
        id={id}
        type="url"
        inputMode="url"
        autoComplete="url"
        spellCheck={false}
        placeholder="https://example.com/paper.pdf"
        value={url}
        disabled={disabled}
        onChange={(event) => onChange(event.currentTarget.value)}
        aria-describedby={`${hintId}${problem ? ` ${problemId}` : ""}`}
        aria-invalid={problem ? true : undefined}
        className={`mt-1.5 block w-full rounded-lg border bg-surface px-3 py-2.5 text-base text-fg placeholder:text-muted/70 disabled:opacity-60 ${problem ? "border-danger" : "border-line-strong"}`}
      />
      <p id={hintId} className="mt-2 text-sm text-muted">
        A public PDF, DOCX, ODT, RTF, EPUB, e-mail, HTML, Markdown or text file, or an image of text. The service
        fetches it and counts its pages.
      </p>
      {problem ? (
        <p id={problemId} className="mt-2 text-sm font-medium text-danger">
          {problem}
        </p>
      ) : null}
    </div>
  );
}
