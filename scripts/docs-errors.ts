/**
 * Writes the error table of docs/errors.md from the table of codes (`lib/ground/error-codes.ts`), worded with the
 * default settings' limits. `tests/error-table.test.ts` fails while that copy differs: run `npm run docs:errors`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { loadConfig } from "@/lib/ground/config";
import { errorCatalogue, errorTableMarkdown } from "@/lib/ground/error-codes";

export const START = "<!-- error-codes:start (npm run docs:errors) -->";
export const END = "<!-- error-codes:end -->";
export const ERRORS_PAGE = "docs/errors.md";

export function withErrorTable(page: string, table: string): string {
  const from = page.indexOf(START);
  const to = page.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${ERRORS_PAGE} lacks the markers ${START} … ${END}`);
  return `${page.slice(0, from + START.length)}\n${table}\n${page.slice(to)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const page = readFileSync(ERRORS_PAGE, "utf8");
  writeFileSync(ERRORS_PAGE, withErrorTable(page, errorTableMarkdown(errorCatalogue(loadConfig({})))));
}
