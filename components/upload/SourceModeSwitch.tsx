"use client";

import type { SourceDraft } from "@/web/source";

const MODES: { value: SourceDraft["mode"]; label: string }[] = [
  { value: "file", label: "Upload a file" },
  { value: "url", label: "From a URL" },
];

/** Two radios styled as a segmented control: arrow keys move between them, as in any radio group. */
export function SourceModeSwitch({
  mode,
  onChange,
  disabled,
}: {
  mode: SourceDraft["mode"];
  onChange: (mode: SourceDraft["mode"]) => void;
  disabled?: boolean;
}) {
  return (
    <fieldset className="inline-flex rounded-lg border border-line bg-surface-2 p-1" disabled={disabled}>
      <legend className="sr-only">Document source</legend>
      {MODES.map((option) => (
        <label
          key={option.value}
          className="relative cursor-pointer rounded-md px-3 py-1.5 text-sm font-medium text-muted transition-colors has-checked:bg-surface has-checked:text-fg has-checked:shadow-sm has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-ring has-disabled:cursor-not-allowed"
        >
          <input
            type="radio"
            name="document-source"
            value={option.value}
            checked={mode === option.value}
            onChange={() => onChange(option.value)}
            // Transparent over the whole segment: a click (or a test's check()) lands on the radio itself.
            className="absolute inset-0 m-0 size-full cursor-pointer appearance-none rounded-md opacity-0 disabled:cursor-not-allowed"
          />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}
