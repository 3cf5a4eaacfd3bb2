/**
 * Named entities by simple surface rules, for the stand-in's
 * `chunk_enrichment` answers. Each rule claims spans of the text in turn
 * (dates, products, people, organisations, places, then any other
 * capitalised name); a later rule never takes text an earlier one claimed,
 * so "Acme Bank" is one organisation and not also a name of type "other".
 * Entities come in order of appearance, each text once.
 */
import type { Entity, EntityType } from "@/lib/api-schema";

const MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December";
const MONTHS_SHORT = "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec";
const MONTH = `(?:${MONTHS}|(?:${MONTHS_SHORT})\\.?)`;
const DAY = String.raw`\d{1,2}(?:st|nd|rd|th)?`;
const YEAR = String.raw`(?:1[5-9]\d{2}|20\d{2})`;

const DATE_PATTERNS = [
  new RegExp(String.raw`\b${MONTH}\s+${DAY}(?:,?\s+${YEAR})?\b`, "g"), // March 3, 2024
  new RegExp(String.raw`\b${DAY}\s+${MONTH}(?:,?\s+${YEAR})?\b`, "g"), // 3 March 2024
  new RegExp(String.raw`\b${MONTH}\s+${YEAR}\b`, "g"), // March 2024
  /\b\d{4}-\d{2}-\d{2}\b/g, // 2024-03-03
  // 1999, but not "2048 tokens" or "1500 metres": a year is not followed by a unit.
  new RegExp(
    String.raw`\b${YEAR}\b(?![.,]\d|\s*(?:%|(?:tokens|bytes|words|characters|pages|users|people|items|rows|files|lines|metres|meters|miles|units|times|copies|km|kg|ms|MB|GB|px)\b))`,
    "g",
  ),
];

/** Capitalised words, with "of", "for" or "&" inside ("Institute for Fiscal Studies"). */
const CAP = String.raw`\p{Lu}[\p{L}&'-]*`;
const CAP_RUN = String.raw`${CAP}(?:[ \t]+(?:(?:of|for|&)[ \t]+)?${CAP})*`;
const ORG_SUFFIX =
  "Organization|Organisation|Inc|Ltd|Corp|Corporation|Company|Co|LLC|GmbH|University|Foundation|Agency|Bank|Institute|Association|Council|Ministry|Department";

const ORG_PATTERNS = [
  new RegExp(
    String.raw`\b(?:University|Institute|Bank|Ministry|Department)[ \t]+of[ \t]+(?:the[ \t]+)?${CAP}(?:[ \t]+${CAP})*`,
    "gu",
  ), // University of Oxford
  new RegExp(String.raw`\b${CAP_RUN}[ \t]+(?:${ORG_SUFFIX})\b`, "gu"), // Acme Widgets Inc
  /\b[A-Z]{2,6}\b/g, // NASA, WHO
];

/** Upper-case words that are not organisations. */
const NOT_ORGS = new Set(
  "OK AM PM TV PC ID PDF API APIs URL URI HTTP HTTPS JSON HTML CSS XML SQL CSV TXT DOCX RAG LLM AI ML CPU GPU RAM SSD USB FAQ TODO NB PS II III IV VI VII VIII IX XI XII CEO CTO CFO USD EUR GBP USDC SOL KB MB GB TB ASAP EOF README NOTE TIP WARNING I A".split(
    " ",
  ),
);

const PEOPLE_PATTERNS = [
  /\b(?:Mr|Mrs|Ms|Mx|Dr|Prof|Sir|Dame)\.?\s+\p{Lu}[\p{L}'-]+(?:\s+\p{Lu}[\p{L}'-]+)?/gu, // Dr Jane Smith
  /(?<=\b(?:said|by|according to|wrote|told|thanked|asked)\s+)\p{Lu}\p{Ll}+\s+\p{Lu}[\p{L}'-]+/gu, // said Jane Smith
  /\b\p{Lu}\p{Ll}+\s+\p{Lu}\p{Ll}+(?=\s+(?:said|says|wrote|told|asked|explained)\b)/gu, // Jane Smith said
];

/** Countries and large cities, spelled as English writes them. */
const PLACES = [
  "Afghanistan",
  "Argentina",
  "Australia",
  "Austria",
  "Bangladesh",
  "Belgium",
  "Brazil",
  "Canada",
  "Chile",
  "China",
  "Colombia",
  "Denmark",
  "Egypt",
  "England",
  "Ethiopia",
  "Finland",
  "France",
  "Germany",
  "Ghana",
  "Greece",
  "Hungary",
  "Iceland",
  "India",
  "Indonesia",
  "Iran",
  "Iraq",
  "Ireland",
  "Israel",
  "Italy",
  "Japan",
  "Kenya",
  "Korea",
  "Mexico",
  "Morocco",
  "Netherlands",
  "New Zealand",
  "Nigeria",
  "Norway",
  "Pakistan",
  "Peru",
  "Philippines",
  "Poland",
  "Portugal",
  "Romania",
  "Russia",
  "Scotland",
  "Singapore",
  "South Africa",
  "Spain",
  "Sweden",
  "Switzerland",
  "Taiwan",
  "Thailand",
  "Turkey",
  "Ukraine",
  "United Kingdom",
  "United States",
  "Vietnam",
  "Wales",
  "Europe",
  "Africa",
  "Asia",
  "America",
  "North America",
  "South America",
  "Amsterdam",
  "Athens",
  "Bangkok",
  "Barcelona",
  "Beijing",
  "Berlin",
  "Boston",
  "Brussels",
  "Buenos Aires",
  "Cairo",
  "Chicago",
  "Copenhagen",
  "Delhi",
  "Dublin",
  "Edinburgh",
  "Geneva",
  "Hamburg",
  "Helsinki",
  "Hong Kong",
  "Istanbul",
  "Jakarta",
  "Lagos",
  "Lisbon",
  "London",
  "Los Angeles",
  "Madrid",
  "Manchester",
  "Melbourne",
  "Mexico City",
  "Milan",
  "Montreal",
  "Moscow",
  "Mumbai",
  "Munich",
  "Nairobi",
  "New York",
  "Oslo",
  "Paris",
  "Prague",
  "Rome",
  "San Francisco",
  "Santiago",
  "Seattle",
  "Seoul",
  "Shanghai",
  "Stockholm",
  "Sydney",
  "Tokyo",
  "Toronto",
  "Vancouver",
  "Vienna",
  "Warsaw",
  "Washington",
  "Zurich",
  "UK",
  "USA",
  "U.S.",
  "EU",
];
const PLACE_PATTERN = new RegExp(
  String.raw`(?<![\p{L}.])(?:${[...PLACES]
    .sort((a, b) => b.length - a.length)
    .map((p) => p.replace(/\./g, "\\."))
    .join("|")})(?![\p{L}])`,
  "gu",
);

/** A capitalised name and a version: "Postgres 16", "Windows 11", "Node.js 20.1", "Python v3.12". */
const PRODUCT_PATTERN =
  /\b\p{Lu}[\p{L}.+#-]*[\p{L}+#](?:\s+\p{Lu}[\p{L}+#-]*)?\s+v?\d{1,3}(?:\.\d+){0,3}\b(?![.,]\d)/gu;
/** Capitalised words before a number that name a part of a text, a time or a quantity rather than a product. */
const NOT_PRODUCT_HEADS = new Set(
  `${MONTHS}|${MONTHS_SHORT}|Section|Chapter|Part|Figure|Fig|Table|Page|Step|Article|Clause|Item|Appendix|Version|Level|Room|Floor|Route|Day|Week|Year|Number|No|Vol|Phase|Stage|Round|Grade|Class|Unit|Line|Rule|Question|Exhibit|Schedule|Annex|In|On|At|By|For|From|To|Of|The|A|An|And|Or|But|If|About|After|Before|Since|Until|Over|Under|Around|Nearly|Almost|Only|About|Some|All|Each|Every|Top|Up`.split(
    "|",
  ),
);

/** Two or more capitalised words in a row: names that no rule above typed. */
const OTHER_PATTERN = /\b\p{Lu}[\p{L}'-]+(?:[ \t]+\p{Lu}[\p{L}'-]+)+/gu;
/** Capitalised function words that begin sentences ("The Board", "In Paris"): not part of the name. */
const LEADING_FUNCTION_WORDS =
  /^(?:(?:The|A|An|This|That|These|Those|In|On|At|By|For|From|To|Of|And|But|Or|If|When|While|After|Before|Our|Their|Its|His|Her|My|Your|We|They|It|He|She|I|As|With|Every|Each|All|Some|Any|No)\s+)+/u;

interface Match {
  start: number;
  end: number;
  text: string;
  type: EntityType;
}

/** Matches of `pattern`, typed `type`. */
function* matchesOf(text: string, pattern: RegExp, type: EntityType): Generator<Match> {
  for (const m of text.matchAll(pattern)) yield { start: m.index, end: m.index + m[0].length, text: m[0], type };
}

/** The match without the capitalised function words a sentence may begin with ("The Board" is "Board"). */
function withoutLeadingFunctionWords(m: Match): Match {
  const lead = LEADING_FUNCTION_WORDS.exec(m.text)?.[0] ?? "";
  return lead ? { ...m, start: m.start + lead.length, text: m.text.slice(lead.length) } : m;
}

function overlaps(claimed: readonly Match[], candidate: Match): boolean {
  return claimed.some((c) => candidate.start < c.end && c.start < candidate.end);
}

function isAllCapsLine(text: string, at: number): boolean {
  const lineStart = text.lastIndexOf("\n", at) + 1;
  const lineEnd = text.indexOf("\n", at);
  const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd);
  return !/\p{Ll}/u.test(line);
}

export function findEntities(text: string): Entity[] {
  const claimed: Match[] = [];
  const take = (m: Match) => {
    if (!overlaps(claimed, m)) claimed.push(m);
  };

  for (const pattern of DATE_PATTERNS) for (const m of matchesOf(text, pattern, "dates")) take(m);
  for (const m of matchesOf(text, PRODUCT_PATTERN, "products")) {
    const head = m.text.split(/\s+/)[0]!.replace(/\.$/, "");
    if (!NOT_PRODUCT_HEADS.has(head)) take(m);
  }
  for (const pattern of PEOPLE_PATTERNS) for (const m of matchesOf(text, pattern, "people")) take(m);
  for (const pattern of ORG_PATTERNS) {
    for (const m of matchesOf(text, pattern, "organisations")) {
      const acronym = /^[A-Z]{2,6}$/.test(m.text);
      if (acronym && (NOT_ORGS.has(m.text) || PLACES.includes(m.text) || isAllCapsLine(text, m.start))) continue;
      const name = withoutLeadingFunctionWords(m);
      // "The Bank" is a common noun at a sentence's start, not a name.
      if (acronym || /\s/.test(name.text)) take(name);
    }
  }
  for (const m of matchesOf(text, PLACE_PATTERN, "places")) take(m);
  for (const found of matchesOf(text, OTHER_PATTERN, "other")) {
    const m = withoutLeadingFunctionWords(found);
    // After the leading function words are dropped, a name must still be two words or more.
    if (/\s/.test(m.text) && !isAllCapsLine(text, m.start)) take(m);
  }

  claimed.sort((a, b) => a.start - b.start);
  const seen = new Set<string>();
  const entities: Entity[] = [];
  for (const m of claimed) {
    if (seen.has(m.text)) continue;
    seen.add(m.text);
    entities.push({ text: m.text, type: m.type });
  }
  return entities;
}
