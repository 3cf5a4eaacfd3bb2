/**
 * The language detectors compared before eld was chosen (lib/language/detect.ts):
 * each on the UDHR windows of `npm run eval -- --only language`, accuracy at
 * 50/100/200 characters, per language, and time a call (the first calls,
 * which load the data, included).
 *
 *   npx tsx scripts/measure-language-detectors.ts
 */
import { performance } from "node:perf_hooks";
import { eld as eldSmall } from "eld/small";
import { eld as eldMedium } from "eld/medium";
import { detect as tinyNormal } from "tinyld";
import { detect as tinyLight } from "tinyld/light";
import { franc } from "franc-min";
import { UDHR_LANGUAGES, udhrText, windows } from "@/eval/language-samples";

const FRANC: Record<string, string> = {
  eng: "en",
  deu: "de",
  fra: "fr",
  spa: "es",
  ita: "it",
  por: "pt",
  nld: "nl",
  swe: "sv",
  fin: "fi",
  pol: "pl",
  ces: "cs",
  tur: "tr",
  rus: "ru",
  ukr: "uk",
  ell: "el",
  heb: "he",
  arb: "ar",
  hin: "hi",
  vie: "vi",
  ind: "id",
  cmn: "zh",
  jpn: "ja",
  kor: "ko",
  tha: "th",
};
const detectors: Record<string, (t: string) => string> = {
  "eld/small": (t) => eldSmall.detect(t).language,
  "eld/medium": (t) => eldMedium.detect(t).language,
  tinyld: (t) => tinyNormal(t),
  "tinyld/light": (t) => tinyLight(t),
  "franc-min": (t) => FRANC[franc(t, { minLength: 1 })] ?? "und",
};
const SIZES = [50, 100, 200];
const texts = Object.fromEntries(Object.entries(UDHR_LANGUAGES).map(([iso, code]) => [iso, udhrText(code)]));
for (const [name, detect] of Object.entries(detectors)) {
  const row: string[] = [];
  let ms = 0,
    n = 0;
  const perLang: Record<string, number[]> = {};
  for (const size of SIZES) {
    let right = 0,
      total = 0;
    for (const [iso, text] of Object.entries(texts)) {
      let ok = 0;
      const samples = windows(text, size, 40);
      for (const s of samples) {
        const t0 = performance.now();
        const got = detect(s);
        ms += performance.now() - t0;
        n++;
        if (got === iso) ok++;
      }
      right += ok;
      total += samples.length;
      (perLang[iso] ??= []).push(Math.round((100 * ok) / samples.length));
    }
    row.push(`${size}ch ${((100 * right) / total).toFixed(1)}%`);
  }
  console.log(`${name.padEnd(13)} ${row.join("  ")}  ${((1000 * ms) / n).toFixed(0)} µs/call`);
  console.log(
    "   " +
      Object.entries(perLang)
        .map(([k, v]) => `${k}:${v.join("/")}`)
        .join(" "),
  );
}
