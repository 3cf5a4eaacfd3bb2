import { existsSync, mkdirSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { languageDataFile } from "@/lib/ground/ocr-language-data";

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
