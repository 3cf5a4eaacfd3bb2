import type { ReactNode } from "react";
import type { Field } from "@/web/openapi-reference";
import { InlineCode } from "./InlineText";

/**
 * A schema's fields as rows: name, type and whether required, then what it
 * means and what it allows. Top-level rows use two columns on wide screens;
 * nested objects and union variants open on demand below their field, in
 * one column, so depth never squeezes the text.
 */
export function SchemaFields({ fields, open, label, level = 0 }: { fields: Field[]; open?: boolean; label: string; level?: number }) {
  if (fields.length === 0) return <p className="text-sm text-muted">No fields.</p>;
  return (
    <div>
      <ul aria-label={label} className="divide-y divide-line">
        {fields.map((field) => (
          <li key={field.name} className="py-3 first:pt-0 last:pb-0">
            <FieldRow field={field} level={level} />
          </li>
        ))}
      </ul>
      {open ? <p className="mt-3 text-xs text-muted">Further fields may appear beside these.</p> : null}
    </div>
  );
}

function FieldRow({ field, level }: { field: Field; level: number }) {
  const name = (
    <div className="min-w-0">
      <div className={level === 0 ? "" : "flex flex-wrap items-baseline gap-x-2"}>
        <code className="break-all font-mono text-sm font-semibold text-fg">{field.name}</code>
        <div className={`flex flex-wrap items-center gap-x-2 gap-y-1 text-xs ${level === 0 ? "mt-0.5" : ""}`}>
          <span className="break-all font-mono text-muted">{field.type}</span>
          {field.required ? <span className="font-medium text-danger">required</span> : null}
        </div>
      </div>
    </div>
  );
  const about =
    field.description || field.constraints.length ? (
      <div className="min-w-0 text-sm text-muted">
        {field.description ? (
          <p>
            <InlineCode text={field.description} />
          </p>
        ) : null}
        {field.constraints.length ? (
          <ul className="mt-1.5 flex flex-wrap gap-1.5" aria-label={`${field.name} allows`}>
            {field.constraints.map((constraint) => (
              <li key={constraint} className="max-w-full break-words rounded-md border border-line bg-surface-2 px-1.5 py-0.5 font-mono text-xs text-fg">
                {constraint}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    ) : null;
  return (
    <>
      <div className={level === 0 ? "grid gap-1.5 sm:grid-cols-[minmax(8rem,13rem)_minmax(0,1fr)] sm:gap-5" : "space-y-1"}>
        {name}
        {about}
      </div>
      {field.children?.length ? (
        <Nested summary={`Fields of ${field.name}`}>
          <SchemaFields fields={field.children} open={field.open} label={`Fields of ${field.name}`} level={level + 1} />
        </Nested>
      ) : null}
      {field.variants?.map((variant) => (
        <Nested key={variant.name} summary={`${field.name}: ${variant.name}`}>
          <SchemaFields fields={variant.fields} label={`${variant.name} fields`} level={level + 1} />
        </Nested>
      ))}
    </>
  );
}

export function Nested({ summary, children, defaultOpen }: { summary: ReactNode; children: ReactNode; defaultOpen?: boolean }) {
  return (
    <details open={defaultOpen} className="group mt-2.5 rounded-lg border border-line">
      <summary className="flex cursor-pointer list-none items-center gap-2 rounded-lg px-3 py-2 text-sm font-medium text-fg hover:bg-surface-2 [&::-webkit-details-marker]:hidden">
        <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="size-4 shrink-0 text-muted transition-transform group-open:rotate-90">
          <path fillRule="evenodd" d="M7.2 14.8a1 1 0 0 1 0-1.4L10.6 10 7.2 6.6a1 1 0 1 1 1.4-1.4l4.1 4.1a1 1 0 0 1 0 1.4l-4.1 4.1a1 1 0 0 1-1.4 0Z" clipRule="evenodd" />
        </svg>
        <span className="min-w-0 break-words">{summary}</span>
      </summary>
      <div className="border-t border-line px-3 py-3">{children}</div>
    </details>
  );
}
