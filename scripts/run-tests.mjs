// Runs the whole vitest suite and closes with the plain "N passed, N failed"
// line CI reads (vitest's own summary is not one it knows).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const report = join(mkdtempSync(join(tmpdir(), "chunkwise-tests-")), "vitest.json");
const run = spawnSync(
  "npx",
  ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile=${report}`, ...process.argv.slice(2)],
  { stdio: "inherit" },
);

let passed = 0;
let failed = 0;
try {
  const results = JSON.parse(readFileSync(report, "utf8"));
  passed = results.numPassedTests;
  failed = results.numFailedTests + (results.numRuntimeErrors ?? 0);
  if (!results.success && failed === 0) failed = 1;
} catch {
  failed = Math.max(failed, 1);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(run.status === 0 && failed === 0 && passed > 0 ? 0 : 1);
