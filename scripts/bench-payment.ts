/**
 * `npm run bench` (second part): what a verified payment adds to a request.
 * The payment gate (`services.payments.admit`, what every paid request runs
 * before its work) is timed with a fresh payment each run, on the local chain
 * (the real Solana runtime) and the memory store, beside a whole free-tier
 * request for the same small document (in process, no HTTP) for scale.
 * Median and p95 over the runs:
 * - signature path: the client has already sent and confirmed its transfer;
 *   the service looks it up (getTransaction), checks it, claims it in the ledger;
 * - x402 path: the service verifies the payload, co-signs it, simulates,
 *   sends and confirms it, then claims it.
 * The client's own time to build and send a transfer is not counted.
 * Against a remote RPC each of these adds its round trips (about 2 for the
 * signature path, 4 or more for x402).
 */
import { randomBytes } from "node:crypto";
import {
  type Base64EncodedWireTransaction,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  getAddressEncoder,
  getBase58Decoder,
  type TransactionSigner,
} from "@solana/kit";
import { createPaymentHeader } from "x402/client";
import { createSigner } from "x402/types";
import { loadConfig } from "@/lib/ground/config";
import { startLocalChain } from "@/localchain";
import { faucet } from "../tests/helpers/chain";
import { type ChunkRequest, runChunkRequest } from "@/lib/pipeline";
import { createServices } from "@/lib/services";
import { signUsdcTransfer } from "@/lib/payments/usdc-transfer";
import { TIERS } from "@/lib/tiers";

const RUNS = 40;
const DOCUMENT = `# Payment benchmark\n\n${"A paragraph of plain prose about retrieval and chunking. ".repeat(40)}\n`;

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))]!;

async function main(): Promise<void> {
  const chain = await startLocalChain({ port: 0 });
  try {
    const config = loadConfig({
      SOLANA_RPC_URL: chain.rpcUrl,
      PAY_TO_ADDRESS: chain.payTo,
      FEE_PAYER_SECRET_KEY: chain.feePayer.secretKey,
      FREE_PAGES_PER_DAY: "1000000",
    });
    const services = createServices(config);
    const rpc = createSolanaRpc(chain.rpcUrl);
    let n = 0;
    // A different document each run, so no run is a replay of a stored result.
    const request = (tier: ChunkRequest["tier"], payment?: string): ChunkRequest => ({
      tier,
      input: { kind: "upload", bytes: new TextEncoder().encode(`${DOCUMENT}\nRun ${++n}.`), filename: "bench.md" },
      options: {},
      client: "bench",
      payment: payment === undefined ? undefined : { name: "X-PAYMENT", value: payment },
      apiBase: "http://bench/api",
      resourcePath: "/chunk/standard",
    });
    // Admission and settlement, without the work between them.
    const admit = async (header: string) => {
      const admission = await services.payments.admit({
        client: "bench",
        tier: TIERS.structure,
        document: `sha256:${++n}`,
        request: `bench-${n}`,
        payment: { name: "X-PAYMENT", value: header },
        resource: "http://bench/api/chunk/standard",
        resourceKind: "form-data",
      });
      if (admission.kind === "paid") await admission.settle();
    };
    const timed = async (run: () => Promise<unknown>) => {
      const start = performance.now();
      await run();
      return performance.now() - start;
    };

    const seed = randomBytes(32);
    const payer: TransactionSigner = await createKeyPairSignerFromPrivateKeyBytes(seed);
    await faucet(chain.rpcUrl, payer.address, { usdc: 100_000_000 });
    const x402Signer = await createSigner(
      "solana-devnet",
      getBase58Decoder().decode(new Uint8Array([...seed, ...getAddressEncoder().encode(payer.address)])),
    );

    // Warm-up: first calls compile code paths and open connections.
    for (let i = 0; i < 5; i++) await runChunkRequest(services, request("free"));

    const free: number[] = [];
    const signaturePath: number[] = [];
    const x402Path: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      free.push(await timed(() => runChunkRequest(services, request("free"))));

      const { value: blockhash } = await rpc.getLatestBlockhash().send();
      const transfer = await signUsdcTransfer({
        payer,
        mint: chain.usdcMint,
        payTo: chain.payTo,
        amount: 2000n,
        blockhash,
      });
      await rpc
        .sendTransaction(transfer.wireTransaction as Base64EncodedWireTransaction, { encoding: "base64" })
        .send();
      signaturePath.push(await timed(() => admit(transfer.signature)));

      const requirement = { ...(await paymentRequirementsFor(services)), network: "solana-devnet" };
      const header = await createPaymentHeader(x402Signer, 1, requirement as never, {
        svmConfig: { rpcUrl: chain.rpcUrl },
      });
      x402Path.push(await timed(() => admit(header)));
    }

    const median = (v: number[]) => percentile(v, 0.5);
    const row = (label: string, values: number[]) =>
      `| ${label} | ${median(values).toFixed(1)} | ${percentile(values, 0.95).toFixed(1)} |`;
    console.log(`\nWhat a verified payment adds to a request (${RUNS} runs each, local chain, memory store, ms):\n`);
    console.log("| step | median | p95 |");
    console.log("|---|---|---|");
    console.log(row("a whole free-tier request, for scale (small Markdown document)", free));
    console.log(row("payment gate, X-PAYMENT: <signature> (look up, check, claim)", signaturePath));
    console.log(row("payment gate, X-PAYMENT: <x402 payload> (verify, co-sign, send, confirm, claim)", x402Path));
  } finally {
    await chain.close();
  }
}

/** The requirement a client would read from the 402 (an unpaid request). */
async function paymentRequirementsFor(services: ReturnType<typeof createServices>): Promise<Record<string, unknown>> {
  try {
    await runChunkRequest(services, {
      tier: "structure",
      input: { kind: "upload", bytes: new TextEncoder().encode("ask"), filename: "a.txt" },
      options: {},
      client: "bench",
      apiBase: "http://bench/api",
      resourcePath: "/chunk/standard",
    });
  } catch (error) {
    const body = (error as { body?: { paymentRequirements: Record<string, unknown> } }).body;
    if (body) return body.paymentRequirements;
    throw error;
  }
  throw new Error("expected a 402");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
