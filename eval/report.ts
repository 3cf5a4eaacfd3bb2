import type { MethodScores } from "./evaluate";

/** One method's outcome at one budget: scores, or why there are none. */
export interface Row {
  id: string;
  label: string;
  outcome: { kind: "scores"; scores: MethodScores } | { kind: "error"; message: string };
}

const pct = (x: number) => (Number.isNaN(x) ? "–" : `${(x * 100).toFixed(1)}%`);
const num = (x: number, digits = 0) => (Number.isNaN(x) ? "–" : x.toFixed(digits));
const ratio = (x: number) => (Number.isNaN(x) ? "–" : x.toFixed(3));

function markdownTable(header: string[], rows: string[][]): string {
  const align = header.map((_, i) => (i === 0 ? "---" : "---:"));
  return [header, align, ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

export function mainTable(rows: Row[]): string {
  const header = [
    "method",
    "excerpts whole",
    "IoU",
    "IoU × mean",
    "mean tok",
    "sd tok",
    "chunks",
    "> budget",
    "fences cut",
    "rows cut",
    "items cut",
    "Pk",
    "WindowDiff",
    "s",
  ];
  const lines = rows.map((row) => {
    if (row.outcome.kind === "error") {
      const what = `ERROR: ${row.outcome.message}`;
      return [
        row.label,
        what.replace(/\|/g, "\\|").replace(/\s+/g, " ").slice(0, 160),
        ...header.slice(2).map(() => ""),
      ];
    }
    const s = row.outcome.scores;
    const damage = (k: "fence" | "row" | "item") => `${s.damage[k].cut}/${s.damage[k].total - s.damage[k].oversized}`;
    return [
      row.label,
      pct(s.whole),
      ratio(s.iou),
      num(s.iou * s.meanTokens, 1),
      num(s.meanTokens, 1),
      num(s.stdTokens, 1),
      String(s.chunks),
      String(s.overBudget),
      damage("fence"),
      damage("row"),
      damage("item"),
      ratio(s.pk),
      ratio(s.windowDiff),
      num(s.seconds, 1),
    ];
  });
  return markdownTable(header, lines);
}

/** Excerpts whole and IoU × mean size per corpus, one column pair per corpus. */
export function corpusTable(rows: Row[]): string {
  const corpora = [
    ...new Set(
      rows.flatMap((r) => (r.outcome.kind === "scores" ? r.outcome.scores.perCorpus.map((c) => c.corpus) : [])),
    ),
  ];
  const header = ["method", ...corpora.flatMap((c) => [`${c}: whole`, `${c}: IoU × mean`])];
  const lines = rows
    .filter((r) => r.outcome.kind === "scores")
    .map((row) => {
      const scores = row.outcome.kind === "scores" ? row.outcome.scores : undefined;
      return [
        row.label,
        ...corpora.flatMap((name) => {
          const c = scores?.perCorpus.find((p) => p.corpus === name);
          return c ? [pct(c.whole), num(c.iou * c.meanTokens, 1)] : ["–", "–"];
        }),
      ];
    });
  return markdownTable(header, lines);
}

export interface Bar {
  text: string;
  holds: boolean | undefined;
}

const scoresOf = (rows: Row[], id: string) => {
  const row = rows.find((r) => r.id === id);
  return row?.outcome.kind === "scores" ? row.outcome.scores : undefined;
};

/** The issue's bars, at the main budget. `holds` is undefined when a method they compare is missing. */
export function bars(rows: Row[]): Bar[] {
  const structure = scoresOf(rows, "structure");
  const langchain = scoresOf(rows, "langchain-recursive");
  const semantic = scoresOf(rows, "semantic");
  const fixed = scoresOf(rows, "fixed");
  const chonkieSemantic = scoresOf(rows, "chonkie-semantic");
  const cuts = structure
    ? structure.damage.fence.cut + structure.damage.row.cut + structure.damage.item.cut
    : Number.NaN;
  const ratioToLangchain =
    structure && langchain
      ? (structure.iou * structure.meanTokens) / (langchain.iou * langchain.meanTokens)
      : Number.NaN;
  return [
    {
      text: `structure keeps >= 99% of excerpts whole (${structure ? pct(structure.whole) : "–"})`,
      holds: structure ? structure.whole >= 0.99 : undefined,
    },
    {
      text: `structure IoU × mean size >= 1.10 × LangChain recursive (${Number.isNaN(ratioToLangchain) ? "–" : `${ratioToLangchain.toFixed(2)}×`})`,
      holds: Number.isNaN(ratioToLangchain) ? undefined : ratioToLangchain >= 1.1,
    },
    {
      text: `structure cuts no fence, row or item that fits the budget (${Number.isNaN(cuts) ? "–" : cuts} cut)`,
      holds: structure ? cuts === 0 : undefined,
    },
    {
      text: `semantic Pk below fixed-size tokens (${semantic ? ratio(semantic.pk) : "–"} vs ${fixed ? ratio(fixed.pk) : "–"})`,
      holds: semantic && fixed ? semantic.pk < fixed.pk : undefined,
    },
    {
      text: `semantic Pk below Chonkie SemanticChunker (${semantic ? ratio(semantic.pk) : "–"} vs ${chonkieSemantic ? ratio(chonkieSemantic.pk) : "–"})`,
      holds: semantic && chonkieSemantic ? semantic.pk < chonkieSemantic.pk : undefined,
    },
  ];
}

export function barLines(list: Bar[]): string {
  return list.map((b) => `- ${b.holds === undefined ? "n/a " : b.holds ? "PASS" : "FAIL"} ${b.text}`).join("\n");
}
