import type { Metadata } from "next";
import { DocsPage } from "@/components/docs/DocsPage";

export const metadata: Metadata = {
  title: "API reference",
  description: "The Chunkwise API: endpoints, request and response schemas, errors, and copy-paste examples for curl, agents paying through HTTP 402, and x402-fetch.",
};

export default function Docs() {
  return <DocsPage />;
}
