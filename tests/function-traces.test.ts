import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import {
  type FunctionBundle,
  functionBundles,
  type SizeRules,
  sizeProblems,
  trimTrace,
} from "../scripts/function-traces";

/**
 * The size check `npm run build` ends with (scripts/function-sizes.ts), on a
 * small build laid out as Next writes one: traces relative to themselves, a
 * link Next makes to an external package, a file listed twice, the minimal
 * server's trace every function gets.
 */

let root: string;

function file(relative: string, bytes: number) {
  const full = path.join(root, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, Buffer.alloc(bytes, 1));
}

function trace(relative: string, files: string[]) {
  const full = path.join(root, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(
    full,
    JSON.stringify({ version: 1, files: files.map((f) => path.relative(path.dirname(full), path.join(root, f))) }),
  );
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "chunkwise-traces-"));
  file("node_modules/next/server.js", 1000);
  file("node_modules/heavy/index.js", 100);
  file("node_modules/heavy/data.bin", 5000);
  file("node_modules/tsx/dist/cli.mjs", 50);
  file("build/server/app/api/health/route.js", 10);
  file("build/server/app/api/chunk/route.js", 20);
  file("build/server/app/(site)/docs/page.js", 30);
  mkdirSync(path.join(root, "build/node_modules"), { recursive: true });
  // Next links an external package into the build as <name>-<hash>: the link ships as what it points to.
  symlinkSync(path.join(root, "node_modules/heavy"), path.join(root, "build/node_modules/heavy-0123abcd"));
  trace("build/next-minimal-server.js.nft.json", ["node_modules/next/server.js"]);
  trace("build/server/app/api/health/route.js.nft.json", ["node_modules/next/server.js"]);
  trace("build/server/app/api/chunk/route.js.nft.json", [
    "node_modules/heavy/index.js",
    "node_modules/heavy/data.bin",
    "node_modules/heavy/data.bin",
    "build/node_modules/heavy-0123abcd",
    "node_modules/tsx/dist/cli.mjs",
  ]);
  trace("build/server/app/(site)/docs/page.js.nft.json", []);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const byRoute = (bundles: FunctionBundle[]) => Object.fromEntries(bundles.map((b) => [b.route, b]));

describe("function sizes from a build's traces", () => {
  it("counts each file once per function, with the route's own file and the minimal server's, route groups left out of names", () => {
    const bundles = byRoute(functionBundles(root, "build"));
    expect(Object.keys(bundles).sort()).toEqual(["/api/chunk", "/api/health", "/docs"]);
    expect(bundles["/api/health"]).toMatchObject({ files: 2, bytes: 1010 });
    // index.js + data.bin once + tsx + route.js + next/server.js; the link is a folder, no bytes of its own.
    expect(bundles["/api/chunk"]).toMatchObject({ files: 5, bytes: 100 + 5000 + 50 + 20 + 1000 });
    expect(bundles["/docs"]).toMatchObject({ files: 2, bytes: 1030 });
    expect(bundles["/api/chunk"]!.paths).toContain("node_modules/heavy/data.bin");
  });

  const rules: SizeRules = {
    maxBytes: 6500,
    light: { routes: ["/api/health", "/docs"], maxBytes: 1020, mustNotShip: /node_modules\/heavy\// },
    heavy: { routes: ["/api/chunk"], mustShip: ["node_modules/heavy/index.js"] },
    forbidden: /node_modules\/tsx\//,
  };

  it("names each function over its limit, a heavy file in a light route, a missing needed file, a compiler shipped", () => {
    const bundles = functionBundles(root, "build");
    expect(sizeProblems(bundles, rules)).toEqual([
      "/api/chunk ships node_modules/tsx/dist/cli.mjs, which production never needs.",
      "/docs ships 0.0 MB (2 files), over its 0.0 MB limit.",
    ]);
    const tighter = sizeProblems(bundles, {
      ...rules,
      maxBytes: 6000,
      light: { ...rules.light, routes: ["/api/health", "/api/chunk", "/api/gone"], maxBytes: 2000 },
      heavy: { routes: ["/api/chunk"], mustShip: ["node_modules/heavy/index.js", "node_modules/heavy/missing.js"] },
      forbidden: /^$/,
    });
    expect(tighter).toEqual([
      "/api/gone is listed as a light route, but the build has no such function: update the list.",
      "/api/chunk ships 0.0 MB (5 files), over its 0.0 MB limit.",
      "/api/chunk is a light route but ships node_modules/heavy/index.js.",
      "/api/chunk does not ship node_modules/heavy/missing.js, which it needs.",
    ]);
  });

  it("passes a build whose functions all fit", () => {
    const bundles = functionBundles(root, "build").filter((b) => b.route !== "/docs");
    expect(
      sizeProblems(bundles, { ...rules, light: { ...rules.light, routes: ["/api/health"] }, forbidden: /^$/ }),
    ).toEqual([]);
  });
});

describe("trimming a trace", () => {
  it("removes the files named, keeping hashes and links by index in step, and the function shrinks by them", () => {
    const traceFile = path.join(root, "build/server/app/api/quota/route.js.nft.json");
    file("build/server/app/api/quota/route.js", 10);
    const relative = (f: string) => path.relative(path.dirname(traceFile), path.join(root, f));
    writeFileSync(
      traceFile,
      JSON.stringify({
        version: 1,
        files: [
          relative("build/node_modules/heavy-0123abcd"),
          relative("node_modules/heavy/data.bin"),
          relative("node_modules/next/server.js"),
          relative("build/node_modules/other-link"),
        ],
        fileHashes: ["h0", "h1", "h2", "h3"],
        symlinks: [
          [0, relative("node_modules/heavy")],
          [3, relative("node_modules/next")],
        ],
        entryHash: "e",
      }),
    );
    const before = byRoute(functionBundles(root, "build"))["/api/quota"]!;
    expect(trimTrace(root, traceFile, (f) => /heavy/.test(f))).toBe(2);
    const trimmed = JSON.parse(readFileSync(traceFile, "utf8"));
    expect(trimmed).toEqual({
      version: 1,
      files: [relative("node_modules/next/server.js"), relative("build/node_modules/other-link")],
      fileHashes: ["h2", "h3"],
      symlinks: [[1, relative("node_modules/next")]],
      entryHash: "e",
    });
    expect(byRoute(functionBundles(root, "build"))["/api/quota"]!.bytes).toBe(before.bytes - 5000);
    expect(trimTrace(root, traceFile, (f) => /heavy/.test(f))).toBe(0);
  });
});
