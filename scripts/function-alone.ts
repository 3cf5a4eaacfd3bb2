/**
 * Runs one route of the build as its serverless function would run: with
 * only the files its trace lists (and Next's minimal server's), copied into
 * an empty folder, so a package the route loads but does not ship fails here
 * as it would on Vercel. Calls the route's handler once and prints the
 * status and the start of the body; exits 1 when the handler throws.
 *   npx tsx scripts/function-alone.ts /api/health [GET|POST] [url path] [file to upload]
 */
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const [route = "/api/health", method = "GET", url = route, upload] = process.argv.slice(2);
const root = path.resolve(import.meta.dirname, "..");
const dist = process.env.NEXT_DIST_DIR || ".next";
const entryDir = path.join(root, dist, "server", "app", ...route.split("/").filter(Boolean));
const traces = [path.join(entryDir, "route.js.nft.json"), path.join(root, dist, "next-minimal-server.js.nft.json")];
if (!existsSync(traces[0]!)) throw new Error(`no function ${route} in ${dist}`);

const listed = new Set<string>([path.join(entryDir, "route.js")]);
for (const trace of traces) {
  const { files } = JSON.parse(readFileSync(trace, "utf8")) as { files: string[] };
  for (const file of files) listed.add(path.resolve(path.dirname(trace), file));
}

const folder = mkdtempSync(path.join(tmpdir(), "chunkwise-function-"));
try {
  let copied = 0;
  for (const file of listed) {
    if (!existsSync(file)) continue;
    const target = path.join(folder, path.relative(root, file));
    mkdirSync(path.dirname(target), { recursive: true });
    // Next's links to external packages (<dist>/node_modules/<name>-<hash>) stay links, to wherever they point.
    if (lstatSync(file).isSymbolicLink()) symlinkSync(readlinkSync(file), target);
    else if (lstatSync(file).isFile()) {
      cpSync(file, target);
      copied++;
    }
  }
  const runner = path.join(folder, "run.cjs");
  writeFileSync(
    runner,
    `const { routeModule } = require(${JSON.stringify(path.join(folder, path.relative(root, entryDir), "route.js"))});
(async () => {
await routeModule.ensureUserland?.();
const handler = routeModule.userland[${JSON.stringify(method)}];
const init = { method: ${JSON.stringify(method)}, headers: { "x-chunkwise-peer": "127.0.0.1" } };
${upload ? `init.body = new FormData(); init.body.set("file", new Blob([require("node:fs").readFileSync(${JSON.stringify(path.resolve(upload))})]), ${JSON.stringify(path.basename(upload))});` : ""}
const params = Promise.resolve(${JSON.stringify(Object.fromEntries([...route.matchAll(/\[([^\]]+)\]/g)].map((m, i) => [m[1], url.split("/")[route.split("/").findIndex((s) => s === m[0])] ?? String(i)])))});
return handler(new Request("http://127.0.0.1${url}", init), { params });
})()
  .then(async (response) => { console.log(response.status, (await response.text()).slice(0, 300)); process.exit(0); })
  .catch((error) => { console.error("FAILED", error); process.exit(1); });
`,
  );
  const run = spawnSync(process.execPath, [runner], {
    cwd: folder,
    encoding: "utf8",
    env: { PATH: process.env.PATH, NODE_ENV: "production" },
    timeout: 120_000,
  });
  console.log(`${route}: ${copied} files copied`);
  process.stdout.write(run.stdout);
  process.stderr.write(run.stderr.slice(-1500));
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
