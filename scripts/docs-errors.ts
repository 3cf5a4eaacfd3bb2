/**
 * Writes the README's error table from the table of codes (`lib/error-codes.ts`), worded with the default
 * settings' limits. `tests/openapi.test.ts` fails while the README's copy differs: run `npm run docs:errors`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { loadConfig } from "@/lib/config";
import { errorCatalogue, errorTableMarkdown } from "@/lib/error-codes";

export const START = "<!-- error-codes:start (npm run docs:errors) -->";
export const END = "<!-- error-codes:end -->";

export function withErrorTable(readme: string, table: string): string {
  const from = readme.indexOf(START);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) throw new Error(`README.md lacks the markers ${START} … ${END}`);
  return `${readme.slice(0, from + START.length)}\n${table}\n${readme.slice(to)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const readme = readFileSync("README.md", "utf8");
  writeFileSync("README.md", withErrorTable(readme, errorTableMarkdown(errorCatalogue(loadConfig({})))));
}
