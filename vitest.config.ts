import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** Suites that start `server.mjs` on the build, so they need `npm run build` first. */
const BUILT_SERVER = ["tests/server.test.ts", "tests/jobs-instances.test.ts"];
/** Suites that drive Debian's Chromium (to print PDFs as users make them). */
const BROWSER = ["tests/pdf-printed.test.ts"];

// Each project is named for what it starts, so `--project` says what a run needs (package.json's test:unit names the first).
const CORE_PROJECT = "core: redis-server + local chain";
const BUILT_PROJECT = "built app: next build + chromium";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    // Generous: the suite must pass on a busy machine (a job's first OCR'd page can wait minutes for a core there);
    // a hung test still ends, and speed is measured by `npm run bench`, not here.
    testTimeout: 180_000,
    hookTimeout: 240_000,
    // The service's request and event lines (info) would bury the test output; tests/observability.test.ts reads them.
    env: { LOG_LEVEL: "warn" },
    // Redis-backed suites each start their own redis-server; two cores, so keep parallelism modest.
    maxWorkers: 2,
    projects: [
      // The core, the route handlers and the CLI, in process: the tests start a redis-server and the
      // local chain themselves; no build, no browser (`npm run test:unit`).
      {
        extends: true,
        test: { name: CORE_PROJECT, include: ["tests/**/*.test.ts"], exclude: [...BUILT_SERVER, ...BROWSER] },
      },
      // Built servers, the page in Chromium against the built app, and PDFs printed by Chromium.
      { extends: true, test: { name: BUILT_PROJECT, include: [...BUILT_SERVER, ...BROWSER, "e2e/**/*.test.ts"] } },
    ],
  },
});
