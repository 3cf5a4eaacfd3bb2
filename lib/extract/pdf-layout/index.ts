/**
 * PDF text items → Markdown-ish text, page by page. pdf.js gives positioned
 * runs of text, not structure; this recovers what a reader sees: lines from
 * shared baselines, paragraphs from vertical gaps and indents, headings from
 * font size against the body text (or a different font at body size), list
 * items from their markers, code from monospaced lines, and drops running
 * headers, footers and page numbers at the page edges. Pure: no pdf.js here,
 * so it is tested on made-up items. One module per step: lines, the body
 * style, running lines, blocks, headings, and rendering them.
 */
import type { PageBox } from "@/lib/extract/types";
import type { PageLayout, PdfPageContent } from "./types";
import { toBlocks } from "./blocks";
import { bodyStyle, leadingBySize } from "./body-style";
import { headingLevels } from "./headings";
import { type Line, toLines } from "./lines";
import { classify, joinWrappedHeadings, render, DocumentWords } from "./render";
import { dropRunningLines } from "./running-lines";

export type { LaidLine, PageLayout, PdfPageContent, PdfTextItem } from "./types";

/** One Markdown text per page, in page order, each with where its lines came from. */
export function layoutPages(pages: PdfPageContent[]): PageLayout[] {
  const lined = pages.map(toLines);
  const body = bodyStyle(lined.flat());
  const kept = dropRunningLines(lined, pages, body);
  const leading = leadingBySize(kept, body);
  const blocks = kept.map((lines) => toBlocks(lines, leading, body));
  const headings = headingLevels(blocks.flat(), body);
  const words = new DocumentWords(kept);
  return blocks.map((page, i) => {
    const { text, lines } = render(joinWrappedHeadings(classify(page, headings), leading), words, leading);
    return {
      text,
      lines: lines.map(({ start, end, line }) => ({
        start,
        end,
        box: pageBox(line, pages[i]!),
        ...(line.confidence === undefined ? {} : { confidence: line.confidence }),
      })),
    };
  });
}

/** Where a line is on its page as shown (turned by `rotate`), from its glyphs' extent in PDF user space; four decimals, a tenth of a point on A4. */
function pageBox(line: Line, page: PdfPageContent): PageBox {
  const [left, bottom, right, top] = page.box;
  const width = right - left || 1;
  const height = top - bottom || 1;
  const share = (value: number) => Math.round(Math.min(1, Math.max(0, value)) * 1e4) / 1e4;
  // Unturned, from the top left: x across, y down.
  const x0 = (line.left - left) / width;
  const x1 = (line.right - left) / width;
  const y0 = (top - line.top) / height;
  const y1 = (top - line.bottom) / height;
  const turned: PageBox = (() => {
    switch ((((page.rotate ?? 0) % 360) + 360) % 360) {
      case 90:
        return [1 - y1, x0, 1 - y0, x1];
      case 180:
        return [1 - x1, 1 - y1, 1 - x0, 1 - y0];
      case 270:
        return [y0, 1 - x1, y1, 1 - x0];
      default:
        return [x0, y0, x1, y1];
    }
  })();
  return turned.map(share) as PageBox;
}
