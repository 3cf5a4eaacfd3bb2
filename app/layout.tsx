import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: "Chunkwise — document chunking for RAG",
  description: "Split PDF, DOCX, HTML, Markdown and text into retrieval-ready chunks. Paid tiers settle per request in USDC on Solana through HTTP 402.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
