import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // pdf.js and mammoth run in a worker thread from workers/extract-worker.mjs; keep them as plain node_modules.
  serverExternalPackages: ["unpdf", "mammoth", "redis", "@redis/client"],
  outputFileTracingIncludes: { "/api/**": ["./workers/**", "./node_modules/unpdf/**", "./node_modules/mammoth/**", "./node_modules/node-html-markdown/**", "./node_modules/node-html-parser/**"] },
  poweredByHeader: false,
};

export default nextConfig;
