/**
 * Compiles, ahead of `next build`, the TypeScript that runs outside Next's own
 * bundles: the CPU pool's worker thread (lib/cpu/tasks.ts and what it
 * imports) and what `server.mjs` needs before Next starts (server-start.ts).
 * In production nothing compiles TypeScript at run time, and no compiler
 * (tsx, esbuild) is shipped in a function; dev, tests and scripts keep
 * loading the sources through tsx.
 *   npm run build           (runs this first)
 * Writes to `<dist dir>-compiled/` (`.next-compiled` by default), beside the
 * build it belongs to.
 */
import { build, type BuildOptions } from "esbuild";
import path from "node:path";
import { BUILT_OCR_LANGUAGES, COMPILED_DIR } from "../next.config";

const ROOT = path.resolve(import.meta.dirname, "..");

/**
 * Packages that find files of their own by path at run time, so they must stay in node_modules (and be traced
 * there): tesseract.js starts a worker script of its own that loads Tesseract's WebAssembly; the sentence encoder
 * reads its weights and TensorFlow.js's WebAssembly from its package directories.
 */
const LOADED_FROM_NODE_MODULES = ["tesseract.js", "@energetic-ai/*"];

const common: BuildOptions = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  tsconfig: path.join(ROOT, "tsconfig.json"),
  // CommonJS packages bundled into an ES module still call require() for Node's own modules.
  banner: {
    js: 'import { createRequire as __compiledRequire } from "node:module";\nconst require = __compiledRequire(import.meta.url);',
  },
  logLevel: "warning",
  legalComments: "none",
};

const outdir = path.join(ROOT, COMPILED_DIR);
await Promise.all([
  // One file with every pure-JavaScript dependency inside: a function ships what the tasks use, not whole packages.
  build({
    ...common,
    stdin: {
      contents: 'export { runTask as default } from "./lib/cpu/tasks";',
      resolveDir: ROOT,
      sourcefile: "cpu-worker.ts",
      loader: "ts",
    },
    outfile: path.join(outdir, "cpu-worker.mjs"),
    external: LOADED_FROM_NODE_MODULES,
  }),
  // Self-hosting only (a host installs every dependency): packages stay imports from node_modules.
  build({
    ...common,
    entryPoints: { "server-start": "server-start.ts", "local-chain": "localchain/index.ts" },
    outdir,
    outExtension: { ".js": ".mjs" },
    packages: "external",
    // As next.config.ts does for the routes: start-up then refuses a language the build did not ship.
    define: { "process.env.CHUNKWISE_BUILT_OCR_LANGUAGES": JSON.stringify(BUILT_OCR_LANGUAGES.join("+")) },
  }),
]);
console.log(`Compiled the CPU worker and server.mjs's start-up into ${COMPILED_DIR}/`);
