/**
 * What each serverless function of a build ships, read from the build's
 * `.nft.json` traces, counted as Vercel counts its 250 MB limit: the files'
 * unzipped sizes, each file once per function (a symlink as the file it
 * points to). A function is a route or page with a trace of its own, plus the
 * files of Next's minimal server (`next-minimal-server.js.nft.json`), which
 * Vercel adds to every function.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface FunctionBundle {
  /** The route as Next names it: `/api/chunk/[endpoint]`, `/` for app/(site)/page. */
  route: string;
  files: number;
  bytes: number;
  /** Every file, relative to the project root (for asking what a function carries). */
  paths: string[];
}

const TRACE_SUFFIX = /\/(route|page)\.js\.nft\.json$/;

/** Files listed by a trace, as absolute paths (traces list them relative to themselves). */
function tracedFiles(traceFile: string): string[] {
  const { files } = JSON.parse(readFileSync(traceFile, "utf8")) as { files: string[] };
  return files.map((file) => path.resolve(path.dirname(traceFile), file));
}

/** `app/(site)/docs/page` → `/docs`; `app/api/chunk/[endpoint]/route` → `/api/chunk/[endpoint]`. */
function routeOf(entry: string): string {
  const segments = entry
    .split("/")
    .slice(0, -1)
    .filter((segment) => !/^\(.*\)$/.test(segment));
  return `/${segments.join("/")}`;
}

function walk(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, found);
    else if (TRACE_SUFFIX.test(full)) found.push(full);
  }
  return found;
}

/** The trace of each route and page of the build in `dist` (a path relative to `root`). */
export function routeTraces(root: string, dist: string): { route: string; traceFile: string }[] {
  const serverApp = path.resolve(root, dist, "server", "app");
  if (!existsSync(serverApp)) throw new Error(`No build in ${dist}: run \`npm run build\` first.`);
  return walk(serverApp).map((traceFile) => ({
    route: routeOf(path.relative(serverApp, traceFile).replace(/\.js\.nft\.json$/, "")),
    traceFile,
  }));
}

interface Trace {
  files: string[];
  fileHashes?: string[];
  /** [index into files, target, root index]: which listed files are links, sorted by index. */
  symlinks?: [number, ...unknown[]][];
  additionalRoots?: unknown[];
}

/**
 * Removes from a trace every file `drop` names (given its path relative to `root`), keeping the lists that run
 * beside `files` (hashes, links by index) in step. Returns how many it removed.
 */
export function trimTrace(root: string, traceFile: string, drop: (file: string) => boolean): number {
  const trace = JSON.parse(readFileSync(traceFile, "utf8")) as Trace;
  if (trace.additionalRoots?.length) throw new Error(`${traceFile}: traces with additional roots are not handled`);
  const kept: number[] = [];
  trace.files.forEach((file, index) => {
    if (!drop(path.relative(root, path.resolve(path.dirname(traceFile), file)))) kept.push(index);
  });
  const removed = trace.files.length - kept.length;
  if (removed === 0) return 0;
  const newIndex = new Map(kept.map((old, index) => [old, index]));
  trace.files = kept.map((index) => trace.files[index]!);
  if (trace.fileHashes) trace.fileHashes = kept.map((index) => trace.fileHashes![index]!);
  if (trace.symlinks)
    trace.symlinks = trace.symlinks
      .filter(([index]) => newIndex.has(index))
      .map(([index, ...rest]) => [newIndex.get(index)!, ...rest]);
  writeFileSync(traceFile, JSON.stringify(trace));
  return removed;
}

/** Every function of the build in `dist` (a path relative to `root`), largest first. */
export function functionBundles(root: string, dist: string): FunctionBundle[] {
  const distDir = path.resolve(root, dist);
  const minimalServer = path.join(distDir, "next-minimal-server.js.nft.json");
  const shared = existsSync(minimalServer) ? tracedFiles(minimalServer) : [];
  const bundles = routeTraces(root, dist).map(({ route, traceFile }) => {
    const own = traceFile.replace(/\.nft\.json$/, "");
    const unique = new Map<string, number>();
    for (const file of [own, ...tracedFiles(traceFile), ...shared]) {
      if (unique.has(file) || !existsSync(file)) continue;
      // A symlink ships as the file it points to; a folder listed (a package's root) has no bytes of its own.
      const stats = statSync(realpathSync(file));
      if (stats.isFile()) unique.set(file, stats.size);
    }
    let bytes = 0;
    for (const size of unique.values()) bytes += size;
    return {
      route,
      files: unique.size,
      bytes,
      paths: [...unique.keys()].map((file) => path.relative(root, file)),
    };
  });
  return bundles.sort((a, b) => b.bytes - a.bytes || a.route.localeCompare(b.route));
}

export interface SizeRules {
  /** Every function's limit, in bytes. */
  maxBytes: number;
  /** Routes that run no document work: their own (lower) limit, and files they must not ship. */
  light: { routes: readonly string[]; maxBytes: number; mustNotShip: RegExp };
  /** Routes that do: files (relative to the project root) each must ship, or it fails at run time. */
  heavy: { routes: readonly string[]; mustShip: readonly string[] };
  /** Files no function may ship: what would only be needed to compile TypeScript. */
  forbidden: RegExp;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** What is wrong with a build's functions: one sentence a problem, none when all fit. */
export function sizeProblems(bundles: FunctionBundle[], rules: SizeRules): string[] {
  const problems: string[] = [];
  const byRoute = new Map(bundles.map((bundle) => [bundle.route, bundle]));
  for (const route of rules.light.routes)
    if (!byRoute.has(route))
      problems.push(`${route} is listed as a light route, but the build has no such function: update the list.`);
  const light = new Set(rules.light.routes);
  const heavy = new Set(rules.heavy.routes);
  for (const bundle of bundles) {
    const limit = light.has(bundle.route) ? rules.light.maxBytes : rules.maxBytes;
    if (bundle.bytes > limit)
      problems.push(`${bundle.route} ships ${mb(bundle.bytes)} (${bundle.files} files), over its ${mb(limit)} limit.`);
    const forbidden = bundle.paths.find((file) => rules.forbidden.test(file));
    if (forbidden) problems.push(`${bundle.route} ships ${forbidden}, which production never needs.`);
    if (light.has(bundle.route)) {
      const heavyFile = bundle.paths.find((file) => rules.light.mustNotShip.test(file));
      if (heavyFile) problems.push(`${bundle.route} is a light route but ships ${heavyFile}.`);
    }
    if (heavy.has(bundle.route))
      for (const file of rules.heavy.mustShip)
        if (!bundle.paths.includes(file)) problems.push(`${bundle.route} does not ship ${file}, which it needs.`);
  }
  return problems;
}

/** The functions as a Markdown table, largest first. */
export function sizeTable(bundles: FunctionBundle[], light: readonly string[]): string {
  const rows = bundles.map(
    (b) => `| ${b.route} | ${light.includes(b.route) ? "light" : ""} | ${b.files} | ${mb(b.bytes)} |`,
  );
  return ["| function | kind | files | unzipped |", "|---|---|---:|---:|", ...rows].join("\n");
}
