import { randomBytes } from "node:crypto";
import { type NextRequest, NextResponse } from "next/server";
import { loadConfig } from "@/lib/ground/config";
import { pageContentSecurityPolicy } from "@/lib/http/security-headers";

/**
 * Each page response gets its own nonce and the Content Security Policy that
 * names it (lib/http/security-headers.ts says why a nonce). The policy is set
 * on the request too: Next.js reads the nonce from there for its own scripts,
 * and the layout for the theme script. The API and static files are not
 * matched: their headers are fixed (next.config.ts).
 */
let rpcUrl: string | undefined;

export function proxy(request: NextRequest) {
  rpcUrl ??= loadConfig().payments.publicRpcUrl;
  const nonce = randomBytes(16).toString("base64");
  const policy = pageContentSecurityPolicy({ nonce, rpcUrl, development: process.env.NODE_ENV === "development" });
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  matcher: [
    {
      // Pages only: not the API, the machine-readable files, Next's static assets or the icon.
      source:
        "/((?!api/|api$|\\.well-known/|llms\\.txt|openapi\\.json|_next/static|_next/image|icon\\.svg|favicon\\.ico).*)",
      // Prefetches are not rendered documents.
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
