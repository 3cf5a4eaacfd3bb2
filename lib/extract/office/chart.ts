import { childElements, findAll, findFirst, firstChild, textOf, type XmlElement } from "@/lib/extract/xml";

/**
 * A DrawingML chart part (`c:chartSpace`, PPTX's ppt/charts/chartN.xml) as
 * the data it plots: the values each series caches in the part (`c:strCache`,
 * `c:numCache`, written by every producer so a chart can be drawn without its
 * embedded workbook), one row per category, one column per series. The
 * embedded workbook itself is not opened: the caches are what the slide shows.
 */
export interface ChartData {
  title?: string;
  /** A header row ("", then each series' name), then one row per category. */
  rows: string[][];
}

/** Axes' names for the category and the value points by chart kind: scatter and bubble charts plot x against y. */
const CATEGORY = ["cat", "xVal"];
const VALUES = ["val", "yVal"];

export function chartData(chartSpace: XmlElement): ChartData | undefined {
  const chart = findFirst(chartSpace, "chart");
  const plotArea = chart && firstChild(chart, "plotArea");
  if (!plotArea) return undefined;
  const series = findAll(plotArea, "ser");
  if (series.length === 0) return undefined;

  const names: string[] = [];
  const categories = new Map<number, string>();
  const columns: Map<number, string>[] = [];
  for (const [i, ser] of series.entries()) {
    const tx = firstChild(ser, "tx");
    names.push((tx ? points(tx).values().next().value : undefined) ?? `Series ${i + 1}`);
    const category = childElements(ser).find((child) => CATEGORY.includes(child.name));
    if (category) for (const [idx, v] of points(category)) if (!categories.has(idx)) categories.set(idx, v);
    const values = childElements(ser).find((child) => VALUES.includes(child.name));
    columns.push(values ? points(values) : new Map<number, string>());
  }

  // Points are keyed by their idx, not laid out by it: a hostile idx cannot size an array.
  const indices = [...new Set([...categories.keys(), ...columns.flatMap((column) => [...column.keys()])])].sort(
    (a, b) => a - b,
  );
  const rows = [
    ["", ...names],
    ...indices.map((idx) => [categories.get(idx) ?? "", ...columns.map((c) => c.get(idx) ?? "")]),
  ];
  const title = chart && firstChild(chart, "title");
  const titleText = title ? findAll(title, "t").map(textOf).join("").trim() : "";
  return { title: titleText || undefined, rows };
}

/**
 * A reference's cached points by index: `c:pt idx` and its `c:v`; a literal
 * `c:v` standing alone (a series name typed in) is point 0. Multi-level
 * categories keep their innermost level (the first `c:lvl`), the one drawn
 * next to the axis.
 */
function points(reference: XmlElement): Map<number, string> {
  const found = new Map<number, string>();
  const level = findFirst(reference, "lvl") ?? reference;
  for (const pt of findAll(level, "pt")) {
    const idx = Number(pt.attrs.idx);
    const v = firstChild(pt, "v");
    if (Number.isSafeInteger(idx) && idx >= 0 && v && !found.has(idx)) found.set(idx, textOf(v).trim());
  }
  if (found.size === 0) {
    const v = findFirst(reference, "v");
    if (v) found.set(0, textOf(v).trim());
  }
  return found;
}
