import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { Providers } from "@/components/providers";
import { SiteFooter } from "@/components/site/SiteFooter";
import { SiteHeader } from "@/components/site/SiteHeader";
import { THEME_BOOT_SCRIPT } from "@/web/theme";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Chunkwise — document chunking for RAG", template: "%s · Chunkwise" },
  description:
    "Split PDF (scanned too), DOCX, PPTX, ODP, XLSX, CSV, HTML, Markdown, text and images of text into retrieval-ready chunks. Paid tiers settle per request in USDC on Solana through HTTP 402.",
};

export const viewport: Viewport = {
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#f7f8fb" },
    { media: "(prefers-color-scheme: dark)", color: "#0b0f19" },
  ],
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The nonce proxy.ts made for this response's Content Security Policy.
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    // The boot script sets the theme class before React hydrates, hence the warning suppression on <html> only.
    <html lang="en" suppressHydrationWarning>
      <head>
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      </head>
      <body className="flex min-h-dvh flex-col bg-bg font-sans text-fg antialiased">
        <a
          href="#main"
          className="sr-only z-50 rounded-md bg-accent px-4 py-2 text-accent-fg focus:not-sr-only focus:fixed focus:left-4 focus:top-3"
        >
          Skip to content
        </a>
        <Providers>
          <SiteHeader />
          <main id="main" tabIndex={-1} className="flex-1 outline-none">
            {children}
          </main>
          <SiteFooter />
        </Providers>
      </body>
    </html>
  );
}
