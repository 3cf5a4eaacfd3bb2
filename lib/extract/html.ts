import type { NodeHtmlMarkdownOptions } from "node-html-markdown";
import { z } from "zod";
import { failures } from "@/lib/extract/failures";
import { splitHtml } from "@/lib/extract/html-segments";
import { htmlOverBudget, type MarkupBudget } from "@/lib/extract/markup-budget";
import { normalizeNewlines } from "@/lib/extract/text";
import type { ExtractLimits } from "@/lib/extract/types";
import { withWorker, type ExtractWorker } from "@/lib/extract/worker";

/**
 * HTML → Markdown, so headings, lists, tables and code survive into the
 * structure-aware chunkers. Used for HTML documents and for DOCX (via the
 * HTML mammoth makes). node-html-markdown runs in the worker: on large
 * pages it is slow enough to stall the server's thread. Its table translator
 * is replaced there (workers/html-tables.mjs): a table with a spanning cell
 * or a cell of several lines comes out as HTML, not a misaligned pipe table.
 */
export const MARKDOWN_OPTIONS: Partial<NodeHtmlMarkdownOptions> = {
  // Page furniture and code, not content; script, style and head are dropped by default.
  // Not "form": ASP.NET pages wrap the whole body in one.
  ignore: ["nav", "noscript", "template", "iframe", "svg", "canvas", "button", "select"],
  codeBlockStyle: "fenced",
  bulletMarker: "-",
  maxConsecutiveNewlines: 2,
  // Data-URI images would put megabytes of base64 into the text (the default, but it matters enough to say so).
  keepDataImages: false,
};

const Converted = z.object({ ok: z.literal(true), markdown: z.array(z.string()) });

/**
 * Converts in an existing worker session (DOCX already has one open for
 * mammoth), after checking the markup against its budget: the converter's
 * time grows with nesting far faster than with size.
 */
export async function htmlToMarkdown(worker: ExtractWorker, html: string, budget: MarkupBudget): Promise<string> {
  await checkMarkup(html, budget);
  return translate(worker, html);
}

export async function convertHtml(html: string, limits: Pick<ExtractLimits, "timeoutMs" | "markup">): Promise<string> {
  // Before a worker starts: a page over budget is refused in milliseconds.
  await checkMarkup(html, limits.markup);
  const damaged = () => failures.extractorUnavailable(new Error("HTML conversion worker died"));
  return withWorker({ timeoutMs: limits.timeoutMs, damaged }, (worker) => translate(worker, html));
}

async function checkMarkup(html: string, budget: MarkupBudget): Promise<void> {
  const excess = await htmlOverBudget(html, budget);
  if (excess) throw failures.markupTooComplex(excess);
}

async function translate(worker: ExtractWorker, html: string): Promise<string> {
  // The converter would print an XML declaration (XHTML pages start with one) as text.
  const segments = splitHtml(normalizeNewlines(html).replace(/<\?xml[^>]*>/gi, ""));
  const reply = await worker.call({ op: "markdown", segments, options: MARKDOWN_OPTIONS }, Converted);
  // The converter accepts any string; if it throws, that is its bug, not the document's fault.
  if (!reply.ok) throw failures.extractorUnavailable(reply);
  return reply.markdown
    .map((part) => normalizeNewlines(part).trim())
    .filter((part) => part !== "")
    .join("\n\n");
}
