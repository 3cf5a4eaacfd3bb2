/**
 * The spec's agent flow, end to end:
 *   npm run example:agent -- <document url> [--tier structure] [--api http://localhost:3000/api] [--pay signature|x402]
 *
 * With `--pay x402` an unmodified `@x402/fetch` 2.x client (the v2 scheme
 * only) answers the 402 itself; by default the script walks the spec's flow:
 * 1. POST /api/chunk {url, tier} without payment and read the 402's paymentRequirements.
 * 2. Transfer maxAmountRequired USDC to payTo, with extra.reference in a Memo.
 * 3. Repeat the same request with X-PAYMENT: <signature> (retrying while the
 *    service answers payment_not_found, i.e. the transfer is not confirmed yet).
 * 4. Fetch download_url when the result was stored rather than inlined.
 *
 * The payer is AGENT_SECRET_KEY (base58 of a 64-byte Solana secret key). On the
 * local test chain, without one, a fresh keypair is funded by the faucet.
 * SOLANA_RPC_URL overrides the RPC (default: the local chain's, from GET /api).
 */
import { parseArgs } from "node:util";
import {
  type Base64EncodedWireTransaction,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  generateKeyPairSigner,
  getBase58Encoder,
  type Signature,
  type TransactionSigner,
} from "@solana/kit";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { z } from "zod";
import { signUsdcTransfer } from "@/lib/payments/usdc-transfer";

const Requirements = z.object({
  paymentRequirements: z.object({
    maxAmountRequired: z.string(),
    asset: z.string(),
    payTo: z.string(),
    network: z.string(),
    description: z.string(),
    extra: z.object({ reference: z.string().optional(), decimals: z.number().default(6) }).loose(),
  }),
});
const ApiInfo = z.object({
  network: z.string(),
  localnet: z.object({ rpc_url: z.string(), faucet_url: z.string() }).optional(),
});

const log = (line: string) => console.error(`[agent] ${line}`);

async function payer(info: z.infer<typeof ApiInfo>): Promise<TransactionSigner> {
  if (process.env.AGENT_SECRET_KEY)
    return createKeyPairSignerFromBytes(getBase58Encoder().encode(process.env.AGENT_SECRET_KEY));
  if (!info.localnet)
    throw new Error(
      "Set AGENT_SECRET_KEY to a funded wallet's secret key (base58): this service is not on the local test chain.",
    );
  const signer = await generateKeyPairSigner();
  const funded = await fetch(info.localnet.faucet_url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ address: signer.address }),
  });
  if (!funded.ok) throw new Error(`Faucet answered ${funded.status}: ${await funded.text()}`);
  log(`funded test wallet ${signer.address} from the local faucet`);
  return signer;
}

async function waitForConfirmation(rpc: ReturnType<typeof createSolanaRpc>, signature: string): Promise<void> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const { value } = await rpc.getSignatureStatuses([signature as Signature]).send();
    const status = value[0];
    if (status?.err) throw new Error(`The transfer failed on chain: ${JSON.stringify(status.err)}`);
    if (status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized") return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error("The transfer was not confirmed within 30 s.");
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      tier: { type: "string", default: "structure" },
      api: { type: "string", default: process.env.CHUNKWISE_API ?? "http://localhost:3000/api" },
      pay: { type: "string", default: "signature" },
    },
  });
  if (values.pay !== "signature" && values.pay !== "x402") {
    console.error("--pay takes signature (the spec's flow) or x402 (@x402/fetch 2.x).");
    return 2;
  }
  const documentUrl = positionals[0];
  if (!documentUrl) {
    console.error(
      "usage: npm run example:agent -- <document url> [--tier structure|semantic|ai|ai-pro] [--api http://localhost:3000/api] [--pay signature|x402]",
    );
    return 2;
  }
  const api = values.api.replace(/\/+$/, "");
  const request = (headers: Record<string, string> = {}) =>
    fetch(`${api}/chunk`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ url: documentUrl, tier: values.tier }),
    });

  if (values.pay === "x402") return payWithX402(api, request);

  // 1. Ask, and read the price.
  const first = await request();
  if (first.status !== 402) {
    console.log(JSON.stringify(await first.json(), null, 2));
    return first.ok ? 0 : 1;
  }
  const { paymentRequirements: req } = Requirements.parse(await first.json());
  log(`402: ${req.description}; paying ${req.maxAmountRequired} base units to ${req.payTo}`);

  // 2. Pay.
  const info = ApiInfo.parse(await (await fetch(api)).json());
  const rpcUrl = process.env.SOLANA_RPC_URL ?? info.localnet?.rpc_url;
  if (!rpcUrl) throw new Error("Set SOLANA_RPC_URL to an RPC endpoint of the service's network.");
  const rpc = createSolanaRpc(rpcUrl);
  const signer = await payer(info);
  const { value: blockhash } = await rpc.getLatestBlockhash({ commitment: "confirmed" }).send();
  const transfer = await signUsdcTransfer({
    payer: signer,
    mint: req.asset,
    payTo: req.payTo,
    amount: BigInt(req.maxAmountRequired),
    decimals: req.extra.decimals,
    reference: req.extra.reference,
    blockhash,
  });
  await rpc.sendTransaction(transfer.wireTransaction as Base64EncodedWireTransaction, { encoding: "base64" }).send();
  log(`sent transfer ${transfer.signature}`);
  await waitForConfirmation(rpc, transfer.signature);

  // 3. Repeat with X-PAYMENT; "not found yet" is worth a bounded retry.
  let paid = await request({ "X-PAYMENT": transfer.signature });
  for (let attempt = 0; paid.status === 402 && attempt < 5; attempt++) {
    const body = (await paid.clone().json()) as { code?: string };
    if (body.code !== "payment_not_found") break;
    await new Promise((resolve) => setTimeout(resolve, 1000 * (attempt + 1)));
    paid = await request({ "X-PAYMENT": transfer.signature });
  }
  const result = (await paid.json()) as { download_url?: string; total_chunks?: number };
  if (!paid.ok) {
    console.log(JSON.stringify(result, null, 2));
    return 1;
  }
  log(`paid request answered ${paid.status} with ${result.total_chunks} chunks`);

  return printResult(result);
}

/** 4. Large results are stored; fetch them. */
async function printResult(result: { download_url?: string }): Promise<number> {
  const full: unknown = result.download_url ? await (await fetch(result.download_url)).json() : result;
  console.log(JSON.stringify(full, null, 2));
  return 0;
}

/** The same request paid by `@x402/fetch` 2.x, which reads the 402's PAYMENT-REQUIRED header and pays in PAYMENT-SIGNATURE. */
async function payWithX402(
  api: string,
  request: (headers?: Record<string, string>) => Promise<Response>,
): Promise<number> {
  const info = ApiInfo.parse(await (await fetch(api)).json());
  const rpcUrl = process.env.SOLANA_RPC_URL ?? info.localnet?.rpc_url;
  if (!rpcUrl) throw new Error("Set SOLANA_RPC_URL to an RPC endpoint of the service's network.");
  const client = new x402Client();
  client.register("solana:*", new ExactSvmScheme(await payer(info), { rpcUrl }));
  const paying = wrapFetchWithPayment((input, init) => {
    // The wrapper repeats the request with its payment header; ours builds the body afresh each time.
    const headers = Object.fromEntries(new Headers(init?.headers ?? (input instanceof Request ? input.headers : {})));
    return request(headers);
  }, client);
  const paid = await paying(`${api}/chunk`, { method: "POST" });
  const result = (await paid.json()) as { download_url?: string; total_chunks?: number };
  if (!paid.ok) {
    console.log(JSON.stringify(result, null, 2));
    return 1;
  }
  const receipt = decodePaymentResponseHeader(paid.headers.get("payment-response")!);
  log(`paid ${receipt.transaction} through x402 v2; answered ${paid.status} with ${result.total_chunks} chunks`);
  return printResult(result);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`[agent] ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
