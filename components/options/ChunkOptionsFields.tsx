"use client";

import { type ReactNode, useId } from "react";
import type { ApiInfo } from "@/web/api-client";
import { formatName } from "@/web/labels";
import type { OptionsDraft, OptionsErrors } from "@/web/options";

interface Props {
  api: ApiInfo;
  draft: OptionsDraft;
  errors: OptionsErrors;
  onChange: (draft: OptionsDraft) => void;
  disabled?: boolean;
}

/** Max tokens, overlap and output format, validated as typed against the limits `GET /api` announces. */
export function ChunkOptionsFields({ api, draft, errors, onChange, disabled }: Props) {
  const [min, max] = api.limits.max_tokens_range;
  const maxTokens = Number(draft.maxTokens);
  const overlapMax = Number.isFinite(maxTokens) && maxTokens > 0 ? Math.floor(maxTokens / 2) : undefined;
  return (
    <fieldset disabled={disabled} className="grid min-w-0 gap-4 sm:grid-cols-3">
      <legend className="sr-only">Options</legend>
      <Field label="Max tokens per chunk" hint={`${min}–${max} (o200k_base tokens)`} error={errors.maxTokens}>
        {(props) => (
          <input
            {...props}
            type="number"
            inputMode="numeric"
            min={min}
            max={max}
            step={1}
            value={draft.maxTokens}
            onChange={(event) => onChange({ ...draft, maxTokens: event.currentTarget.value })}
          />
        )}
      </Field>
      <Field
        label="Overlap tokens"
        hint={`0 to half of max tokens${overlapMax !== undefined ? ` (${overlapMax})` : ""}`}
        error={errors.overlapTokens}
      >
        {(props) => (
          <input
            {...props}
            type="number"
            inputMode="numeric"
            min={0}
            max={overlapMax}
            step={1}
            value={draft.overlapTokens}
            onChange={(event) => onChange({ ...draft, overlapTokens: event.currentTarget.value })}
          />
        )}
      </Field>
      <Field label="Output format" hint="Raw chunks, or records for a vector store">
        {(props) => (
          <select
            {...props}
            value={draft.outputFormat}
            onChange={(event) =>
              onChange({ ...draft, outputFormat: event.currentTarget.value as OptionsDraft["outputFormat"] })
            }
          >
            {api.output_formats.map((format) => (
              <option key={format} value={format}>
                {formatName(format)}
              </option>
            ))}
          </select>
        )}
      </Field>
    </fieldset>
  );
}

interface ControlProps {
  id: string;
  "aria-describedby": string;
  "aria-invalid": true | undefined;
  className: string;
}

function Field({
  label,
  hint,
  error,
  children,
}: {
  label: string;
  hint: string;
  error?: string;
  children: (props: ControlProps) => ReactNode;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  return (
    <div className="min-w-0">
      <label htmlFor={id} className="block text-sm font-medium text-fg">
        {label}
      </label>
      {children({
        id,
        "aria-describedby": error ? `${errorId} ${hintId}` : hintId,
        "aria-invalid": error ? true : undefined,
        className: `mt-1.5 block h-11 w-full rounded-lg border bg-surface px-3 text-base tabular-nums text-fg disabled:opacity-60 ${error ? "border-danger" : "border-line-strong"}`,
      })}
      <p id={hintId} className="mt-1.5 text-xs text-muted">
        {hint}
      </p>
      {/* Room for one line of error, reserved so a message never pushes the page down. */}
      <p id={errorId} className="min-h-5 pt-1 text-xs font-medium text-danger">
        {error ?? ""}
      </p>
    </div>
  );
}
