/**
 * The JavaScript a browser loads first for each prerendered page of the
 * build (`npm run build`), raw and gzipped: the module scripts its HTML
 * names (the `noModule` polyfill left out, as modern browsers skip it).
 * Next 16 no longer prints these sizes. Also says whether any of them holds
 * wallet code, which must load only when a paid tier is chosen.
 *   npm run size            (reads .next, or NEXT_DIST_DIR)
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const dist = process.env.NEXT_DIST_DIR || ".next";
const PAGES: Record<string, string> = { "/": "index.html", "/docs": "docs.html" };
/** Strings only the wallet adapter's and web3.js's bundles contain. */
const WALLET_MARKERS = ["wallet-standard:register-wallet", "WalletNotConnectedError", "Signature verification failed"];

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

if (!existsSync(join(dist, "BUILD_ID"))) {
  console.error(`No build in ${dist}: run \`npm run build\` first.`);
  process.exit(1);
}
console.log("| page | scripts | raw | gzip | wallet code |\n|---|---:|---:|---:|---|");
for (const [page, file] of Object.entries(PAGES)) {
  const html = readFileSync(join(dist, "server", "app", file), "utf8");
  const sources = [...html.matchAll(/<script\b([^>]*)>/g)]
    .map((m) => m[1]!)
    .filter((attributes) => !/\bnoModule\b/i.test(attributes))
    .map((attributes) => /\bsrc="\/_next\/([^"]+)"/.exec(attributes)?.[1])
    .filter((src): src is string => src !== undefined);
  let raw = 0;
  let gzip = 0;
  let wallet = false;
  for (const src of new Set(sources)) {
    const code = readFileSync(join(dist, src));
    raw += code.length;
    gzip += gzipSync(code).length;
    const text = code.toString("utf8");
    wallet ||= WALLET_MARKERS.some((marker) => text.includes(marker));
  }
  console.log(`| ${page} | ${new Set(sources).size} | ${kb(raw)} | ${kb(gzip)} | ${wallet ? "yes" : "no"} |`);
}
