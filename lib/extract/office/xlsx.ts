import { failures } from "@/lib/extract/failures";
import { type OfficeArchive, relsPathOf, resolvePartPath } from "@/lib/extract/office/archive";
import { type CellCounter, type CellRange, cellRef, type SheetCells } from "@/lib/extract/office/sheet-table";
import type { WorkbookSheet } from "@/lib/extract/office/workbook";
import {
  attr,
  childElements,
  type ElementBudget,
  findAll,
  findFirst,
  localName,
  parseXml,
  streamXml,
} from "@/lib/extract/xml";

/**
 * XLSX (SpreadsheetML) → sheets of cell values, read by hand from the zip's
 * XML. Written here rather than taken from a library: exceljs fills every
 * cell of a merged range one by one (a merge declared A1:XFD1048576 is 17
 * billion cells) and reads no ODS; SheetJS's npm release (0.18.5) is years
 * behind its fixes (prototype pollution, ReDoS), which are published only off
 * npm. Reading the parts with a streaming tokenizer lets every cell be
 * counted against a budget as it arrives.
 *
 * Values are what the file caches: a formula's last computed value (Excel and
 * LibreOffice always write it), shared and inline strings, numbers as
 * written, booleans as TRUE/FALSE, errors as their code (#DIV/0!), and
 * numbers in a date format as ISO dates.
 */
export async function readXlsx(
  archive: OfficeArchive,
  budget: ElementBudget,
  counter: CellCounter,
  deadline: number,
): Promise<WorkbookSheet[]> {
  const damaged = () => failures.corruptedOffice("spreadsheet");
  const workbookPath = officeDocumentPath(archive, budget) ?? "xl/workbook.xml";
  const workbookXml = archive.text(workbookPath);
  if (workbookXml === undefined) throw damaged();
  const workbook = parseXml(workbookXml, budget);
  const targets = relationshipTargets(archive, workbookPath, budget);
  const date1904 = ["1", "true"].includes(attr(findFirst(workbook, "workbookPr") ?? emptyElement, "date1904") ?? "");

  const sharedStringsPath = [...targets.values()].find((t) => t.type.endsWith("/sharedStrings"))?.path;
  const strings = sharedStringsPath ? await readSharedStrings(archive.text(sharedStringsPath) ?? "", deadline) : [];
  const stylesPath = [...targets.values()].find((t) => t.type.endsWith("/styles"))?.path;
  const dateStyles = stylesPath ? readDateStyles(archive.text(stylesPath) ?? "", budget) : new Set<number>();

  const sheets: WorkbookSheet[] = [];
  const declared = findAll(findFirst(workbook, "sheets") ?? emptyElement, "sheet");
  for (const [i, element] of declared.entries()) {
    const name = attr(element, "name") ?? `Sheet${i + 1}`;
    const state = attr(element, "state");
    const target = targets.get(attr(element, "r:id") ?? "");
    const hidden = state === "hidden" || state === "veryHidden";
    const sheet: SheetCells = { name, cells: new Map(), merges: [] };
    // Chart sheets and dialog sheets hold no cells; a missing part is a damaged file.
    if (!hidden && target?.type.endsWith("/worksheet")) {
      const xml = archive.text(target.path);
      if (xml === undefined) throw damaged();
      await readWorksheet(xml, sheet, { strings, dateStyles, date1904 }, counter, deadline);
    }
    sheets.push({ number: i + 1, hidden, sheet });
  }
  if (declared.length === 0) throw damaged();
  return sheets;
}

const emptyElement = { name: "", attrs: {}, children: [] };

function officeDocumentPath(archive: OfficeArchive, budget: ElementBudget): string | undefined {
  const rels = archive.text("_rels/.rels");
  if (!rels) return undefined;
  const found = findAll(parseXml(rels, budget), "Relationship").find((r) =>
    (attr(r, "Type") ?? "").endsWith("/officeDocument"),
  );
  const target = found && attr(found, "Target");
  return target ? resolvePartPath("", target) : undefined;
}

/** A part's relationships by id: the target part's path and the relationship's type. */
export function relationshipTargets(
  archive: OfficeArchive,
  part: string,
  budget: ElementBudget,
): Map<string, { path: string; type: string; external: boolean }> {
  const targets = new Map<string, { path: string; type: string; external: boolean }>();
  const xml = archive.text(relsPathOf(part));
  if (!xml) return targets;
  for (const rel of findAll(parseXml(xml, budget), "Relationship")) {
    const id = attr(rel, "Id");
    const target = attr(rel, "Target");
    if (!id || !target) continue;
    const external = attr(rel, "TargetMode") === "External";
    targets.set(id, {
      path: external ? target : resolvePartPath(part, target),
      type: attr(rel, "Type") ?? "",
      external,
    });
  }
  return targets;
}

/** Each `<si>`'s text: its `<t>`s in order, phonetic guides (`<rPh>`) left out. */
async function readSharedStrings(xml: string, deadline: number): Promise<string[]> {
  const strings: string[] = [];
  let current: string | undefined;
  let inText = 0;
  let inPhonetic = 0;
  await streamXml(
    xml,
    {
      onopentagname(name) {
        const local = localName(name);
        if (local === "si") current = "";
        else if (local === "t") inText++;
        else if (local === "rPh") inPhonetic++;
      },
      ontext(text) {
        if (current !== undefined && inText > 0 && inPhonetic === 0) current += text;
      },
      onclosetag(name) {
        const local = localName(name);
        if (local === "si") {
          strings.push(current ?? "");
          current = undefined;
        } else if (local === "t") inText--;
        else if (local === "rPh") inPhonetic--;
      },
    },
    deadline,
  );
  return strings;
}

/** Built-in number formats that show dates or times (ECMA-376 18.8.30). */
const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);

/** The cell styles (`s`, an index into `<cellXfs>`) whose number format shows a date. */
function readDateStyles(xml: string, budget: ElementBudget): Set<number> {
  const styles = parseXml(xml, budget);
  const custom = new Map<number, string>();
  for (const format of findAll(findFirst(styles, "numFmts") ?? emptyElement, "numFmt"))
    custom.set(Number(attr(format, "numFmtId")), attr(format, "formatCode") ?? "");
  const dates = new Set<number>();
  const xfs = childElements(findFirst(styles, "cellXfs") ?? emptyElement, "xf");
  xfs.forEach((xf, index) => {
    const id = Number(attr(xf, "numFmtId") ?? "0");
    const code = custom.get(id);
    if (code !== undefined ? isDateFormat(code) : BUILTIN_DATE_FORMATS.has(id)) dates.add(index);
  });
  return dates;
}

/** A format code showing days, months, years or hours, once quoted text, escapes, colours and conditions are taken out. */
function isDateFormat(code: string): boolean {
  const bare = code.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, "");
  return /[dmyhs]/i.test(bare) && !/^general$/i.test(bare.trim());
}

interface CellContext {
  strings: string[];
  dateStyles: Set<number>;
  date1904: boolean;
}

async function readWorksheet(
  xml: string,
  sheet: SheetCells,
  context: CellContext,
  counter: CellCounter,
  deadline: number,
): Promise<void> {
  let rowIndex = -1;
  let nextColumn = 0;
  let cell: { row: number; column: number; type: string; style: number; value: string; inline: string } | undefined;
  let capture: "v" | "t" | undefined;
  let inPhonetic = 0;
  await streamXml(
    xml,
    {
      onopentag(name, attrs) {
        switch (localName(name)) {
          case "row": {
            const r = Number(attrs.r);
            rowIndex = Number.isInteger(r) && r >= 1 ? r - 1 : rowIndex + 1;
            nextColumn = 0;
            break;
          }
          case "c": {
            const at = attrs.r ? cellRef(attrs.r) : undefined;
            const column = at?.column ?? nextColumn;
            nextColumn = column + 1;
            cell = {
              row: at?.row ?? rowIndex,
              column,
              type: attrs.t ?? "n",
              style: Number(attrs.s ?? "0"),
              value: "",
              inline: "",
            };
            break;
          }
          case "v":
            if (cell) capture = "v";
            break;
          case "t":
            if (cell) capture = "t";
            break;
          case "rPh":
            inPhonetic++;
            break;
          case "mergeCell": {
            const range = parseRange(attrs.ref ?? "");
            if (range) sheet.merges.push(range);
            break;
          }
        }
      },
      ontext(text) {
        if (!cell || inPhonetic > 0) return;
        if (capture === "v") cell.value += text;
        else if (capture === "t") cell.inline += text;
      },
      onclosetag(name) {
        switch (localName(name)) {
          case "v":
          case "t":
            capture = undefined;
            break;
          case "rPh":
            inPhonetic--;
            break;
          case "c":
            if (cell && cell.row >= 0) counter.put(sheet, cell.row, cell.column, cellValue(cell, context));
            cell = undefined;
            break;
        }
      },
    },
    deadline,
  );
}

function cellValue(cell: { type: string; style: number; value: string; inline: string }, context: CellContext): string {
  const value = cell.value.trim();
  switch (cell.type) {
    case "s":
      return context.strings[Number(value)] ?? "";
    case "inlineStr":
      return cell.inline || cell.value;
    case "str":
    case "e":
      return cell.value;
    case "b":
      return value === "1" ? "TRUE" : value === "0" ? "FALSE" : value;
    case "d":
      return value;
    default:
      if (value !== "" && context.dateStyles.has(cell.style))
        return serialDate(Number(value), context.date1904) ?? value;
      return value;
  }
}

/** A date serial as ISO 8601: a date, or a date and time when it has a fraction of a day. */
function serialDate(serial: number, date1904: boolean): string | undefined {
  if (!Number.isFinite(serial) || serial < 0 || serial > 2_958_465) return undefined;
  // Day 0 is 1899-12-31 in the 1900 system, which counts a 29 February 1900 that never was (Lotus's bug kept).
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 30);
  const days = !date1904 && serial < 61 ? serial + 1 : serial;
  const ms = Math.round((days * 86_400_000) / 1000) * 1000;
  const iso = new Date(epoch + ms).toISOString();
  const time = iso.slice(11, 19);
  if (serial < 1) return time;
  return time === "00:00:00" ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${time}`;
}

function parseRange(ref: string): CellRange | undefined {
  const [from, to] = ref.split(":");
  const a = from ? cellRef(from) : undefined;
  const b = to ? cellRef(to) : a;
  if (!a || !b) return undefined;
  return {
    r0: Math.min(a.row, b.row),
    c0: Math.min(a.column, b.column),
    r1: Math.max(a.row, b.row),
    c1: Math.max(a.column, b.column),
  };
}
