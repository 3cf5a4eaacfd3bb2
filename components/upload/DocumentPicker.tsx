"use client";

import type { PageEstimate } from "@/web/pages";
import type { SourceDraft } from "@/web/source";
import { FileDropZone } from "./FileDropZone";
import { SourceModeSwitch } from "./SourceModeSwitch";
import { UrlField } from "./UrlField";

interface Props {
  draft: SourceDraft;
  onChange: (draft: SourceDraft) => void;
  estimate: PageEstimate | null;
  maxUploadBytes: number | null;
  /** Shown once the person tried to go on, or at once for a file that cannot be sent (too large). */
  problem?: string | null;
  disabled?: boolean;
}

/** Where the document comes from: a file (dropped or chosen) or a URL, each kept while switching. */
export function DocumentPicker({ draft, onChange, estimate, maxUploadBytes, problem, disabled }: Props) {
  return (
    <div className="space-y-4">
      <SourceModeSwitch mode={draft.mode} onChange={(mode) => onChange({ ...draft, mode })} disabled={disabled} />
      {draft.mode === "file" ? (
        <FileDropZone
          file={draft.file}
          estimate={estimate}
          maxUploadBytes={maxUploadBytes}
          onFile={(file) => onChange({ ...draft, file })}
          problem={problem}
          disabled={disabled}
        />
      ) : (
        <UrlField
          url={draft.url}
          onChange={(url) => onChange({ ...draft, url })}
          problem={problem}
          disabled={disabled}
        />
      )}
    </div>
  );
}
