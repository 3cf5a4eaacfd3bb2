/**
 * The layout evaluation's metrics (eval/layout-metrics.ts) on hand-made cases
 * whose answers are worked out in the comments: LCS and indel similarity
 * (NID), Levenshtein, Zhang-Shasha tree edit distance, the Markdown table
 * reader, TEDS, the heading tree and MHS, and list items.
 */
import { describe, expect, it } from "vitest";
import {
  type TreeNode,
  headingTree,
  indelSimilarity,
  lcsLength,
  levenshtein,
  listItems,
  listItemsFound,
  markdownTables,
  mhs,
  nid,
  pipeTablesToHtml,
  teds,
  treeEditDistance,
} from "@/eval/layout-metrics";
import { tableWhole } from "@/eval/layout";
import { mulberry32 } from "@/tests/helpers/random";

/** LCS by the textbook quadratic table, to check the bit-parallel one against. */
function lcsSlow(a: string, b: string): number {
  const s = Array.from(a);
  const t = Array.from(b);
  const d = Array.from({ length: s.length + 1 }, () => new Array<number>(t.length + 1).fill(0));
  for (let i = 1; i <= s.length; i++)
    for (let j = 1; j <= t.length; j++)
      d[i]![j] = s[i - 1] === t[j - 1] ? d[i - 1]![j - 1]! + 1 : Math.max(d[i - 1]![j]!, d[i]![j - 1]!);
  return d[s.length]![t.length]!;
}

const tree = (label: string, ...children: TreeNode<string>[]): TreeNode<string> => ({ label, children });
const unit = (a: string, b: string) => (a === b ? 0 : 1);

describe("indel similarity (NID)", () => {
  it("counts the longest common subsequence", () => {
    expect(lcsLength("kitten", "sitting")).toBe(4); // i t t n
    expect(lcsLength("", "abc")).toBe(0);
    expect(lcsLength("abc", "abc")).toBe(3);
  });

  it("agrees with the quadratic LCS across word boundaries (strings past 32 and 64 characters)", () => {
    const random = mulberry32(25);
    for (let k = 0; k < 40; k++) {
      const make = (n: number) => Array.from({ length: n }, () => "abcd "[Math.floor(random() * 5)]).join("");
      const a = make(1 + Math.floor(random() * 150));
      const b = make(1 + Math.floor(random() * 150));
      expect(lcsLength(a, b)).toBe(lcsSlow(a, b));
    }
  });

  it("is rapidfuzz's ratio: 1 - indel distance / total length", () => {
    // LCS 4, lengths 6 + 7: indel distance 13 - 8 = 5, similarity 8/13.
    expect(indelSimilarity("kitten", "sitting")).toBeCloseTo(8 / 13);
    expect(indelSimilarity("", "")).toBe(1);
    expect(indelSimilarity("abc", "")).toBe(0);
  });

  it("compares tables as HTML and leaves them out for NID-S", () => {
    const truth = "Intro text\n\n<table><tr><th>a</th></tr><tr><td>1</td></tr></table>\n\nEnd";
    const same = "Intro   text\n\n| a |\n|---|\n| 1 |\n\nEnd";
    expect(nid(truth, same)).toEqual({ nid: 1, nidS: 1 });
    const noTable = nid(truth, "Intro text\n\na 1\n\nEnd")!;
    expect(noTable.nidS).toBeLessThan(1);
    expect(noTable.nid).toBeLessThan(noTable.nidS);
    expect(nid("  \n", "x")).toBeNull();
  });
});

describe("Levenshtein and tree edit distance", () => {
  it("counts edits", () => {
    expect(levenshtein("kitten", "sitting")).toBe(3);
    expect(levenshtein("", "ab")).toBe(2);
    expect(levenshtein("flaw", "lawn")).toBe(2);
  });

  it("finds Zhang and Shasha's example distance", () => {
    // The paper's trees: f(d(a, c(b)), e) and f(c(d(a, b)), e): distance 2 (delete c, insert c).
    const a = tree("f", tree("d", tree("a"), tree("c", tree("b"))), tree("e"));
    const b = tree("f", tree("c", tree("d", tree("a"), tree("b"))), tree("e"));
    expect(treeEditDistance(a, b, unit)).toBe(2);
  });

  it("counts relabels, insertions and deletions", () => {
    const a = tree("r", tree("x"), tree("y"), tree("z"));
    expect(treeEditDistance(a, a, unit)).toBe(0);
    expect(treeEditDistance(a, tree("r", tree("x"), tree("q"), tree("z")), unit)).toBe(1);
    expect(treeEditDistance(a, tree("r", tree("x"), tree("z")), unit)).toBe(1);
    expect(treeEditDistance(tree("r"), a, unit)).toBe(3);
    // Moving a subtree is a delete and an insert of each of its nodes: r(a(b,c), d) vs r(d, a(b,c)).
    const moved = treeEditDistance(
      tree("r", tree("a", tree("b"), tree("c")), tree("d")),
      tree("r", tree("d"), tree("a", tree("b"), tree("c"))),
      unit,
    );
    expect(moved).toBe(2); // delete d and insert d
  });

  it("uses fractional rename costs", () => {
    const half = (x: string, y: string) => (x === y ? 0 : 0.5);
    expect(treeEditDistance(tree("r", tree("a")), tree("r", tree("b")), half)).toBe(0.5);
  });
});

describe("Markdown tables", () => {
  it("reads GFM tables into rows with a header, escaped pipes kept", () => {
    const md = "Text\n\n| Name | Score |\n| :--- | ---: |\n| a \\| b | 3 |\n| c | 4 |\n\nAfter | not a table\n";
    const [table] = markdownTables(md);
    expect(table!.rows.map((r) => r.map((c) => c.text))).toEqual([
      ["Name", "Score"],
      ["a | b", "3"],
      ["c", "4"],
    ]);
    expect(table!.rows[0]!.every((c) => c.header)).toBe(true);
    expect(markdownTables(md)).toHaveLength(1);
  });

  it("gives GFM rows as their source lines and HTML tables their source offsets after a GFM table", () => {
    const md = "| a |\n|---|\n| 1 |\n\n<table><tr><td>x</td></tr></table>\n";
    const [pipe, html] = markdownTables(md);
    expect(pipe!.rowRanges.map((r) => md.slice(r.start, r.end))).toEqual(["| a |", "| 1 |"]);
    expect(md.slice(pipe!.start, pipe!.end)).toBe("| a |\n|---|\n| 1 |");
    expect(md.slice(html!.start, html!.end)).toBe("<table><tr><td>x</td></tr></table>");
    expect(md.slice(html!.rowRanges[0]!.start, html!.rowRanges[0]!.end)).toBe("<tr><td>x</td></tr>");
  });

  it("pads short rows and cuts long ones to the header's width, as the bench does", () => {
    const html = pipeTablesToHtml("| a | b |\n|---|---|\n| 1 |\n| 1 | 2 | 3 |\n");
    expect(html).toBe(
      "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td></td></tr><tr><td>1</td><td>2</td></tr></table>\n",
    );
  });

  it("reads HTML tables with spans, entities and row positions", () => {
    const md =
      'x\n<table><thead><tr><th rowspan="2">Team</th><th colspan=2>Wins &amp; losses</th></tr>' +
      "<tr><th>W</th><th>L</th></tr></thead><tbody><tr><td>Jets<br>NY</td><td>3</td><td>14</td></tr></tbody></table>\ny";
    const [table] = markdownTables(md);
    expect(table!.rows).toHaveLength(3);
    expect(table!.rows[0]).toEqual([
      { text: "Team", colspan: 1, rowspan: 2, header: true },
      { text: "Wins & losses", colspan: 2, rowspan: 1, header: true },
    ]);
    expect(table!.rows[2]!.map((c) => c.text)).toEqual(["Jets NY", "3", "14"]);
    expect(md.slice(table!.rowRanges[2]!.start, table!.rowRanges[2]!.end)).toBe(
      "<tr><td>Jets<br>NY</td><td>3</td><td>14</td></tr>",
    );
  });
});

describe("TEDS", () => {
  const t = (md: string) => markdownTables(md);
  const truth = t("| a | b |\n|---|---|\n| 1 | 2 |\n");

  it("is 1 for the same table written as GFM or HTML, 0 with no table, null without a true one", () => {
    expect(teds(truth, t("<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>"))).toBe(1);
    expect(teds(truth, [])).toBe(0);
    expect(teds([], truth)).toBeNull();
  });

  it("charges cell text by normalized Levenshtein and structure by nodes", () => {
    // Forest: table, 2 tr, 4 td = 7 nodes. One cell "2" → "3": distance 1 → 1 - 1/7.
    expect(teds(truth, t("| a | b |\n|---|---|\n| 1 | 3 |\n"))).toBeCloseTo(1 - 1 / 7);
    // "ab" → "ax" in one cell: cost 1/2.
    const ab = t("| ab | b |\n|---|---|\n| 1 | 2 |\n");
    expect(teds(ab, t("| ax | b |\n|---|---|\n| 1 | 2 |\n"))).toBeCloseTo(1 - 0.5 / 7);
    // A missing row: delete tr and its 2 cells, 3 of 7.
    expect(teds(truth, t("| a | b |\n|---|---|\n"))).toBeCloseTo(1 - 3 / 7);
    // TEDS-S ignores text.
    expect(teds(truth, t("| x | y |\n|---|---|\n| z | w |\n"), true)).toBe(1);
  });

  it("charges a colspan mismatch as a relabel", () => {
    const spanned = t('<table><tr><th colspan="2">ab</th></tr><tr><td>1</td><td>2</td></tr></table>');
    // Truth: table, tr(td ab), tr(td, td) = 6 nodes. Output: 7 nodes; best: relabel the spanning cell
    // (1, span differs) and insert one td (1): 2 / 7.
    expect(teds(spanned, t("| ab | |\n|---|---|\n| 1 | 2 |\n"), true)).toBeCloseTo(1 - 2 / 7);
  });
});

describe("MHS", () => {
  it("builds a flat tree: every heading under the root, its text one content node", () => {
    const tree = headingTree("Preface\n# A\none\ntwo\n\n### B\nthree\n");
    expect(tree.children.map((c) => [c.label.tag, c.label.text, c.children.map((x) => x.label.text)])).toEqual([
      ["content", "Preface", []],
      ["heading", "A", ["one two"]],
      ["heading", "B", ["three"]],
    ]);
  });

  it("ignores heading levels, charges missing headings and text changes", () => {
    const truth = "# A\none\n## B\ntwo\n";
    expect(mhs(truth, "### A\none\n# B\ntwo\n")).toEqual({ mhs: 1, mhsS: 1 });
    // B not a heading: output tree document(heading A(content "one B two")) = 3 nodes, truth has 5.
    // Best: delete heading B and content "two" (2), relabel content "one" → "one B two" (text 6/9): structure 2.
    const flat = mhs(truth, "# A\none\nB\ntwo\n")!;
    expect(flat.mhsS).toBeCloseTo(1 - 2 / 5);
    expect(flat.mhs).toBeCloseTo(1 - (2 + 6 / 9) / 5);
    expect(mhs(truth, "A\none\nB\ntwo")).toEqual({ mhs: 0, mhsS: 0 });
    expect(mhs("no headings", "# A")).toBeNull();
  });
});

describe("list items", () => {
  it("reads CommonMark list items with lazy continuation lines, normalized", () => {
    const md =
      "- First *item*,\n  wrapped on.\n* Second\n1. Third\n2) Fourth\n\nNot-an-item\n• typed bullet\n# H\n-not";
    expect(listItems(md)).toEqual(["first item wrapped on", "second", "third", "fourth"]);
    // "- 1. x" is a bullet item holding an ordered item: the item is "x".
    expect(listItems("- 1. The first\n- 2. The second")).toEqual(["the first", "the second"]);
  });

  it("matches items as a multiset", () => {
    expect(listItemsFound(["a", "a", "b"], ["a", "b", "c"])).toBe(2);
    expect(listItemsFound(["a"], [])).toBe(0);
  });
});

describe("tables whole at the chunk budget", () => {
  const chunk = (text: string, start: number, end: number, piece = text.slice(start, end)) => ({
    text: piece,
    metadata: { chunk_index: 0, char_count: end - start, start, end, token_count: 0 },
  });
  const md = "Intro.\n\n| k | v |\n|---|---|\n| a | 1 |\n| b | 2 |\n| c | 3 |\n\nEnd.";
  const truth = markdownTables("| k | v |\n|---|---|\n| a | 1 |\n| b | 2 |\n| c | 3 |\n")[0]!;
  const output = markdownTables(md);
  const table = output[0]!;

  it("counts a table one chunk holds", () => {
    expect(tableWhole(truth, output, md, [chunk(md, 0, md.length)], 400)).toBe(true);
  });

  it("fails a short table cut across chunks, and a table the engine did not output as one", () => {
    const cut = table.rowRanges[2]!.end;
    expect(tableWhole(truth, output, md, [chunk(md, 0, cut), chunk(md, cut, md.length)], 400)).toBe(false);
    expect(tableWhole(truth, [], md, [chunk(md, 0, md.length)], 400)).toBe(false);
    // Only one of three rows in the output's table: under 90% of the rows.
    const partial = markdownTables("| k | v |\n|---|---|\n| a | 1 |\n");
    expect(tableWhole(truth, partial, md, [chunk(md, 0, md.length)], 400)).toBe(false);
  });

  it("accepts a table longer than the budget split between rows, each later piece with the header", () => {
    const cut = table.rowRanges[2]!.end + 1;
    const header = "| k | v |\n|---|---|\n";
    const withHeader = [chunk(md, 0, cut), chunk(md, cut, md.length, header + md.slice(cut))];
    // A budget of 5 tokens: the table (about 30) cannot fit one chunk.
    expect(tableWhole(truth, output, md, withHeader, 5)).toBe(true);
    expect(tableWhole(truth, output, md, [chunk(md, 0, cut), chunk(md, cut, md.length)], 5)).toBe(false);
    const mid = table.rowRanges[2]!.start + 3;
    expect(
      tableWhole(truth, output, md, [chunk(md, 0, mid), chunk(md, mid, md.length, header + md.slice(mid))], 5),
    ).toBe(false);
  });
});
