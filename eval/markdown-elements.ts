import type { Nodes } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import type { Range } from "./metrics";

export type ElementKind = "fence" | "row" | "item";

/** A structural element of a Markdown text whose inside no chunk boundary should fall in. */
export interface MarkdownElement extends Range {
  kind: ElementKind;
}

/**
 * Fenced code blocks (``` and ~~~; not indented code), table rows (the header
 * row included) and list items (nested ones too, each on its own), with their
 * source offsets, from a real CommonMark + GFM parse.
 */
export function markdownElements(text: string): MarkdownElement[] {
  const tree = fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const found: MarkdownElement[] = [];
  const visit = (node: Nodes) => {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start !== undefined && end !== undefined) {
      if (node.type === "code" && /^[ \t]*(`{3,}|~{3,})/.test(text.slice(start, start + 64)))
        found.push({ kind: "fence", start, end });
      else if (node.type === "tableRow") found.push({ kind: "row", start, end });
      else if (node.type === "listItem") found.push({ kind: "item", start, end });
    }
    if ("children" in node) for (const child of node.children) visit(child);
  };
  visit(tree);
  return found;
}
