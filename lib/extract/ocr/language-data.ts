import { existsSync, mkdirSync, readdirSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * Tesseract's trained data for a language, from its npm package
 * (`@tesseract.js-data/<code>`, one per language, MIT), read from
 * node_modules: tesseract.js would otherwise download it from a CDN. The
 * package's `4.0.0` folder holds Tesseract's standard data (an LSTM model,
 * which is read, and the legacy engine's, which is not); `4.0.0_best_int`
 * holds a larger LSTM model, about twice as slow (8.3 s against 4.4 s for a
 * dense page on one core, measured on this project's machine).
 */

/** Tesseract's language codes: "eng", "fra", "chi_sim". */
export const LANGUAGE_CODE = /^[a-z]{3}(_[a-z]{3,4})?$/;

/** Where `code`'s data is installed, or undefined when its package is not. */
export function languageDataFile(code: string): string | undefined {
  if (!LANGUAGE_CODE.test(code)) return undefined;
  // From the working directory, as the service's other files are: a bundler turns require.resolve into a module id.
  const file = path.join(process.cwd(), "node_modules/@tesseract.js-data", code, "4.0.0", `${code}.traineddata.gz`);
  return existsSync(file) ? file : undefined;
}

/**
 * A folder holding `<code>.traineddata.gz` for each of `codes`, for
 * tesseract.js's `langPath`. It cannot take the bytes themselves: tesseract.js
 * 7.0.0 names a language given as `{ code, data }` by its data when it starts
 * Tesseract (naptha/tesseract.js#1052, unreleased), and a bare name with no
 * `langPath` is fetched from a CDN. One language is read where npm put it;
 * several, which live in a folder each, are linked side by side in a
 * temporary folder.
 */
export function languageFolder(codes: readonly string[]): string {
  const files = codes.map((code) => {
    const file = languageDataFile(code);
    if (!file) throw new Error(`OCR language ${code} is not installed: npm install @tesseract.js-data/${code}`);
    return file;
  });
  if (files.length === 1) return path.dirname(files[0]!);
  const folder = path.join(tmpdir(), `chunkwise-tessdata-${codes.join("+")}`);
  mkdirSync(folder, { recursive: true });
  files.forEach((file, i) => {
    const link = path.join(folder, `${codes[i]}.traineddata.gz`);
    // Another thread may have made it already; a stale link from an older install is replaced.
    if (existsSync(link) && realpathSync(link) === realpathSync(file)) return;
    rmSync(link, { force: true });
    symlinkSync(file, link);
  });
  return folder;
}

let installed: string[] | undefined;

/**
 * Tesseract's codes whose data packages are installed, sorted: what a
 * request's `ocr_languages` may name. Read from node_modules once per
 * process (the set only changes with a deploy).
 */
export function installedLanguages(): readonly string[] {
  if (installed) return installed;
  const root = path.join(process.cwd(), "node_modules/@tesseract.js-data");
  installed = (existsSync(root) ? readdirSync(root) : []).filter((code) => languageDataFile(code)).sort();
  return installed;
}
