/**
 * The Content Security Policy of the site's pages.
 *
 * Pages get a Content Security Policy with a fresh nonce per response
 * (proxy.ts): Next.js's App Router writes its bootstrap and flight data as
 * inline scripts and loads further chunks from them, so the only script
 * policy that both lets it run and stops injected scripts is a nonce with
 * 'strict-dynamic' (Next's own guide; 'unsafe-inline' would allow any injected
 * inline script). Next reads the nonce from the request's policy and puts it
 * on its scripts; the layout puts it on the theme script. The price: pages are
 * rendered per request, not ahead of time.
 *
 * What the page needs besides its own origin, and so is allowed:
 * - connect-src: the browser-facing Solana RPC (`GET /api` → `payment.rpc_url`)
 *   and its WebSocket twin, where the wallet flow reads balances and
 *   confirmations;
 * - img-src data: and blob:, style-src 'unsafe-inline' (React writes style
 *   attributes; styles cannot run code), font-src data: (pdf.js's fonts);
 * - worker-src blob: (pdf.js may start its worker from a blob).
 * unpdf's build of pdf.js has no `eval`/`new Function` (checked in its
 * dist), so no 'unsafe-eval' is needed outside development, where React needs
 * it; it does compile WebAssembly (its image decoders, PostScript functions),
 * which 'wasm-unsafe-eval' allows without allowing JavaScript eval.
 *
 * The headers every response carries (`nosniff`, no framing, the referrer
 * policy) and the API's policy (`default-src 'none'`) are fixed: next.config.ts
 * sets them. CORS (lib/http/respond.ts) is unaffected: agents read the API's
 * JSON from any origin.
 */

/** The origins of an RPC endpoint the browser calls: its HTTP one and the WebSocket one beside it. */
function rpcOrigins(rpcUrl: string): string[] {
  let url: URL;
  try {
    url = new URL(rpcUrl);
  } catch {
    return [];
  }
  const ws = new URL(url.origin);
  ws.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  // The local chain's WebSocket listens on the next port.
  const wsOrigins = [ws.origin];
  if (url.port) {
    const next = new URL(ws.origin);
    next.port = String(Number(url.port) + 1);
    wsOrigins.push(next.origin);
  }
  return [url.origin, ...wsOrigins];
}

export function pageContentSecurityPolicy(options: { nonce: string; rpcUrl: string; development: boolean }): string {
  const { nonce, rpcUrl, development } = options;
  const directives: Array<[string, ...string[]]> = [
    ["default-src", "'self'"],
    [
      "script-src",
      "'self'",
      `'nonce-${nonce}'`,
      "'strict-dynamic'",
      "'wasm-unsafe-eval'",
      ...(development ? ["'unsafe-eval'"] : []),
    ],
    ["style-src", "'self'", "'unsafe-inline'"],
    ["img-src", "'self'", "data:", "blob:"],
    ["font-src", "'self'", "data:"],
    ["connect-src", "'self'", ...rpcOrigins(rpcUrl), ...(development ? ["ws:"] : [])],
    ["worker-src", "'self'", "blob:"],
    ["object-src", "'none'"],
    ["base-uri", "'self'"],
    ["form-action", "'self'"],
    ["frame-ancestors", "'none'"],
  ];
  return directives.map((parts) => parts.join(" ")).join("; ");
}
