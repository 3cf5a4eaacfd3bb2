import { Parser } from "htmlparser2";

/**
 * How deep and how many elements a piece of markup (an HTML page, a DOCX's
 * XML parts) may hold before the expensive readers see it. The converters
 * build a tree and walk it recursively: 10,000 nested `<div>`s (110 KB) took
 * node-html-markdown 15 s, 50,000 nested lists overflowed its stack. A
 * streaming tokenizer (htmlparser2: no tree, milliseconds a megabyte) counts
 * them first, with HTML's implied end tags (`<li>` closes an open `<li>`, `<p>`
 * a `<p>`), so a flat list written without end tags is not taken for a deep one.
 */
export interface MarkupBudget {
  /** Elements open inside one another. */
  maxDepth: number;
  /** Elements in the whole document (or across all of an archive's parts). */
  maxElements: number;
}

/** What was over budget: the count found when the scan stopped (at least `max + 1`) and the limit. */
export interface MarkupExcess {
  limit: "depth" | "elements";
  found: number;
  max: number;
}

/**
 * Counts elements as markup streams in, in pieces of any size; stops counting
 * at the first excess. One meter may read several parts (an archive's XML
 * files): the element count is then their total, the depth each part's own.
 */
export class MarkupMeter {
  private depth = 0;
  private elements = 0;
  private excess: MarkupExcess | undefined;
  private parser: Parser;

  constructor(
    private readonly budget: MarkupBudget,
    private readonly mode: "html" | "xml",
  ) {
    this.parser = this.newParser();
  }

  /** The excess found so far, if any; once found, later input is ignored. */
  write(piece: string): MarkupExcess | undefined {
    if (!this.excess) this.parser.write(piece);
    return this.excess;
  }

  /** Ends the current part (closing what it left open) and readies the meter for the next. */
  endPart(): MarkupExcess | undefined {
    if (!this.excess) this.parser.end();
    this.depth = 0;
    this.parser = this.newParser();
    return this.excess;
  }

  private newParser(): Parser {
    return new Parser(
      {
        onopentagname: () => {
          if (this.excess) return;
          this.depth++;
          this.elements++;
          if (this.depth > this.budget.maxDepth)
            this.excess = { limit: "depth", found: this.depth, max: this.budget.maxDepth };
          else if (this.elements > this.budget.maxElements)
            this.excess = { limit: "elements", found: this.elements, max: this.budget.maxElements };
          // At once: the parser keeps its open elements in an array it prepends to (quadratic past the budget).
          if (this.excess) this.parser.pause();
        },
        onclosetag: () => {
          this.depth--;
        },
      },
      { xmlMode: this.mode === "xml" },
    );
  }
}

/** Characters tokenized between yields to the event loop (~1 ms of work). */
const SLICE_CHARS = 64 * 1024;

/** Writes `text` to `meter` a slice at a time, yielding between slices so a large text does not stall the server's thread. */
export async function writeYielding(meter: MarkupMeter, text: string): Promise<MarkupExcess | undefined> {
  for (let from = 0; from < text.length; from += SLICE_CHARS) {
    const excess = meter.write(text.slice(from, from + SLICE_CHARS));
    if (excess) return excess;
    if (from + SLICE_CHARS < text.length) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return undefined;
}

/** Measures a whole HTML page. */
export async function htmlOverBudget(html: string, budget: MarkupBudget): Promise<MarkupExcess | undefined> {
  const meter = new MarkupMeter(budget, "html");
  return (await writeYielding(meter, html)) ?? meter.endPart();
}
