import { existsSync, readdirSync } from "node:fs";
import path from "node:path";

/**
 * Which OCR languages are installed (read only: config.ts checks OCR_LANGUAGES against it; OCR itself is in
 * lib/extract/ocr). Tesseract's trained data for a language, from its npm package
 * (`@tesseract.js-data/<code>`, one per language, MIT), read from
 * node_modules: tesseract.js would otherwise download it from a CDN. The
 * package's `4.0.0` folder holds Tesseract's standard data (an LSTM model,
 * which is read, and the legacy engine's, which is not); `4.0.0_best_int`
 * holds a larger LSTM model, about twice as slow (8.3 s against 4.4 s for a
 * dense page on one core, measured on this project's machine).
 */

/** Tesseract's language codes: "eng", "fra", "chi_sim". */
const LANGUAGE_CODE = /^[a-z]{3}(_[a-z]{3,4})?$/;

/** OCR_LANGUAGES when unset. */
export const DEFAULT_OCR_LANGUAGES = "eng";

/** OCR_LANGUAGES as written (`eng+deu`): its codes, in order. Read by the config and by the build (next.config.ts). */
export const languageCodes = (value: string): string[] => value.split("+").map((code) => code.trim());

/** Where a language's data is, relative to the project root: the one file OCR reads, and a build ships. */
export const languageDataPath = (code: string) =>
  `node_modules/@tesseract.js-data/${code}/4.0.0/${code}.traineddata.gz`;

/** Where `code`'s data is installed, or undefined when its package is not. */
export function languageDataFile(code: string): string | undefined {
  if (!LANGUAGE_CODE.test(code)) return undefined;
  // From the working directory, as the service's other files are: a bundler turns require.resolve into a module id.
  const file = path.join(process.cwd(), languageDataPath(code));
  return existsSync(file) ? file : undefined;
}

/**
 * Why OCR cannot read `code` here, or undefined when it can. A build ships the data of the languages OCR_LANGUAGES
 * named when it ran, and only into the functions that run OCR (next.config.ts), and records which
 * (CHUNKWISE_BUILT_OCR_LANGUAGES, inlined into the build): the other functions lack the files and must still accept
 * the config. Without a build (dev, tests, server.mjs's own start-up check) the installed packages tell.
 */
export function languageProblem(code: string): string | undefined {
  if (!LANGUAGE_CODE.test(code))
    return `OCR_LANGUAGES: ${JSON.stringify(code)} is not a Tesseract language code (eng, fra, chi_sim, ...; several joined by "+").`;
  const built = process.env.CHUNKWISE_BUILT_OCR_LANGUAGES;
  if (built !== undefined)
    return built.split("+").includes(code)
      ? undefined
      : `OCR_LANGUAGES names ${code}, which this build did not ship (it has ${built}): build again with OCR_LANGUAGES set as it is at run time.`;
  return languageDataFile(code)
    ? undefined
    : `OCR_LANGUAGES names ${code}, which is not installed: npm install @tesseract.js-data/${code}`;
}

let installed: string[] | undefined;

/**
 * Tesseract's codes whose data packages are installed, sorted: what a
 * request's `ocr_languages` may name. Read from node_modules once per
 * process (the set only changes with a deploy).
 */
export function installedLanguages(): readonly string[] {
  if (installed) return installed;
  // In a build, what it shipped to the functions that run OCR (see `languageProblem`), whatever this function holds.
  const built = process.env.CHUNKWISE_BUILT_OCR_LANGUAGES;
  if (built !== undefined) return (installed = built.split("+").filter(Boolean).sort());
  const root = path.join(process.cwd(), "node_modules/@tesseract.js-data");
  installed = (existsSync(root) ? readdirSync(root) : []).filter((code) => languageDataFile(code)).sort();
  return installed;
}
