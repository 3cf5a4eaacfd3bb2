import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    // tests/: the core, the API and built servers; e2e/: the page in Chromium against the built app.
    include: ["tests/**/*.test.ts", "e2e/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Redis-backed suites each start their own redis-server; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});
