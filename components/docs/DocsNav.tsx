import { Fragment } from "react";
import { type OpenApiDoc, type OperationGroup, fullPath, slug } from "@/web/openapi-reference";

export const GUIDE_SECTIONS = [
  { id: "quick-start", label: "Quick start" },
  { id: "tiers", label: "Tiers and prices" },
] as const;

/** A path that may wrap after its slashes, never inside a segment. */
export function BreakablePath({ path }: { path: string }) {
  return (
    <>
      {path.split("/").map((segment, i) => (
        <Fragment key={i}>
          {i > 0 ? (
            <>
              /<wbr />
            </>
          ) : null}
          {segment}
        </Fragment>
      ))}
    </>
  );
}

const linkClass = "block rounded-md px-2 py-1 text-sm text-muted transition-colors hover:bg-surface-2 hover:text-fg";

/** The page's table of contents: guides, each group of the reference with its operations, errors. */
export function DocsNav({ doc, groups, className = "" }: { doc: OpenApiDoc | null; groups: OperationGroup[]; className?: string }) {
  return (
    <nav aria-label="On this page" className={className}>
      <p className="px-2 text-xs font-semibold uppercase tracking-wider text-muted">On this page</p>
      <ul className="mt-2 space-y-0.5">
        {GUIDE_SECTIONS.map((section) => (
          <li key={section.id}>
            <a href={`#${section.id}`} className={linkClass}>
              {section.label}
            </a>
          </li>
        ))}
        {groups.map((group) => (
          <li key={group.tag} className="pt-2">
            <a href={`#${slug(group.tag)}`} className={`${linkClass} font-medium text-fg`}>
              {group.tag}
            </a>
            <ul className="mt-0.5 space-y-0.5 border-l border-line pl-2">
              {group.operations.map(({ method, path, operation }) => (
                <li key={operation.operationId}>
                  <a href={`#${operation.operationId}`} className={`${linkClass} flex items-baseline gap-2 py-0.5`}>
                    <span className="w-8 shrink-0 font-mono text-[10px] font-bold uppercase">{method}</span>
                    <span className="min-w-0 font-mono text-xs">
                      <BreakablePath path={doc ? fullPath(doc, path) : path} />
                    </span>
                  </a>
                </li>
              ))}
            </ul>
          </li>
        ))}
        {/* Only with the reference loaded: links appear below what is there, never pushing it. */}
        {doc ? (
          <li className="pt-2">
            <a href="#errors" className={`${linkClass} font-medium text-fg`}>
              Errors
            </a>
          </li>
        ) : null}
      </ul>
    </nav>
  );
}
