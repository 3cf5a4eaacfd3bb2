import { describe, expect, it } from "vitest";
import { layoutPages as layout, type PdfPageContent, type PdfTextItem } from "@/lib/extract/pdf-layout";

// Made-up pdf.js output: an A4 page, a body text of 10 pt on a 12 pt leading.
const BOX: PdfPageContent["box"] = [0, 0, 595, 842];
const BODY = "F1";
const BOLD = "F2";
const MONO = "F3";

interface At {
  x?: number;
  size?: number;
  font?: string;
}

/** One text item per line, as pdf.js gives most producers' output; half an em per character. */
function line(text: string, y: number, { x = 72, size = 10, font = BODY }: At = {}): PdfTextItem {
  return { text, x, y, size, width: text.length * size * 0.5, font, upright: true };
}

/** One item per word and no space items, as some producers place words: the gaps are the spaces. */
function spacedWords(text: string, y: number, { x = 72, size = 10, font = BODY }: At = {}): PdfTextItem[] {
  const items: PdfTextItem[] = [];
  let at = x;
  for (const word of text.split(" ")) {
    items.push({ text: word, x: at, y, size, width: word.length * size * 0.5, font, upright: true });
    at += (word.length + 1) * size * 0.5;
  }
  return items;
}

/** Lines placed one leading apart from `top` down; "" leaves a blank line. */
function lines(top: number, texts: string[], at: At = {}, leading = 12): PdfTextItem[] {
  return texts.flatMap((text, i) => (text === "" ? [] : [line(text, top - i * leading, at)]));
}

const page = (items: PdfTextItem[], monospaceFonts: string[] = []): PdfPageContent => ({
  box: BOX,
  items,
  monospaceFonts,
});
/** The pages' texts. */
const layoutPages = (pages: PdfPageContent[]) => layout(pages).map((p) => p.text);
const layoutOne = (items: PdfTextItem[], monospaceFonts: string[] = []) =>
  layoutPages([page(items, monospaceFonts)])[0] ?? "";

/** Enough body text for 10 pt to be the body size. */
const filler = (top: number, count = 6) =>
  lines(
    top,
    Array.from(
      { length: count },
      (_, i) => `Body line ${i} of the running text, long enough to count as the body of this page.`,
    ),
  );

describe("lines and paragraphs", () => {
  it("joins a paragraph's wrapped lines with a space and splits paragraphs at a vertical gap", () => {
    const text = layoutOne([
      ...lines(700, [
        "The estuary is surveyed every month by a team of",
        "volunteers who walk the same route each time.",
      ]),
      ...lines(670, ["A second paragraph starts after the gap and it", "wraps over two lines as well."]),
    ]);
    expect(text).toBe(
      "The estuary is surveyed every month by a team of volunteers who walk the same route each time.\n\n" +
        "A second paragraph starts after the gap and it wraps over two lines as well.",
    );
  });

  it("tells paragraphs apart by a first-line indent when there is no gap", () => {
    const text = layoutOne([
      line("The first paragraph opens with an indent and then", 700, { x: 90 }),
      line("runs on at the margin for a line.", 688),
      line("The second one is indented too, with no space above", 676, { x: 90 }),
      line("it, and ends here.", 664),
    ]);
    expect(text).toBe(
      "The first paragraph opens with an indent and then runs on at the margin for a line.\n\nThe second one is indented too, with no space above it, and ends here.",
    );
  });

  it("ends a paragraph at a short line closing a sentence, even without a gap or an indent", () => {
    const text = layoutOne(
      lines(700, [
        "This paragraph fills its lines to the right edge, as set text does,",
        "until it stops short after a full stop.",
        "The next one begins on the very next line at the margin.",
      ]),
    );
    expect(text).toBe(
      "This paragraph fills its lines to the right edge, as set text does, until it stops short after a full stop.\n\nThe next one begins on the very next line at the margin.",
    );
  });

  it("puts spaces where words are placed apart without space characters, and none inside words split into pieces", () => {
    const items = [
      ...spacedWords("Words placed one by one", 700),
      { text: "frag", x: 300, y: 700, size: 10, width: 20, font: BODY, upright: true },
    ];
    items.push({ text: "ment", x: 320.5, y: 700, size: 10, width: 20, font: BODY, upright: true });
    expect(layoutOne(items)).toBe("Words placed one by one fragment");
  });

  it("keeps a superscript on its line and drops NUL characters of unmapped glyphs", () => {
    const text = layoutOne([
      line("Sea level rose", 700),
      { text: "2", x: 142, y: 703.5, size: 6, width: 3, font: BODY, upright: true },
      line("\u0000 this year.", 700, { x: 146 }),
    ]);
    expect(text).toBe("Sea level rose2 this year.");
  });

  it("de-hyphenates a word broken at a line end, keeping the hyphen of words the document writes hyphenated", () => {
    const text = layoutOne([
      ...lines(700, [
        "The survey needs a careful exam-",
        "ple of each count, a well-",
        "known method, and Jean-",
        "Paul's notes on the pre-",
        "and post-war tides.",
      ]),
      ...lines(620, ["The method is well-known along this coast."]),
    ]);
    expect(text).toContain(
      "a careful example of each count, a well-known method, and Jean-Paul's notes on the pre- and post-war tides.",
    );
  });

  it("joins a soft hyphen's halves and Chinese lines without a space", () => {
    expect(layoutOne(lines(700, ["Measure\u00ad", "ments were taken."]))).toBe("Measurements were taken.");
    expect(layoutOne(lines(700, ["清晨五点，渔港还没有", "完全醒来。"]))).toBe("清晨五点，渔港还没有完全醒来。");
  });

  it("escapes prose that would read as a Markdown heading or list", () => {
    const text = layoutOne([...filler(760, 3), line("# is the symbol the tide tables use for a spring tide.", 700)]);
    expect(text.split("\n\n").at(-1)).toBe("\\# is the symbol the tide tables use for a spring tide.");
  });

  it("keeps rotated text, on a line of its own", () => {
    const rotated: PdfTextItem = {
      text: "arXiv:2401.00001",
      x: 30,
      y: 700,
      size: 10,
      width: 80,
      font: BODY,
      upright: false,
    };
    expect(layoutOne([line("Main text on the page.", 700), rotated])).toBe(
      "Main text on the page.\n\narXiv:2401.00001",
    );
  });

  it("gives a page without text an empty string", () => {
    expect(layoutPages([page([]), page(lines(700, ["Text on page two."]))])).toEqual(["", "Text on page two."]);
  });
});

describe("headings", () => {
  it("ranks heading sizes against the body size as #, ## and ###, and a bold body-size title below them", () => {
    const text = layoutOne([
      line("Coastal survey", 800, { size: 20, font: BOLD }),
      ...filler(770, 2),
      line("1 Equipment", 730, { size: 15, font: BOLD }),
      ...filler(705, 2),
      line("1.1 Before leaving", 670, { size: 12.5, font: BOLD }),
      ...filler(650, 2),
      line("Tide tables", 615, { font: BOLD }),
      ...filler(603, 2),
      line("2 Counting", 560, { size: 15.2, font: BOLD }),
      ...filler(535, 1),
    ]);
    const headings = text.split("\n").filter((l) => l.startsWith("#"));
    expect(headings).toEqual([
      "# Coastal survey",
      "## 1 Equipment",
      "### 1.1 Before leaving",
      "#### Tide tables",
      "## 2 Counting",
    ]);
  });

  it("joins a heading wrapped over two lines into one", () => {
    const text = layoutOne([
      line("A very long title that the typesetter", 800, { size: 18, font: BOLD }),
      line("had to wrap", 780, { x: 100, size: 18, font: BOLD }),
      ...filler(750),
    ]);
    expect(text.split("\n\n")[0]).toBe("# A very long title that the typesetter had to wrap");
  });

  it("does not make headings of a long lead paragraph in large type, a bare number, or a bold sentence", () => {
    const lead = lines(
      800,
      ["A lead paragraph set large", "runs over four lines", "which no heading does", "in this kind of report."],
      { size: 14 },
      17,
    );
    const text = layoutOne([
      ...lead,
      line("2024", 720, { size: 24 }),
      ...filler(690, 3),
      line("This sentence is bold, and it ends with a full stop.", 640, { font: BOLD }),
      ...filler(628, 3),
    ]);
    expect(text).not.toMatch(/^#/m);
    expect(text).toContain(
      "A lead paragraph set large runs over four lines which no heading does in this kind of report.",
    );
  });
});

describe("lists", () => {
  it("turns bullets, dashes and numbers into Markdown items, with hanging continuation lines joined", () => {
    const text = layoutOne([
      line("Pack the following:", 760),
      line("•", 748, { x: 80 }),
      line("Binoculars and a spotting scope with", 748, { x: 90 }),
      line("its tripod", 736, { x: 90 }),
      line("•", 724, { x: 80 }),
      line("A waterproof notebook", 724, { x: 90 }),
      line("- Two pencils", 712, { x: 80 }),
      line("Then:", 690),
      line("1. Check the forecast", 678, { x: 80 }),
      line("2) Tell the coordinator where the team is going and when it", 666, { x: 80 }),
      line("will be back", 654, { x: 94 }),
      line("a) Note the tide", 632, { x: 80 }),
      line("(ii) Note it again", 620, { x: 80 }),
    ]);
    expect(text).toBe(
      [
        "Pack the following:",
        "",
        "- Binoculars and a spotting scope with its tripod",
        "- A waterproof notebook",
        "- Two pencils",
        "",
        "Then:",
        "",
        "1. Check the forecast",
        "2. Tell the coordinator where the team is going and when it will be back",
        "- a) Note the tide",
        "- (ii) Note it again",
      ].join("\n"),
    );
  });

  it("nests items by their indent", () => {
    const text = layoutOne([
      line("• Tide tables", 700, { x: 80 }),
      line("– printed on paper", 688, { x: 100 }),
      line("– checked weekly", 676, { x: 100 }),
      line("• Radio", 664, { x: 80 }),
      line("1. charged", 652, { x: 100 }),
    ]);
    expect(text).toBe("- Tide tables\n  - printed on paper\n  - checked weekly\n- Radio\n  1. charged");
  });

  it("leaves a wrapped sentence whose line happens to start with a number in its paragraph", () => {
    const text = layoutOne(
      lines(700, [
        "The counts rose sharply between 1998 and the survey of",
        "2. The next survey found fewer knots than the last one.",
        "That was expected.",
      ]),
    );
    expect(text).not.toMatch(/^2\. /m);
    expect(text).toContain("the survey of 2. The next survey");
  });
});

describe("code and contents", () => {
  it("fences whole lines in a monospaced font, keeping their indentation and blank lines", () => {
    const code = (text: string, y: number, x = 92) => line(text, y, { x, font: MONO });
    const text = layoutOne(
      [
        ...filler(800),
        line("Run the tool as follows:", 700),
        code("survey submit \\", 680),
        code("--site north-spit", 668, 112),
        code("survey list", 644),
        line("It prints what it sent.", 620),
      ],
      [MONO],
    );
    expect(text.split("\n\n").slice(1).join("\n\n")).toBe(
      "Run the tool as follows:\n\n```\nsurvey submit \\\n    --site north-spit\n\nsurvey list\n```\n\nIt prints what it sent.",
    );
  });

  it("keeps a path wrapped onto a line of its own inside the sentence", () => {
    const text = layoutOne(
      [
        line("Copy the files from the folder named", 700),
        line("/usr/share/mime/packages/", 688, { font: MONO }),
        line("into the new directory and restart.", 676),
      ],
      [MONO],
    );
    expect(text).toBe(
      "Copy the files from the folder named /usr/share/mime/packages/ into the new directory and restart.",
    );
  });

  it("keeps table-of-contents entries one per line, leaders shortened", () => {
    const text = layoutOne(
      lines(700, [
        "1 Introduction . . . . . . . . . . . . 1",
        "2 Counting birds . . . . . . . . . . 4",
        "2.1 At high tide. . . . . . . . . . . 5",
      ]),
    );
    expect(text).toBe("1 Introduction … 1\n2 Counting birds … 4\n2.1 At high tide … 5");
  });
});

describe("running headers, footers and page numbers", () => {
  const ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"];

  /** Pages with a body, plus `top` and `bottom` lines drawn at the page edges (by 0-based page index). */
  function pages(
    count: number,
    top: (i: number) => string[],
    bottom: (i: number) => string[],
    extra: (i: number) => PdfTextItem[] = () => [],
  ): PdfPageContent[] {
    return Array.from({ length: count }, (_, i) =>
      page([
        ...top(i).map((text, k) => line(text, 810 - k * 12, { size: 9 })),
        ...lines(760, [
          `The ${ORDINALS[i]} page's body starts here and runs on for a while, as body text does.`,
          `It is what a reader of the ${ORDINALS[i]} page came for.`,
        ]),
        ...extra(i),
        ...bottom(i).map((text, k, all) => line(text, 30 + (all.length - 1 - k) * 12, { size: 9 })),
      ]),
    );
  }

  it.each([
    ["a bare number", (i: number) => `${i + 1}`],
    ["Page N of M", (i: number) => `Page ${i + 1} of 5`],
    ["- N -", (i: number) => `- ${i + 1} -`],
    ["a roman numeral", (i: number) => ["i", "ii", "iii", "iv", "v"][i]!],
  ])("drops a running header and %s in the footer on every page", (_, footer) => {
    const out = layoutPages(
      pages(
        5,
        () => ["Annual report of the estuary survey 2024"],
        (i) => [footer(i)],
      ),
    );
    out.forEach((text, i) =>
      expect(text).toBe(
        `The ${ORDINALS[i]} page's body starts here and runs on for a while, as body text does. It is what a reader of the ${ORDINALS[i]} page came for.`,
      ),
    );
  });

  it("drops headers that carry the page number and alternate between odd and even pages", () => {
    const out = layoutPages(
      pages(
        6,
        (i) => [i % 2 === 0 ? `Coastal survey ${i + 1}` : `${i + 1} Chapter notes`],
        () => [],
      ),
    );
    out.forEach((text) => expect(text).not.toMatch(/Coastal survey|Chapter notes/));
  });

  it("drops chapter running heads that end with the printed page number, offset from the page's position", () => {
    // A cover and a contents page come first, so printed page 1 is the third page.
    const chapter = (i: number) => (i < 5 ? "Chapter 1: Rivers" : "Chapter 2: Lighthouses");
    const out = layoutPages(
      pages(
        9,
        (i) => (i < 2 ? [] : [`${chapter(i)} ${i - 1}`]),
        () => [],
      ),
    );
    out.forEach((text) => expect(text).not.toMatch(/Chapter \d/));
  });

  it("keeps a line that looks like a header or a page number on one page only, and numbers inside the body", () => {
    const out = layoutPages(
      pages(
        4,
        (i) => ["Annual report", ...(i === 1 ? ["Draft for review"] : [])],
        (i) => [`${i + 1}`],
        (i) => (i === 2 ? [line("Nests found:", 95), line("7", 83)] : i === 3 ? [line("12", 600)] : []),
      ),
    );
    out.forEach((text, i) => {
      expect(text).not.toContain("Annual report");
      expect(text).not.toMatch(new RegExp(`^${i + 1}$`, "m"));
    });
    expect(out[1]).toMatch(/^Draft for review\n\nThe second page's body/);
    expect(out[2]).toMatch(/Nests found: 7$/);
    expect(out[3]).toContain("\n\n12");
  });

  it.each([
    ["at the top", 810],
    ["at the bottom", 42],
  ])("keeps the text of pages that carry only the same two lines %s (a notice printed per page)", (_, y) => {
    const notice = ["Notice of the annual general meeting", "All members are invited to attend."];
    const out = layoutPages(Array.from({ length: 4 }, () => page(lines(y, notice))));
    out.forEach((text) => expect(text).toBe(notice.join(" ")));
  });

  it("still drops a running header from the pages that have a body, and keeps it where it is all there is", () => {
    const out = layoutPages(
      pages(
        4,
        () => ["Annual report of the estuary survey 2024"],
        () => [],
      ).map((p, i) => (i === 3 ? page(lines(810, ["Annual report of the estuary survey 2024"], { size: 9 })) : p)),
    );
    out.slice(0, 3).forEach((text) => expect(text).not.toContain("Annual report"));
    expect(out[3]).toBe("Annual report of the estuary survey 2024");
  });

  it("never takes rotated text repeated on every page for a running line", () => {
    const stamp: PdfTextItem = { ...line("CONFIDENTIAL DRAFT", 800, { size: 9 }), upright: false };
    const out = layoutPages(
      pages(
        4,
        () => [],
        () => ["Page footer"],
        () => [stamp],
      ),
    );
    out.forEach((text) => {
      expect(text).toContain("CONFIDENTIAL DRAFT");
      expect(text).not.toContain("Page footer");
    });
  });

  it("keeps a large heading that opens several pages, even with a number in it", () => {
    const out = layoutPages(
      pages(
        3,
        () => [],
        () => [],
        (i) => [line(`Chapter ${i + 1}`, 800, { size: 20, font: BOLD })],
      ),
    );
    out.forEach((text, i) => expect(text).toMatch(new RegExp(`^# Chapter ${i + 1}$`, "m")));
  });

  it("keeps the edge lines of a single-page document unless they are its page number", () => {
    const [text] = layoutPages(
      pages(
        1,
        () => ["Letter to the volunteers"],
        () => ["1"],
      ),
    );
    expect(text).toMatch(/^Letter to the volunteers\n\nThe first page's body/);
    expect(text).not.toMatch(/\n1$/);
  });
});

/** A row of cells as Chromium writes it: each cell's text an item, a wide space item between cells. */
function row(cells: [string, number][], y: number, { size = 10, font = BODY }: At = {}): PdfTextItem[] {
  return cells.flatMap(([text, x], k) => {
    const item = { text, x, y, size, width: text.length * size * 0.5, font, upright: true };
    const next = cells[k + 1];
    if (!next) return [item];
    const end = x + item.width;
    return [item, { text: " ", x: end, y, size, width: next[1] - end, font, upright: true }];
  });
}

describe("tables", () => {
  const header: [string, number][] = [
    ["Age", 72],
    ["Alcohol use", 150],
    ["Marijuana use", 260],
  ];
  const body = (y: number, values: string[]): PdfTextItem[] =>
    row(
      values.map((v, k) => [v, [72, 180, 300][k]!] as [string, number]),
      y,
    );

  it("reads cells written side by side, row after row, as a pipe table with numbers set right", () => {
    const text = layoutOne([
      ...filler(760),
      ...row(header, 680, { font: BOLD }),
      ...body(666, ["12", "3.9", "1.1"]),
      ...body(652, ["13", "8.5", "3.4"]),
      ...body(638, ["14", "18.1", "8.7"]),
      ...lines(610, ["A paragraph after the table."]),
    ]);
    expect(text).toContain(
      [
        "| Age | Alcohol use | Marijuana use |",
        "| ---: | ---: | ---: |",
        "| 12 | 3.9 | 1.1 |",
        "| 13 | 8.5 | 3.4 |",
        "| 14 | 18.1 | 8.7 |",
        "",
        "A paragraph after the table.",
      ].join("\n"),
    );
  });

  it("joins a cell's wrapped lines, written one under the other, into the cell", () => {
    const text = layoutOne([
      ...filler(760),
      ...row(header, 680),
      { text: "12", x: 72, y: 660, size: 10, width: 10, font: BODY, upright: true },
      { text: "mostly beer,", x: 150, y: 666, size: 10, width: 60, font: BODY, upright: true },
      { text: "some wine", x: 150, y: 654, size: 10, width: 45, font: BODY, upright: true },
      { text: "1.1", x: 300, y: 660, size: 10, width: 15, font: BODY, upright: true },
      ...body(636, ["13", "8.5", "3.4"]),
    ]);
    expect(text).toContain("| 12 | mostly beer, some wine | 1.1 |\n| 13 | 8.5 | 3.4 |");
  });

  it("reads a table of 150,000 cells on one page whole (no list of them is spread into a call's arguments)", () => {
    // A page as tall as the table: a producer may set any size (a long receipt, a spreadsheet printed to one page).
    const rows = 50_000;
    const top = rows * 14 + 100;
    const items = Array.from({ length: rows }, (_, r) => body(top - 30 - r * 14, [`r${r}`, `${r}`, `${r * 2}`])).flat();
    const [out] = layout([
      { box: [0, 0, 595, top + 50], items: [...row(header, top - 16), ...items], monospaceFonts: [] },
    ]);
    const lines = out!.text.split("\n");
    expect(lines).toHaveLength(rows + 2);
    expect(lines.at(-1)).toBe(`| r${rows - 1} | ${rows - 1} | ${(rows - 1) * 2} |`);
  });

  it("leaves prose in two page columns alone: its lines are written a column at a time", () => {
    const left = Array.from({ length: 5 }, (_, i) =>
      line(`Left column line ${i} of a longer paragraph here.`, 700 - 12 * i),
    );
    const right = Array.from({ length: 5 }, (_, i) =>
      line(`Right column line ${i} of a longer paragraph.`, 700 - 12 * i, { x: 320 }),
    );
    const text = layoutOne([...left, ...right]);
    expect(text).not.toContain("|");
    expect(text.indexOf("Left column line 4")).toBeLessThan(text.indexOf("Right column line 0"));
  });

  it("leaves justified prose written a word at a time, its spaces stretched, as prose", () => {
    // Four lines of four words each, every gap stretched to 0.8 em: by position alone, a four-column table.
    const words = ["Ferries", "cross", "the", "sound"];
    const items = [0, 1, 2, 3].flatMap((k) => {
      let x = 72;
      const at: [string, number][] = words.map((w) => {
        const cell: [string, number] = [w, x];
        x += w.length * 5 + 8;
        return cell;
      });
      return row(at, 700 - 14 * k);
    });
    const text = layoutOne([...filler(780), ...items]);
    expect(text).not.toContain("|");
    expect(text).toContain("Ferries cross the sound Ferries cross the sound");
  });

  it("leaves a list whose markers stand apart from their text a list", () => {
    const items = ["Apples", "Pears", "Plums"].flatMap((fruit, i) =>
      row(
        [
          [`${i + 1}.`, 72],
          [fruit, 100],
        ],
        700 - 14 * i,
      ),
    );
    expect(layoutOne([...filler(780), ...items])).toContain("1. Apples\n2. Pears\n3. Plums");
  });

  it("joins a table the page breaks into one, dropping the header the next page repeats", () => {
    const out = layout([
      page([
        ...filler(760),
        ...row(header, 200),
        ...body(186, ["12", "3.9", "1.1"]),
        ...body(172, ["13", "8.5", "3.4"]),
      ]),
      page([...row(header, 780), ...body(766, ["14", "18.1", "8.7"]), ...body(752, ["15", "27.5", "14.5"])]),
    ]);
    expect(out[1]!.continuesTable).toBe(true);
    expect(out[1]!.text).toBe("| 14 | 18.1 | 8.7 |\n| 15 | 27.5 | 14.5 |");
    expect(out[0]!.text.match(/\| Age \|/g)).toHaveLength(1);
    expect(out[0]!.text.endsWith("| 13 | 8.5 | 3.4 |")).toBe(true);
  });

  it("joins a ruled table the page breaks, its columns bounded by the same rules on both pages", () => {
    // Upright rules at the table's edges and between its columns, as a grid table draws them.
    const rules = (top: number, bottom: number): PdfPageContent["rules"] =>
      [68, 140, 250, 360].map((x) => [x, bottom, x + 0.75, top] as [number, number, number, number]);
    const out = layout([
      { ...page([...filler(760), ...row(header, 200), ...body(186, ["12", "3.9", "1.1"])]), rules: rules(212, 180) },
      { ...page([...row(header, 780), ...body(766, ["13", "8.5", "3.4"])]), rules: rules(792, 760) },
    ]);
    expect(out[1]!.continuesTable).toBe(true);
    expect(out[1]!.text).toBe("| 13 | 8.5 | 3.4 |");
  });

  it("starts list items at bullets drawn as shapes, nested by where the shape is", () => {
    const items = [
      line("Tide tables", 700, { x: 90 }),
      line("printed on paper", 686, { x: 110 }),
      line("Radio", 672, { x: 90 }),
    ];
    const marks: PdfPageContent["marks"] = [
      [80, 702, 84, 706],
      [100, 688, 104, 692],
      [80, 674, 84, 678],
    ];
    const [text] = layout([{ ...page([...filler(780), ...items]), marks }]).map((p) => p.text);
    expect(text).toContain("- Tide tables\n  - printed on paper\n- Radio");
  });

  it("keeps a line wrapped inside an item that starts with an em dash in the item", () => {
    const text = layoutOne([
      line("• The third route, the longest", 700, { x: 72 }),
      line("— and the last — closes in winter.", 688, { x: 82 }),
    ]);
    expect(text).toBe("- The third route, the longest — and the last — closes in winter.");
  });
});

describe("footnotes", () => {
  // A paragraph whose last line on page 1 stops mid-sentence and goes on at the head of page 2.
  const broken = (note: PdfTextItem[], rules: PdfPageContent["rules"] = []) =>
    layout([
      {
        ...page([
          ...filler(760),
          ...lines(100, ["The ferry crossed to the islands each", "morning while the crews"]),
          ...note,
        ]),
        rules,
      },
      page(lines(780, ["loaded freight onto the decks.", "", "A new paragraph starts here on page two."])),
    ]);

  it("writes a footnote under a short rule after the paragraph the page breaks, which joins across the page", () => {
    const out = broken([line("1 The inner basin, not the outer roads.", 60, { size: 8 })], [[72, 74, 160, 74.5]]);
    expect(out[1]!.continuesParagraph).toBe(true);
    expect(out[0]!.text.endsWith("morning while the crews")).toBe(true);
    expect(out[1]!.text).toBe(
      "loaded freight onto the decks.\n\n1 The inner basin, not the outer roads.\n\nA new paragraph starts here on page two.",
    );
    // The note's line still says it is printed on the page before.
    const note = out[1]!.lines.find((l) => out[1]!.text.slice(l.start, l.end).startsWith("1 The inner"))!;
    expect(note.pagesBack).toBe(1);
  });

  it("takes a footnote set apart by a wide gap and marked with a symbol, with its wrapped second line", () => {
    const out = broken([
      line("* The inner basin, not the outer", 50, { size: 8 }),
      line("roads of the harbour.", 41, { size: 8 }),
    ]);
    expect(out[1]!.text).toContain("decks.\n\n\\* The inner basin, not the outer roads of the harbour.\n\nA new");
  });

  it("leaves small type in place when nothing sets it apart, or it starts without a marker", () => {
    const close = broken([line("1 The inner basin, not the outer roads.", 80, { size: 8 })]);
    expect(close[0]!.text).toContain("1 The inner basin");
    const unmarked = broken([line("Photograph: the inner basin at dawn.", 50, { size: 8 })]);
    expect(unmarked[0]!.text).toContain("Photograph: the inner basin");
    expect(unmarked[1]!.text).toBe("loaded freight onto the decks.\n\nA new paragraph starts here on page two.");
  });

  it("does not run a paragraph on into the next page when it ends a sentence, or the next page starts a heading", () => {
    const ended = layout([
      page([...filler(760), ...lines(100, ["The ferry crossed to the islands each", "morning at dawn."])]),
      page(lines(780, ["loaded freight onto the decks."])),
    ]);
    expect(ended[1]!.continuesParagraph).toBeUndefined();
  });
});

describe("sidebars", () => {
  // A box drawn round the right-hand part of the page, from y 600 to 700.
  const box: PdfPageContent["rules"] = [
    [360, 600, 360.75, 700],
    [522.25, 600, 523, 700],
    [360, 699.25, 523, 700],
    [360, 600, 523, 600.75],
  ];
  const aside = lines(
    686,
    ["Timetable note", "Ferries leave on the hour", "from the inner basin."],
    { x: 366, size: 9 },
    11,
  );
  const body = lines(720, [
    "The ferry crossed to the islands each morning while",
    "the crews loaded freight onto the decks and the",
    "passengers waited along the quays under grey skies",
    "as the tides turned and the gulls circled above the",
    "old customs house near the market streets of the",
    "harbour town, where the day began early.",
  ]);

  it("writes a boxed sidebar beside the body after the page's body, not before its first paragraph", () => {
    // Written first, as Chromium writes a floated box.
    const [text] = layout([{ ...page([...aside, ...body]), rules: box }]).map((p) => p.text);
    expect(text).toBe(
      "The ferry crossed to the islands each morning while the crews loaded freight onto the decks and the passengers waited along the quays under grey skies as the tides turned and the gulls circled above the old customs house near the market streets of the harbour town, where the day began early.\n\n" +
        "Timetable note Ferries leave on the hour from the inner basin.",
    );
  });

  it("leaves a box with nothing beside it where it is", () => {
    const [text] = layout([
      { ...page([...aside, ...lines(560, ["Below the box, the body goes on."])]), rules: box },
    ]).map((p) => p.text);
    expect(text).toMatch(/^Timetable note/);
  });
});
