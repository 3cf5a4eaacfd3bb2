/**
 * The serverless functions of the build (`npm run build`): each one's files
 * and unzipped size from its `.nft.json` trace, counted as Vercel counts its
 * limit (scripts/function-traces.ts). Fails (exit 1) when a function is over
 * its limit, a light route ships OCR or a parser, a heavy one lacks its worker
 * or its OCR languages, or any ships a TypeScript compiler; `npm run build`
 * runs it last, so such a build fails.
 *   npm run size            (reads .next, or NEXT_DIST_DIR)
 */
import path from "node:path";
import { BUILT_OCR_LANGUAGES, COMPILED_DIR, HEAVY_ROUTES, LIGHT_ROUTES } from "../next.config";
import { languageDataPath } from "../lib/ground/ocr-language-data";
import { functionBundles, sizeProblems, sizeTable } from "./function-traces";

/** Vercel's limit is 250 MB; ours leaves room for what the open issues add. */
const MAX_BYTES = 150e6;
/** Routes that answer from the store or from code alone: they must start fast. */
const LIGHT_MAX_BYTES = 50e6;

const root = path.resolve(import.meta.dirname, "..");
const bundles = functionBundles(root, process.env.NEXT_DIST_DIR || ".next");
console.log(sizeTable(bundles, LIGHT_ROUTES));
const problems = sizeProblems(bundles, {
  maxBytes: MAX_BYTES,
  light: {
    routes: LIGHT_ROUTES,
    maxBytes: LIGHT_MAX_BYTES,
    mustNotShip:
      /(^|\/)node_modules\/(tesseract\.js|tesseract\.js-core|@tesseract\.js-data|@energetic-ai|@napi-rs\/canvas|unpdf|mammoth)\/|-compiled\/|^workers\//,
  },
  heavy: {
    routes: HEAVY_ROUTES,
    mustShip: [
      `${COMPILED_DIR}/cpu-worker.mjs`,
      "workers/extract-worker.mjs",
      ...BUILT_OCR_LANGUAGES.map(languageDataPath),
    ],
  },
  forbidden: /(^|\/)node_modules\/(tsx|esbuild|@esbuild\/[^/]+|typescript)\/|^lib\/.*\.ts$/,
});
if (problems.length > 0) {
  console.error(`\nFunctions that do not fit (${problems.length}):\n${problems.map((p) => `- ${p}`).join("\n")}`);
  process.exit(1);
}
console.log(
  `\nEvery function fits: at most ${MAX_BYTES / 1e6} MB, light routes at most ${LIGHT_MAX_BYTES / 1e6} MB; OCR languages ${BUILT_OCR_LANGUAGES.join("+")}.`,
);
