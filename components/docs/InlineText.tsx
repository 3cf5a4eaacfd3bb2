import { Fragment, type ReactNode } from "react";

/** `code` spans within a line of the document's descriptions. */
function inline(text: string): ReactNode[] {
  return text.split(/(`[^`]+`)/g).map((part, i) =>
    part.startsWith("`") && part.endsWith("`") && part.length > 2 ? (
      <code key={i} className="rounded bg-surface-2 px-1 py-0.5 font-mono text-[0.875em] text-fg">
        {part.slice(1, -1)}
      </code>
    ) : (
      <Fragment key={i}>{part}</Fragment>
    ),
  );
}

/**
 * The little Markdown the OpenAPI descriptions use: paragraphs, `- ` lists
 * and inline code. Nothing is read as HTML.
 */
export function InlineText({ text, className = "" }: { text?: string; className?: string }) {
  if (!text) return null;
  const blocks = text.split(/\n{2,}/);
  return (
    <div className={`space-y-2 ${className}`}>
      {blocks.map((block, i) => {
        const lines = block.split("\n");
        const items = lines.filter((line) => line.startsWith("- "));
        if (items.length > 0) {
          const lead = lines.filter((line) => !line.startsWith("- "));
          return (
            <div key={i} className="space-y-1">
              {lead.length ? <p>{inline(lead.join(" "))}</p> : null}
              <ul className="list-disc space-y-1 pl-5 marker:text-line-strong">
                {items.map((item, j) => (
                  <li key={j}>{inline(item.slice(2))}</li>
                ))}
              </ul>
            </div>
          );
        }
        return <p key={i}>{inline(block.replace(/\n/g, " "))}</p>;
      })}
    </div>
  );
}

/** One line of description, inline. */
export function InlineCode({ text }: { text: string }) {
  return <>{inline(text)}</>;
}
