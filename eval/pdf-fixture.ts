import { PDFDocument, type PDFFont, StandardFonts } from "pdf-lib";

/**
 * Renders a small Markdown subset to a multi-page PDF the way a word
 * processor would: headings in larger bold type, wrapped paragraphs, bullet
 * and numbered lists (nested by indentation), and a running header and a
 * page-number footer on every page, which a good extractor drops.
 *
 * Supported lines: "# ", "## ", "### " headings; "- " and "1. " list items
 * (two spaces of indentation per level); blank-line separated paragraphs.
 * Text must be WinAnsi (the standard fonts' encoding): plain ASCII is safe.
 */

const PAGE = { width: 595, height: 842, margin: 64 };
const BODY = 10.5;
const LEADING = 1.45;
const HEADER = "Chunkwise Field Guide to Document Chunking";

type Block =
  | { kind: "heading"; level: number; text: string }
  | { kind: "paragraph"; text: string }
  | { kind: "item"; depth: number; marker: string; text: string };

function parseBlocks(source: string): Block[] {
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) blocks.push({ kind: "paragraph", text: paragraph.join(" ") });
    paragraph = [];
  };
  for (const line of source.replace(/\r\n?/g, "\n").split("\n")) {
    const heading = /^(#{1,3}) (.*)$/.exec(line);
    const item = /^( *)(- |\d+\. )(.*)$/.exec(line);
    if (!line.trim()) flush();
    else if (heading) {
      flush();
      blocks.push({ kind: "heading", level: heading[1]!.length, text: heading[2]!.trim() });
    } else if (item) {
      flush();
      blocks.push({
        kind: "item",
        depth: Math.floor(item[1]!.length / 2),
        marker: item[2]!.trim() === "-" ? "\u2022" : item[2]!.trim(),
        text: item[3]!.trim(),
      });
    } else if (
      blocks.length &&
      blocks[blocks.length - 1]!.kind === "item" &&
      /^ +\S/.test(line) &&
      paragraph.length === 0
    ) {
      // A continuation line of a list item.
      const last = blocks[blocks.length - 1] as Extract<Block, { kind: "item" }>;
      last.text += ` ${line.trim()}`;
    } else paragraph.push(line.trim());
  }
  flush();
  return blocks;
}

/** Lines of at most `width` points. */
export function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    const candidate = line ? `${line} ${word}` : word;
    if (line && font.widthOfTextAtSize(candidate, size) > width) {
      lines.push(line);
      line = word;
    } else line = candidate;
  }
  if (line) lines.push(line);
  return lines;
}

export async function renderPdf(source: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  // Fixed dates: the same source gives the same bytes.
  pdf.setCreationDate(new Date("2025-01-01T00:00:00Z"));
  pdf.setModificationDate(new Date("2025-01-01T00:00:00Z"));
  pdf.setTitle(HEADER);
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const contentWidth = PAGE.width - 2 * PAGE.margin;
  let page = pdf.addPage([PAGE.width, PAGE.height]);
  let y = PAGE.height - PAGE.margin;
  const newPage = () => {
    page = pdf.addPage([PAGE.width, PAGE.height]);
    y = PAGE.height - PAGE.margin;
  };
  const draw = (lines: string[], font: PDFFont, size: number, x: number, firstX = x) => {
    lines.forEach((text, i) => {
      if (y - size * LEADING < PAGE.margin) newPage();
      y -= size * LEADING;
      page.drawText(text, { x: i === 0 ? firstX : x, y, size, font });
    });
  };

  for (const block of parseBlocks(source)) {
    if (block.kind === "heading") {
      const size = [0, 20, 15, 12.5][block.level]!;
      // Keep a heading with the start of what follows it.
      if (y - size * 2 - BODY * LEADING * 3 < PAGE.margin) newPage();
      else y -= size * 0.8;
      draw(wrap(block.text, bold, size, contentWidth), bold, size, PAGE.margin);
      y -= size * 0.3;
    } else if (block.kind === "paragraph") {
      draw(wrap(block.text, regular, BODY, contentWidth), regular, BODY, PAGE.margin);
      y -= BODY * 0.7;
    } else {
      const indent = PAGE.margin + 14 + block.depth * 18;
      const textX = indent + 14;
      const lines = wrap(block.text, regular, BODY, PAGE.margin + contentWidth - textX);
      if (y - BODY * LEADING < PAGE.margin) newPage();
      page.drawText(block.marker, { x: indent, y: y - BODY * LEADING, size: BODY, font: regular });
      draw(lines, regular, BODY, textX);
      y -= BODY * 0.25;
    }
  }

  const pages = pdf.getPages();
  pages.forEach((p, i) => {
    p.drawText(HEADER, { x: PAGE.margin, y: PAGE.height - PAGE.margin / 2, size: 8, font: regular });
    const footer = `Page ${i + 1} of ${pages.length}`;
    p.drawText(footer, {
      x: PAGE.width - PAGE.margin - regular.widthOfTextAtSize(footer, 8),
      y: PAGE.margin / 2,
      size: 8,
      font: regular,
    });
  });
  return pdf.save({ useObjectStreams: false });
}
