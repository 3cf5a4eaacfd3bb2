"use client";

import { memo, useState } from "react";
import type { OutputFormat } from "@/web/api-client";
import { type ChunkView, type Entity, pagesLabel } from "@/web/chunk-view";
import { formatCount } from "@/web/format";
import { CopyButton } from "./CopyButton";

/** Beyond this many lines or characters the text is clamped behind "Show more". */
const CLAMP_LINES = 10;
const CLAMP_CHARS = 900;

interface Props {
  chunk: ChunkView;
  format: OutputFormat;
  expanded: boolean;
  onToggle: (index: number) => void;
  announce: (message: string) => void;
  /** Opens the chunk's page with its lines highlighted; absent when the document is not at hand (a URL, a job). */
  onShowOnPage?: (chunk: ChunkView, opener: HTMLElement) => void;
}

/** One chunk: its numbers, section path, ai-pro summary and entities, and its text. */
export const ChunkCard = memo(function ChunkCard({ chunk, format, expanded, onToggle, announce, onShowOnPage }: Props) {
  const long = chunk.text.length > CLAMP_CHARS || chunk.text.split("\n", CLAMP_LINES + 1).length > CLAMP_LINES;
  const pages = pagesLabel(chunk);
  const textId = `chunk-text-${chunk.index}`;
  return (
    <article aria-labelledby={`chunk-title-${chunk.index}`} className="rounded-xl border border-line bg-surface p-4">
      <header className="flex items-start gap-3">
        <div className="flex min-w-0 flex-1 flex-wrap items-center gap-x-3 gap-y-1.5 pt-1">
          <h3 id={`chunk-title-${chunk.index}`} className="text-sm font-semibold text-fg">
            Chunk #{chunk.index}
          </h3>
          <dl className="flex flex-wrap gap-1.5 text-xs tabular-nums">
            {chunk.tokens !== undefined ? <Stat term="Tokens" value={`${formatCount(chunk.tokens)} tokens`} /> : null}
            <Stat term="Characters" value={`${formatCount(chunk.characters)} chars`} />
            {pages ? <Stat term="Pages" value={pages} /> : null}
            {chunk.ocrConfidence !== undefined ? (
              <Stat term="OCR confidence" value={`OCR ${Math.round(chunk.ocrConfidence)}%`} />
            ) : null}
          </dl>
        </div>
        {onShowOnPage && chunk.boxes.length ? (
          <button
            type="button"
            onClick={(event) => onShowOnPage(chunk, event.currentTarget)}
            className="shrink-0 rounded-md border border-line bg-surface px-2.5 py-1.5 text-sm font-medium text-fg hover:bg-surface-2"
          >
            Show on page<span className="sr-only"> chunk #{chunk.index}</span>
          </button>
        ) : null}
        <CopyButton
          className="shrink-0"
          label="Copy"
          srSuffix={`chunk #${chunk.index}`}
          text={() => chunk.text}
          announce={announce}
          announcement={`Chunk #${chunk.index} copied to the clipboard.`}
        />
      </header>

      {chunk.headings.length ? (
        <p className="mt-2 text-sm text-muted">
          <span className="sr-only">Section: </span>
          {chunk.headings.join(" › ")}
        </p>
      ) : null}

      {chunk.summary ? (
        <p className="mt-3 rounded-lg bg-accent-soft px-3 py-2 text-sm text-fg">
          <span className="font-semibold">Summary: </span>
          {chunk.summary}
        </p>
      ) : null}

      {chunk.entities.length ? <EntityChips entities={chunk.entities} /> : null}

      <pre
        id={textId}
        className={`mt-3 whitespace-pre-wrap break-words font-mono text-[0.8125rem] leading-relaxed text-fg ${long && !expanded ? "line-clamp-[10]" : ""}`}
      >
        {chunk.text}
      </pre>
      {long ? (
        <button
          type="button"
          aria-expanded={expanded}
          aria-controls={textId}
          onClick={() => onToggle(chunk.index)}
          className="mt-2 rounded-md text-sm font-medium text-accent underline-offset-4 hover:underline"
        >
          {expanded ? "Show less" : "Show more"}
          <span className="sr-only"> of chunk #{chunk.index}</span>
        </button>
      ) : null}

      {format !== "raw" ? <RecordDetails chunk={chunk} format={format} /> : null}
    </article>
  );
});

function Stat({ term, value }: { term: string; value: string }) {
  return (
    <div className="rounded-md bg-surface-2 px-2 py-0.5 text-muted">
      <dt className="sr-only">{term}</dt>
      <dd>{value}</dd>
    </div>
  );
}

function EntityChips({ entities }: { entities: Entity[] }) {
  return (
    <ul aria-label="Entities" className="mt-3 flex flex-wrap gap-1.5">
      {entities.map((entity, i) => (
        <li
          key={`${entity.type}:${entity.text}:${i}`}
          className="inline-flex items-center overflow-hidden rounded-full border border-line text-xs"
        >
          <span className="bg-surface-2 px-2 py-0.5 font-medium uppercase tracking-wide text-muted">{entity.type}</span>
          <span className="px-2 py-0.5 text-fg">{entity.text}</span>
        </li>
      ))}
    </ul>
  );
}

/** A vector-store record's id and fields (its text is shown above), built only when opened. */
function RecordDetails({ chunk, format }: { chunk: ChunkView; format: OutputFormat }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="mt-3 text-sm" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary className="cursor-pointer rounded text-muted hover:text-fg">
        {format} record <code className="break-all font-mono text-xs">{chunk.recordId ?? ""}</code>
      </summary>
      {open ? (
        // Focusable, so a keyboard can scroll a long record.
        <pre
          tabIndex={0}
          aria-label={`${format} record of chunk #${chunk.index}`}
          className="mt-2 max-h-80 overflow-auto rounded-lg bg-surface-2 p-3 font-mono text-xs text-fg"
        >
          {JSON.stringify(
            chunk.record,
            (_key, value: unknown) => (value === chunk.text ? "(the chunk text, shown above)" : value),
            2,
          )}
        </pre>
      ) : null}
    </details>
  );
}
