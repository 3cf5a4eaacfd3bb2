import { createDocument } from "zod-openapi";
import type { Config } from "@/lib/ground/config";
import { STATUS_NAMES, errorCatalogue } from "@/lib/ground/error-codes";
import packageJson from "@/package.json";
import { paths } from "./paths";
import { TAGS } from "./responses";

/**
 * The OpenAPI 3.1 document of the API, generated from the zod schemas the
 * routes validate with (lib/api-schema/) and answer with,
 * the tier table and this server's config: sizes, limits and the server URL
 * are the ones this instance enforces and answers on. The paths and their
 * operations are in paths.ts and chunk-operations.ts, the parts they share
 * (error answers, headers, samples) in responses.ts.
 */

export type OpenApiDocument = ReturnType<typeof createDocument>;

export { TAGS };

function buildDocument(config: Config, apiBase: string): OpenApiDocument {
  const catalogue = errorCatalogue(config);
  const origin = apiBase.replace(/\/api$/, "");
  return createDocument(
    {
      openapi: "3.1.0",
      info: {
        title: "Chunkwise API",
        version: packageJson.version,
        summary: packageJson.description,
        description:
          "Splits documents (PDF, scanned PDF, image, DOCX, PPTX, ODP, XLSX, ODS, CSV/TSV, ODT, RTF, EPUB, e-mail (EML, MSG) with its attachments, HTML, Markdown, text; uploaded or fetched from a URL) into chunks for retrieval pipelines and LLM context windows. Sizes are counted in `o200k_base` tokens. The paid tiers settle per request in USDC on Solana through HTTP 402: ask, read the 402's payment requirements, pay, repeat with `X-PAYMENT`. Every error but 402 has the body `{success: false, error, code, message}`; branch on `code`.",
        "x-guidance": guidance(config, apiBase),
        contact: {
          name: "Chunkwise",
          url: `${origin}/docs`,
          ...(config.contactEmail ? { email: config.contactEmail } : {}),
        },
      },
      servers: [{ url: apiBase, description: `This server (${config.network})` }],
      externalDocs: { description: "The reference with examples", url: `${origin}/docs` },
      tags: [
        { name: TAGS.chunking, description: "Upload a document to a tier's endpoint, or send a URL." },
        {
          name: TAGS.jobs,
          description:
            "Stored results of large documents, and async jobs (ai-pro's, and any tier's run with async=true).",
        },
        { name: TAGS.service, description: "What the API offers, its health, the free allowance and this document." },
        ...(config.network === "solana-localnet"
          ? [{ name: TAGS.local, description: "The embedded test chain: test USDC, no real money." }]
          : []),
      ],
      paths: paths(config, apiBase, catalogue),
      "x-error-codes": catalogue.map(({ status, code, when }) => ({ status, error: STATUS_NAMES[status], code, when })),
    },
    {
      // zod bounds every `.int()` by the safe-integer range; as documentation that is noise.
      override: ({ jsonSchema }) => {
        if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
        if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      },
    },
  );
}

/** Short instructions for an agent deciding how to call and pay, as x402scan and agentcash discovery read them. */
function guidance(config: Config, apiBase: string): string {
  return [
    `Chunk a document: POST it as multipart \`file\` to ${apiBase}/chunk/{tier}, or POST JSON {url, tier} to ${apiBase}/chunk.`,
    `\`free\` needs no payment (${config.freePagesPerDay} pages a day per client); \`structure\`, \`semantic\`, \`ai\` and \`ai-pro\` answer 402 first.`,
    "Pay the 402 with an x402 client (v2: PAYMENT-SIGNATURE; v1: X-PAYMENT), or transfer the USDC with the offer's extra.reference in a Memo and send X-PAYMENT: <signature>; then repeat the same request: a payment binds to one document, tier and options, and the same payment with the same request returns the same answer.",
    "ai-pro (and async=true) answers with a job: poll its status_url, then GET download_url.",
    `Several documents: POST them to ${apiBase}/batch/{tier} (file parts, or JSON {documents: [{url} | {text, filename}]}): one 402 for the documents that pass a free check, one job.`,
    `Over MCP: ${apiBase}/mcp, tools chunk_document and chunk_documents (payment in _meta["x402/payment"]). More: ${apiBase.replace(/\/api$/, "")}/llms.txt.`,
  ].join(" ");
}

const cache = new WeakMap<Config, Map<string, OpenApiDocument>>();

/** The document for this config as served at `apiBase`; built once per pair. */
export function openApiDocument(config: Config, apiBase: string): OpenApiDocument {
  let byBase = cache.get(config);
  if (!byBase) cache.set(config, (byBase = new Map<string, OpenApiDocument>()));
  let document = byBase.get(apiBase);
  if (!document) {
    // A Host header is the client's to choose: bound the cache rather than keep one document per name forever.
    if (byBase.size >= 16) byBase.clear();
    byBase.set(apiBase, (document = buildDocument(config, apiBase)));
  }
  return document;
}
