import { failures } from "@/lib/extract/failures";
import type { OfficeArchive } from "@/lib/extract/office/archive";
import type { CellCounter, SheetCells } from "@/lib/extract/office/sheet-table";
import type { WorkbookSheet } from "@/lib/extract/office/workbook";
import { localName, streamXml } from "@/lib/extract/xml";

/**
 * ODS (OpenDocument spreadsheet) → sheets of cell values, from content.xml
 * with a streaming tokenizer (see xlsx.ts for why by hand). A cell's value is
 * its text as the file shows it (formatted numbers and dates; a formula's
 * last result), else its `office:value`.
 *
 * ODS compresses runs: `table:number-rows-repeated` and
 * `number-columns-repeated` say how often a row or a cell repeats, and
 * LibreOffice pads every sheet to 1,048,576 rows that way. A run of empty
 * cells or rows only moves the position; a run with values is written out
 * cell by cell against the document's cell budget, so "X" repeated 10⁹ × 10⁹
 * times (a known denial-of-service file) is refused as soon as the budget is
 * spent.
 */
export async function readOds(
  archive: OfficeArchive,
  counter: CellCounter,
  deadline: number,
): Promise<WorkbookSheet[]> {
  const xml = archive.text("content.xml");
  if (xml === undefined) throw failures.corruptedOffice("spreadsheet");
  const hiddenStyles = new Set<string>();
  const sheets: WorkbookSheet[] = [];

  let styleName: string | undefined;
  let sheet: SheetCells | undefined;
  let rowIndex = 0;
  let rowRepeat = 1;
  let rowCells: { column: number; repeat: number; value: string }[] = [];
  let column = 0;
  let cell:
    { repeat: number; value: string; text: string; paragraphs: number; colSpan: number; rowSpan: number } | undefined;
  let ignoredDepth = 0;

  await streamXml(
    xml,
    {
      onopentag(name, attrs) {
        const local = localName(name);
        if (ignoredDepth > 0) {
          ignoredDepth++;
          return;
        }
        switch (local) {
          case "style":
            styleName = attrs["style:family"] === "table" ? attrs["style:name"] : undefined;
            break;
          case "table-properties":
            if (styleName && attrs["table:display"] === "false") hiddenStyles.add(styleName);
            break;
          case "table":
            sheet = { name: attrs["table:name"] ?? `Sheet${sheets.length + 1}`, cells: new Map(), merges: [] };
            sheets.push({
              number: sheets.length + 1,
              hidden: hiddenStyles.has(attrs["table:style-name"] ?? ""),
              sheet,
            });
            rowIndex = 0;
            break;
          case "table-row":
            rowRepeat = repeatCount(attrs["table:number-rows-repeated"]);
            rowCells = [];
            column = 0;
            break;
          case "table-cell":
          case "covered-table-cell":
            cell = {
              repeat: repeatCount(attrs["table:number-columns-repeated"]),
              value: attrs["office:value"] ?? attrs["office:date-value"] ?? attrs["office:boolean-value"] ?? "",
              text: "",
              paragraphs: 0,
              colSpan: repeatCount(attrs["table:number-columns-spanned"]),
              rowSpan: repeatCount(attrs["table:number-rows-spanned"]),
            };
            break;
          case "p":
          case "h":
            if (cell && cell.paragraphs++ > 0) cell.text += "\n";
            break;
          case "s":
            if (cell) cell.text += " ".repeat(Math.min(repeatCount(attrs["text:c"]), 1000));
            break;
          case "tab":
            if (cell) cell.text += "\t";
            break;
          case "line-break":
            if (cell) cell.text += "\n";
            break;
          // Comments on a cell are not its value.
          case "annotation":
            ignoredDepth = 1;
            break;
        }
      },
      ontext(text) {
        if (cell && ignoredDepth === 0) cell.text += text;
      },
      onclosetag(name) {
        if (ignoredDepth > 0) {
          ignoredDepth--;
          return;
        }
        switch (localName(name)) {
          case "table-cell":
          case "covered-table-cell": {
            if (!cell || !sheet) break;
            const value = cell.text.trim() !== "" ? cell.text : cell.value;
            if (value.trim() !== "") rowCells.push({ column, repeat: cell.repeat, value });
            if (cell.colSpan > 1 || cell.rowSpan > 1)
              sheet.merges.push({
                r0: rowIndex,
                c0: column,
                r1: rowIndex + cell.rowSpan - 1,
                c1: column + cell.colSpan - 1,
              });
            column += cell.repeat;
            cell = undefined;
            break;
          }
          case "table-row":
            if (sheet)
              for (let r = 0; r < rowRepeat && rowCells.length > 0; r++)
                for (const run of rowCells)
                  for (let c = 0; c < run.repeat; c++) counter.put(sheet, rowIndex + r, run.column + c, run.value);
            rowIndex += rowRepeat;
            break;
          case "table":
            sheet = undefined;
            break;
        }
      },
    },
    deadline,
  );
  if (sheets.length === 0) throw failures.corruptedOffice("spreadsheet");
  return sheets;
}

/** A repeat or span attribute: a whole number of at least 1 (anything else counts as 1). */
function repeatCount(value: string | undefined): number {
  const n = Number(value ?? "1");
  return Number.isSafeInteger(n) && n >= 1 ? n : 1;
}
