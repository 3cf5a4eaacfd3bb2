/**
 * The docs page's copy-paste examples, written for the server the page runs
 * on: its API base (from the OpenAPI document's `servers`), and from
 * `GET /api` its network, RPC and x402 settings. In local mode the
 * TypeScript examples fund a fresh test wallet from the faucet, so they run
 * as they are.
 */

export interface ExampleContext {
  /** `<origin>/api`. */
  apiBase: string;
  /** A Solana RPC of the service's network (`GET /api` `payment.rpc_url`). */
  rpcUrl?: string;
  /** The network x402 clients use (`GET /api` `payment.x402.network`); absent when this server takes no x402 payloads. */
  x402Network?: string;
  /** Local mode: the faucet that funds test wallets. */
  faucetUrl?: string;
  /** The document the URL examples chunk. */
  documentUrl?: string;
}

export interface Example {
  id: string;
  title: string;
  /** What it shows and what it needs, one or two sentences. */
  intro: string;
  language: "sh" | "ts";
  code: string;
}

const EXAMPLE_DOCUMENT = "https://example.com/paper.pdf";

export function curlExamples({ apiBase, documentUrl = EXAMPLE_DOCUMENT }: ExampleContext): Example[] {
  return [
    {
      id: "curl-free",
      title: "Free tier: upload a file",
      intro:
        "Multipart upload with the optional sizes. The answer holds the chunks, or with 100 or more a `download_url`.",
      language: "sh",
      code: `curl -F file=@report.pdf \\\n  -F max_tokens=512 -F overlap_tokens=64 \\\n  ${apiBase}/chunk/free`,
    },
    {
      id: "curl-url",
      title: "Chunk a document at a URL",
      intro:
        "JSON to `/chunk` with `url` and `tier` (default `structure`); `output_format` shapes records for a vector store.",
      language: "sh",
      code: `curl -H 'content-type: application/json' \\\n  -d '{"url": "${documentUrl}", "tier": "free", "output_format": "qdrant"}' \\\n  ${apiBase}/chunk`,
    },
    {
      id: "curl-paid",
      title: "A paid tier with X-PAYMENT",
      intro:
        "Ask first: the 402 body says what to pay. Pay with any wallet, then send the same request with the transaction signature.",
      language: "sh",
      code: [
        "# 1. Ask: 402 with paymentRequirements (maxAmountRequired, payTo, extra.reference)",
        `curl -s -F file=@report.pdf ${apiBase}/chunk/structure`,
        "",
        "# 2. Pay maxAmountRequired USDC base units to payTo, with extra.reference as a Memo",
        "",
        "# 3. Repeat the same request with the transaction signature",
        `curl -H 'X-PAYMENT: <transaction signature>' \\\n  -F file=@report.pdf ${apiBase}/chunk/structure`,
      ].join("\n"),
    },
    {
      id: "curl-job",
      title: "An ai-pro job: submit and poll",
      intro:
        "ai-pro answers at once with a job; poll its status every second or two, then fetch the result. Needs `jq`.",
      language: "sh",
      code: [
        `JOB=$(curl -s -H 'X-PAYMENT: <transaction signature>' \\\n  -F file=@report.pdf ${apiBase}/chunk/ai-pro | jq -r .job_id)`,
        "",
        "while true; do",
        `  STATUS=$(curl -s ${apiBase}/job/$JOB/status)`,
        `  echo "$STATUS" | jq -c '{status, progress, message}'`,
        `  case $(echo "$STATUS" | jq -r .status) in completed|failed) break ;; esac`,
        "  sleep 2",
        "done",
        "",
        `curl -s ${apiBase}/job/$JOB/result > result.json`,
      ].join("\n"),
    },
  ];
}

/** The spec's agent flow with @solana/kit: ask, read the 402, pay USDC with the reference Memo, repeat with X-PAYMENT. */
export function agentExample({ apiBase, rpcUrl, faucetUrl, documentUrl = EXAMPLE_DOCUMENT }: ExampleContext): Example {
  const wallet = faucetUrl
    ? [
        "// Local mode: a fresh test wallet, funded with SOL and test USDC by the faucet.",
        "const payer = await generateKeyPairSigner();",
        `await fetch("${faucetUrl}", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ address: payer.address }) });`,
      ]
    : [
        "// A wallet holding USDC and a little SOL for the fee (base58 of its 64-byte secret key).",
        "const payer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(process.env.AGENT_SECRET_KEY!));",
      ];
  const kitImports = faucetUrl ? "generateKeyPairSigner" : "createKeyPairSignerFromBytes, getBase58Encoder";
  return {
    id: "agent",
    title: "Agent flow (TypeScript, @solana/kit)",
    intro:
      "The spec's flow for agents, as `npm run example:agent` runs it: ask without payment, pay the 402's price in USDC with its reference in a Memo, repeat with `X-PAYMENT`, fetch `download_url` when the result was stored. Node 20+, ES module; `npm i @solana/kit @solana-program/token @solana-program/memo`.",
    language: "ts",
    code: `import {
  address, appendTransactionMessageInstructions, createSolanaRpc, createTransactionMessage,
  getBase64EncodedWireTransaction, getSignatureFromTransaction, pipe, setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash, signTransactionMessageWithSigners, ${kitImports},
} from "@solana/kit";
import { LEGACY_MEMO_PROGRAM_ADDRESS_V3, getAddMemoInstruction } from "@solana-program/memo";
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, getTransferCheckedInstruction } from "@solana-program/token";

const API = "${apiBase}";
const rpc = createSolanaRpc("${rpcUrl ?? "https://api.mainnet-beta.solana.com"}");
${wallet.join("\n")}

const chunk = (payment?: string) =>
  fetch(\`\${API}/chunk\`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(payment ? { "X-PAYMENT": payment } : {}) },
    body: JSON.stringify({ url: "${documentUrl}", tier: "structure" }),
  });

// 1. Ask without payment: the 402 says what to pay.
const asked = await chunk();
if (asked.status !== 402) throw new Error(\`expected 402, got \${asked.status}: \${await asked.text()}\`);
const { paymentRequirements: req } = await asked.json();

// 2. Pay: TransferChecked of maxAmountRequired USDC to payTo's token account, extra.reference in a Memo.
const mint = address(req.asset);
const [source] = await findAssociatedTokenPda({ owner: payer.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
const [destination] = await findAssociatedTokenPda({ owner: address(req.payTo), mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
const { value: blockhash } = await rpc.getLatestBlockhash({ commitment: "confirmed" }).send();
const transaction = await signTransactionMessageWithSigners(
  pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) =>
      appendTransactionMessageInstructions(
        [
          getTransferCheckedInstruction({ source, mint, destination, authority: payer, amount: BigInt(req.maxAmountRequired), decimals: req.extra.decimals }),
          getAddMemoInstruction({ memo: req.extra.reference }, { programAddress: LEGACY_MEMO_PROGRAM_ADDRESS_V3 }),
        ],
        m,
      ),
  ),
);
const signature = getSignatureFromTransaction(transaction);
await rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: "base64" }).send();
for (let i = 0; i < 60; i++) {
  const { value: [status] } = await rpc.getSignatureStatuses([signature]).send();
  if (status?.err) throw new Error(\`the transfer failed: \${JSON.stringify(status.err)}\`);
  if (status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized") break;
  await new Promise((resolve) => setTimeout(resolve, 500));
}

// 3. Repeat the same request with X-PAYMENT (payment_not_found: not visible yet, retry).
let paid = await chunk(signature);
for (let i = 0; paid.status === 402 && (await paid.clone().json()).code === "payment_not_found" && i < 5; i++) {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  paid = await chunk(signature);
}
const result = await paid.json();
if (!paid.ok) throw new Error(\`\${paid.status} \${result.code}: \${result.message}\`);

// 4. 100 chunks or more: the result is stored; fetch it.
const full = result.download_url ? await (await fetch(result.download_url)).json() : result;
console.log(full.total_chunks, "chunks, paid with", signature);`,
  };
}

/** Paying with an unmodified x402 client: `wrapFetchWithPayment` answers the 402 itself. */
export function x402Example({ apiBase, rpcUrl, x402Network, faucetUrl }: ExampleContext): Example {
  const network = x402Network ?? "solana";
  const wallet = faucetUrl
    ? `// Local mode: a fresh test wallet funded by the faucet; x402 takes its secret as base58 (seed, then public key).
const seed = crypto.getRandomValues(new Uint8Array(32));
const wallet = await createKeyPairSignerFromPrivateKeyBytes(seed);
await fetch("${faucetUrl}", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ address: wallet.address }) });
const secretKey = getBase58Decoder().decode(new Uint8Array([...seed, ...getAddressEncoder().encode(wallet.address)]));`
    : `// A wallet holding USDC: base58 of its 64-byte secret key. The service pays the network fee.
const secretKey = process.env.SOLANA_SECRET_KEY!;`;
  return {
    id: "x402",
    title: "x402-fetch",
    intro: `Any x402 client pays without extra code: \`wrapFetchWithPayment\` reads the 402's \`accepts[]\`, signs an exact USDC transfer that the service co-signs as fee payer, and repeats the request. \`npm i x402-fetch${faucetUrl ? " @solana/kit" : ""}\`.`,
    language: "ts",
    code: `import { readFile } from "node:fs/promises";
${faucetUrl ? 'import { createKeyPairSignerFromPrivateKeyBytes, getAddressEncoder, getBase58Decoder } from "@solana/kit";\n' : ""}import { createSigner, decodeXPaymentResponse, wrapFetchWithPayment } from "x402-fetch";

const API = "${apiBase}";
${wallet}

const signer = await createSigner("${network}", secretKey);
// Pays at most 0.025 USDC (25000 base units) per request; the RPC builds and checks the transfer.
const fetchWithPayment = wrapFetchWithPayment(fetch, signer, 25_000n, undefined, { svmConfig: { rpcUrl: "${rpcUrl ?? "https://api.mainnet-beta.solana.com"}" } });

const form = new FormData();
form.set("file", new Blob([await readFile("report.pdf")]), "report.pdf");
const response = await fetchWithPayment(\`\${API}/chunk/structure\`, { method: "POST", body: form });
const result = await response.json();
if (!response.ok) throw new Error(\`\${response.status} \${result.code}: \${result.message}\`);
const receipt = decodeXPaymentResponse(response.headers.get("x-payment-response")!);
console.log(result.total_chunks, "chunks, paid in", receipt.transaction);`,
  };
}

/** The wallet lines of the v2 and MCP examples: a funded test wallet in local mode, else one's own. */
function kitWallet(faucetUrl: string | undefined): { imports: string; code: string } {
  return faucetUrl
    ? {
        imports: 'import { generateKeyPairSigner } from "@solana/kit";',
        code: `// Local mode: a fresh test wallet funded by the faucet.
const wallet = await generateKeyPairSigner();
await fetch("${faucetUrl}", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ address: wallet.address }) });`,
      }
    : {
        imports: 'import { createKeyPairSignerFromBytes, getBase58Encoder } from "@solana/kit";',
        code: `// A wallet holding USDC: base58 of its 64-byte secret key. The service pays the network fee.
const wallet = await createKeyPairSignerFromBytes(getBase58Encoder().encode(process.env.SOLANA_SECRET_KEY!));`,
      };
}

/** An MCP example's opening: the SDK and x402 imports, the wallet, and `mcp`, a client connected to the service. */
function mcpOpening(apiBase: string, faucetUrl: string | undefined): string {
  const wallet = kitWallet(faucetUrl);
  return `import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
${wallet.imports}
import { x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";

${wallet.code}

const mcp = new Client({ name: "my-agent", version: "1.0.0" });
await mcp.connect(new StreamableHTTPClientTransport(new URL("${apiBase}/mcp")));`;
}

/** Calls the paid `tool` with `args`, pays the x402 offer it answers (in `_meta`) and calls again: `paid`. */
function mcpPaidCall(tool: string, rpcUrl: string | undefined): string {
  return `const offer = await mcp.callTool({ name: "${tool}", arguments: args });
if (!offer.isError) throw new Error("expected the payment offer");
const x402 = new x402Client();
x402.register("solana:*", new ExactSvmScheme(wallet, { rpcUrl: "${rpcUrl ?? "https://api.mainnet-beta.solana.com"}" }));
const payment = await x402.createPaymentPayload(offer.structuredContent as never);
const paid = await mcp.callTool({ name: "${tool}", arguments: args, _meta: { "x402/payment": payment } });
if (paid.isError) throw new Error(JSON.stringify(paid.structuredContent));`;
}

/** Paying with the current x402 client, version 2 only: it reads the 402's `PAYMENT-REQUIRED` header. */
export function x402V2Example({ apiBase, rpcUrl, faucetUrl }: ExampleContext): Example {
  const wallet = kitWallet(faucetUrl);
  return {
    id: "x402-v2",
    title: "@x402/fetch (x402 v2)",
    intro:
      "The current x402 client: it reads the offer in the 402's `PAYMENT-REQUIRED` header, pays in `PAYMENT-SIGNATURE`, and the answer carries `PAYMENT-RESPONSE`. The transfer settles only once the chunks are made. `npm i @x402/fetch @x402/svm @solana/kit`.",
    language: "ts",
    code: `import { readFile } from "node:fs/promises";
${wallet.imports}
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";

const API = "${apiBase}";
${wallet.code}

const client = new x402Client();
client.register("solana:*", new ExactSvmScheme(wallet, { rpcUrl: "${rpcUrl ?? "https://api.mainnet-beta.solana.com"}" }));
const fetchWithPayment = wrapFetchWithPayment(fetch, client);

const form = new FormData();
form.set("file", new Blob([await readFile("report.pdf")]), "report.pdf");
const response = await fetchWithPayment(\`\${API}/chunk/structure\`, { method: "POST", body: form });
const result = await response.json();
if (!response.ok) throw new Error(\`\${response.status} \${result.code}: \${result.message}\`);
const receipt = decodePaymentResponseHeader(response.headers.get("payment-response")!);
console.log(result.total_chunks, "chunks, paid in", receipt.transaction);`,
  };
}

/** An agent's MCP client calling the paid tool through x402's MCP transport. */
export function mcpExample({ apiBase, rpcUrl, faucetUrl }: ExampleContext): Example {
  return {
    id: "mcp",
    title: "MCP",
    intro: `MCP clients add \`${apiBase}/mcp\` as a server (Streamable HTTP). In code, with the official SDK: a paid call first answers the x402 offer as a tool error; pay it and call again with the payment in \`_meta["x402/payment"]\`. \`npm i @modelcontextprotocol/sdk @x402/fetch @x402/svm @solana/kit\`.`,
    language: "ts",
    code: `${mcpOpening(apiBase, faucetUrl)}
const args = { text: "# Notes\\n\\nRivers slow down where they meet the sea and drop their sand.", tier: "structure" };

${mcpPaidCall("chunk_document", rpcUrl)}
const settlement = paid._meta?.["x402/payment-response"] as { transaction: string };
console.log((paid.structuredContent as { total_chunks: number }).total_chunks, "chunks, paid in", settlement.transaction);
await mcp.close();`,
  };
}

/** A batch paid once by the current x402 client: several documents, one 402 priced for those that pass the free check, one job. */
export function batchExample({ apiBase, rpcUrl, faucetUrl }: ExampleContext): Example {
  const wallet = kitWallet(faucetUrl);
  return {
    id: "batch-x402-v2",
    title: "A batch, paid once with @x402/fetch",
    intro:
      "`POST /batch/{tier}` takes several documents (here as JSON; or one multipart `file` part each), checks each for free, and asks one payment: the tier's price for each document that passed. It always answers a job (202): poll `status_url`, then fetch the combined result, where every chunk names its document. `npm i @x402/fetch @x402/svm @solana/kit`.",
    language: "ts",
    code: `${wallet.imports}
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";

const API = "${apiBase}";
${wallet.code}

const client = new x402Client();
client.register("solana:*", new ExactSvmScheme(wallet, { rpcUrl: "${rpcUrl ?? "https://api.mainnet-beta.solana.com"}" }));
const fetchWithPayment = wrapFetchWithPayment(fetch, client);

const documents = [
  { text: "# Rivers\\n\\nRivers slow down where they meet the sea and drop their sand.", filename: "rivers.md" },
  { text: "# Lighthouses\\n\\nThe first lighthouses were open fires on hills near harbours.", filename: "lighthouses.md" },
];
const accepted = await fetchWithPayment(\`\${API}/batch/structure\`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ documents }),
});
const job = await accepted.json();
if (accepted.status !== 202) throw new Error(\`\${accepted.status} \${job.code}: \${job.message}\`);
let status = job;
for (let i = 0; i < 120 && status.status !== "completed" && status.status !== "failed"; i++) {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  status = await (await fetch(new URL(job.status_url, API))).json();
}
if (status.status !== "completed") throw new Error(\`job \${status.status}: \${JSON.stringify(status.error ?? status)}\`);
const result = await (await fetch(\`\${API}/job/\${job.job_id}/result\`)).json();
console.log(result.chunks.length, "chunks of", result.documents.length, "documents, paid", job.amount);`,
  };
}

/** An agent's MCP client sending a batch to \`chunk_documents\`, paying its offer once in \`_meta\`. */
export function mcpBatchExample({ apiBase, rpcUrl, faucetUrl }: ExampleContext): Example {
  return {
    id: "mcp-batch",
    title: "MCP: a batch with chunk_documents",
    intro:
      "The tool \`chunk_documents\` takes \`documents\` (each \`{url}\` or \`{text, filename}\`) and answers one x402 offer for the batch; paid, it answers a job: poll \`get_job\`, then \`get_result\`.",
    language: "ts",
    code: `${mcpOpening(apiBase, faucetUrl)}
const args = {
  tier: "structure",
  documents: [
    { text: "# Rivers\\n\\nRivers slow down where they meet the sea and drop their sand.", filename: "rivers.md" },
    { text: "# Lighthouses\\n\\nThe first lighthouses were open fires on hills near harbours.", filename: "lighthouses.md" },
  ],
};
${mcpPaidCall("chunk_documents", rpcUrl)}
const { job_id } = paid.structuredContent as { job_id: string };
let status = "processing";
for (let i = 0; i < 120 && status !== "completed" && status !== "failed"; i++) {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  status = ((await mcp.callTool({ name: "get_job", arguments: { job_id } })).structuredContent as { status: string }).status;
}
const result = (await mcp.callTool({ name: "get_result", arguments: { job_id } })).structuredContent as { chunks: unknown[]; documents: unknown[] };
console.log(result.chunks.length, "chunks of", result.documents.length, "documents");
await mcp.close();`,
  };
}
