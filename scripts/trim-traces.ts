/**
 * Takes out of the build's function traces (`.nft.json`, which a deployment
 * reads to know what each function ships) what a function never loads:
 * Tesseract builds and language data that never load, from every function,
 * and everything reading documents needs (next.config.ts, LIGHT_ROUTES_DROP)
 * from the light routes. `npm run build` runs it after `next build`.
 *
 * Written here rather than as next.config.ts's outputFileTracingExcludes:
 * Turbopack matches those keys against names of its own for routes (its
 * glob has no negation to single out `/api` from `/api/...`), and its
 * excludes never remove what outputFileTracingIncludes added.
 *   npx tsx scripts/trim-traces.ts     (the build in .next, or NEXT_DIST_DIR)
 */
import path from "node:path";
import { LIGHT_ROUTES, LIGHT_ROUTES_DROP, NEVER_SHIPPED } from "../next.config";
import { routeTraces, trimTrace } from "./function-traces";

const root = path.resolve(import.meta.dirname, "..");
let removed = 0;
for (const { route, traceFile } of routeTraces(root, process.env.NEXT_DIST_DIR || ".next")) {
  const light = LIGHT_ROUTES.includes(route);
  removed += trimTrace(root, traceFile, (file) => NEVER_SHIPPED.test(file) || (light && LIGHT_ROUTES_DROP.test(file)));
}
console.log(`Took ${removed} files that never load out of the functions' traces.`);
