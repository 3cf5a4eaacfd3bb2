import { readFileSync } from "node:fs";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { randomBytes } from "node:crypto";
import {
  type TransactionSigner,
  createKeyPairSignerFromPrivateKeyBytes,
  getAddressEncoder,
  getBase58Decoder,
} from "@solana/kit";
import { createSigner, decodeXPaymentResponse, wrapFetchWithPayment as wrapFetchWithPaymentV1 } from "x402-fetch";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { describe, expect, it } from "vitest";
import { BatchAcceptedSchema, BatchResultSchema, JobStatusSchema } from "@/lib/api-schema";
import { associatedTokenAccount } from "@/lib/payments/usdc-transfer";
import {
  ORIGIN,
  clientPerTest,
  connectMcp,
  funded,
  inProcessFetch,
  json,
  payFor402,
  pollUntilDone,
  prose,
} from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";

/**
 * Batches (`POST /api/batch/{tier}`, the MCP tool `chunk_documents`) through the route handlers, on a real
 * redis-server, paid on the local chain: the free check before payment, one price for the accepted documents,
 * one payment each way, one job with each document's state, the free pages of all documents at once.
 */

const PRICE = 2000n; // structure tier
const MAX_DOCUMENTS = 4;
const FREE_PAGES = 5;
const fixture = (name: string) => new Uint8Array(readFileSync(path.join(process.cwd(), "tests/fixtures", name)));

const h = serviceHarness({
  chain: true,
  feePayer: true,
  env: () => ({ FREE_PAGES_PER_DAY: String(FREE_PAGES), BATCH_MAX_DOCUMENTS: String(MAX_DOCUMENTS) }),
});

// Each test asks as its own client: free pages and unpaid references are counted per client.
const asClient = clientPerTest();
const { call } = asClient;

let documentCounter = 0;
const newDocument = (pages = 1) => `# Report ${++documentCounter}\n\n${prose(pages, documentCounter)}`;

function form(files: { bytes: Uint8Array | string; name: string }[], fields: Record<string, string> = {}): FormData {
  const body = new FormData();
  for (const [key, value] of Object.entries(fields)) body.set(key, value);
  for (const { bytes, name } of files)
    body.append(
      "file",
      new Blob([(typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes) as BlobPart]),
      name,
    );
  return body;
}

const postJson = (tier: string, body: unknown, headers: Record<string, string> = {}) =>
  call("POST", `/api/batch/${tier}`, {
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
  });

async function usdc(owner: string): Promise<bigint> {
  const { value } = await h.rpc.getTokenAccountBalance(await associatedTokenAccount(owner, h.chain.usdcMint)).send();
  return BigInt(value.amount);
}

async function result(jobId: string) {
  const response = await call("GET", `/api/job/${jobId}/result`);
  expect(response.status).toBe(200);
  return BatchResultSchema.parse(await response.json());
}

describe("a paid batch", () => {
  it("charges only the documents that pass the free check, lists the corrupt one's error, chunks the others", async () => {
    const files = [
      { bytes: newDocument(), name: "first.md" },
      { bytes: fixture("corrupted.pdf"), name: "corrupted.pdf" },
      { bytes: newDocument(), name: "third.md" },
    ];
    const ask = () => call("POST", "/api/batch/structure", { body: form(files) });
    const unpaid = await ask();
    expect(unpaid.status).toBe(402);
    const offer = await json(unpaid);
    expect(offer.paymentRequirements.maxAmountRequired).toBe(String(2n * PRICE));
    expect(decodePaymentRequiredHeader(unpaid.headers.get("payment-required")!).accepts[0]!.amount).toBe(
      String(2n * PRICE),
    );

    const before = await usdc(h.chain.payTo);
    const signature = await payFor402(h.rpc, h.chain, ask);
    const paid = await call("POST", "/api/batch/structure", {
      body: form(files),
      headers: { "X-PAYMENT": signature },
    });
    const accepted = BatchAcceptedSchema.parse(await json(paid));
    expect(paid.status).toBe(202);
    expect(await usdc(h.chain.payTo)).toBe(before + 2n * PRICE);
    expect(accepted).toMatchObject({ accepted: 2, rejected: 1, amount: Number(2n * PRICE) });
    expect(accepted.documents.map((d) => d.status)).toEqual(["pending", "rejected", "pending"]);
    expect(accepted.documents[1]!.error).toMatchObject({ success: false, code: "corrupted_pdf" });

    // The same payment for the same batch is the same job.
    const again = await call("POST", "/api/batch/structure", {
      body: form(files),
      headers: { "X-PAYMENT": signature },
    });
    expect((await json(again)).job_id).toBe(accepted.job_id);

    const status = JobStatusSchema.parse((await pollUntilDone(accepted.job_id, 120_000)).at(-1));
    expect(status).toMatchObject({ status: "completed", done: 2, total: 2 });
    expect(status.documents!.map((d) => d.status)).toEqual(["completed", "rejected", "completed"]);

    const combined = await result(accepted.job_id);
    expect(combined.payment).toMatchObject({ amount: Number(2n * PRICE), transaction: signature });
    expect(combined.documents.map((d) => d.status)).toEqual(["completed", "rejected", "completed"]);
    expect(new Set(combined.chunks.map((c) => c.document_index))).toEqual(new Set([0, 2]));
    const [first, , third] = combined.documents;
    expect(combined.chunks.slice(first!.first_chunk, first!.first_chunk! + first!.total_chunks!)).toSatisfy(
      (chunks: Record<string, unknown>[]) => chunks.every((c) => c.document === "first.md"),
    );
    expect(String(combined.chunks[third!.first_chunk!]!.text)).toMatch(/^# Report/);
    expect(combined.total_chunks).toBe(first!.total_chunks! + third!.total_chunks!);
  });

  it("records a document that fails in the job after payment as failed, and completes the others", async () => {
    const files = [
      { bytes: newDocument(), name: "fine.md" },
      // Past the free check (its zip opens), it fails when its text is read.
      { bytes: fixture("broken.docx"), name: "broken.docx" },
    ];
    const ask = () => call("POST", "/api/batch/structure", { body: form(files) });
    const signature = await payFor402(h.rpc, h.chain, ask);
    const paid = await call("POST", "/api/batch/structure", { body: form(files), headers: { "X-PAYMENT": signature } });
    const accepted = BatchAcceptedSchema.parse(await json(paid));
    expect(accepted).toMatchObject({ accepted: 2, amount: Number(2n * PRICE) });
    const status = (await pollUntilDone(accepted.job_id, 120_000)).at(-1)!;
    expect(status).toMatchObject({ status: "completed", done: 2, total: 2 });
    expect(status.documents[1]).toMatchObject({ status: "failed", error: { success: false } });
    const combined = await result(accepted.job_id);
    expect(combined.documents[0]).toMatchObject({ status: "completed" });
    expect(combined.chunks.every((c) => c.document_index === 0)).toBe(true);
  });

  it("is paid by an unmodified @x402/fetch 2.x client in PAYMENT-SIGNATURE, one price for the batch", async () => {
    const payer: TransactionSigner = await funded();
    const x402 = new x402Client();
    x402.register("solana:*", new ExactSvmScheme(payer, { rpcUrl: h.chain.rpcUrl }));
    const before = await usdc(h.chain.payTo);
    const response = await wrapFetchWithPayment(inProcessFetch(asClient.address), x402)(
      `${ORIGIN}/api/batch/structure`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          documents: [
            { text: newDocument(), filename: "a.md" },
            { text: newDocument(), filename: "b.md" },
          ],
          max_tokens: 256,
        }),
      },
    );
    const body = await json(response);
    expect(response.status, JSON.stringify(body)).toBe(202);
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true, payer: payer.address });
    expect(await usdc(h.chain.payTo)).toBe(before + 2n * PRICE);
    expect((await pollUntilDone(body.job_id, 120_000)).at(-1)).toMatchObject({ status: "completed" });
    const combined = await result(body.job_id);
    expect(combined.payment.transaction).toBe(settlement.transaction);
    expect(combined.chunks.length).toBeGreaterThan(2);
    expect(combined.chunks.every((c) => (c.metadata as { token_count: number }).token_count <= 256)).toBe(true);
    expect(new Set(combined.chunks.map((c) => c.document))).toEqual(new Set(["a.md", "b.md"]));
  });
});

describe("a batch paid by an x402 v1 client", () => {
  it("is paid by an unmodified x402-fetch client in X-PAYMENT, one price for the batch", async () => {
    // As tests/payments.test.ts: a funded key pair as x402-fetch's signer.
    const seed = randomBytes(32);
    const payer = await funded(await createKeyPairSignerFromPrivateKeyBytes(seed));
    const secret = getBase58Decoder().decode(new Uint8Array([...seed, ...getAddressEncoder().encode(payer.address)]));
    const payingFetch = wrapFetchWithPaymentV1(
      inProcessFetch(asClient.address),
      await createSigner("solana-devnet", secret),
      100_000n,
      undefined,
      {
        svmConfig: { rpcUrl: h.chain.rpcUrl },
      },
    );
    const before = await usdc(h.chain.payTo);
    const response = await payingFetch(`${ORIGIN}/api/batch/structure`, {
      method: "POST",
      body: form([
        { bytes: newDocument(), name: "v1-a.md" },
        { bytes: newDocument(), name: "v1-b.md" },
        { bytes: newDocument(), name: "v1-c.md" },
      ]),
    });
    const body = await json(response);
    expect(response.status, JSON.stringify(body)).toBe(202);
    const settlement = decodeXPaymentResponse(response.headers.get("x-payment-response")!);
    expect(settlement).toMatchObject({ success: true, payer: payer.address });
    expect(await usdc(h.chain.payTo)).toBe(before + 3n * PRICE);
    expect(body).toMatchObject({ accepted: 3, amount: Number(3n * PRICE) });
    expect((await pollUntilDone(body.job_id, 120_000)).at(-1)).toMatchObject({ status: "completed", done: 3 });
  });
});

describe("the free tier", () => {
  const pagesLeft = async () => (await json(await call("GET", "/api/quota"))).remaining as number;

  it("takes the pages of every accepted document at once, or none; a batch sent again under its key is not counted again", async () => {
    const batch = {
      documents: [
        { text: newDocument(2), filename: "two.md" },
        { text: newDocument(2), filename: "two-more.md" },
      ],
    };
    const key = { "idempotency-key": "batch-key-0123456789" };
    const accepted = await postJson("free", batch, key);
    expect(accepted.status).toBe(202);
    const first = await json(accepted);
    expect(first.documents.map((d: { pages: number }) => d.pages)).toEqual([2, 2]);
    expect(await pagesLeft()).toBe(FREE_PAGES - 4);

    // The same batch under the same key: the same job, no pages taken again.
    const again = await postJson("free", batch, key);
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await json(again)).job_id).toBe(first.job_id);
    // The key with other documents is refused, and takes nothing.
    const reused = await postJson("free", { documents: batch.documents.slice(0, 1) }, key);
    expect(reused.status).toBe(409);
    expect(await json(reused)).toMatchObject({ code: "idempotency_key_reused" });
    expect(await pagesLeft()).toBe(FREE_PAGES - 4);

    // Two pages asked, one left: refused whole, nothing taken.
    const refused = await postJson("free", {
      documents: [
        { text: newDocument(1), filename: "one.md" },
        { text: newDocument(1), filename: "another.md" },
      ],
    });
    expect(refused.status).toBe(429);
    expect(await json(refused)).toMatchObject({ code: "free_quota_exceeded" });
    expect(await pagesLeft()).toBe(FREE_PAGES - 4);
  });
});

describe("refusals", () => {
  it("refuses more than BATCH_MAX_DOCUMENTS documents, as JSON or as file parts, before any payment", async () => {
    const documents = Array.from({ length: MAX_DOCUMENTS + 1 }, (_, i) => ({
      text: `# ${i}\n\nText.`,
      filename: `${i}.md`,
    }));
    const overJson = await postJson("structure", { documents });
    expect(overJson.status).toBe(400);
    expect(await json(overJson)).toMatchObject({ code: "invalid_request", message: /at most 4 documents/ });
    const overForm = await call("POST", "/api/batch/structure", {
      body: form(documents.map((d) => ({ bytes: d.text, name: d.filename }))),
    });
    expect(overForm.status).toBe(400);
    expect(await json(overForm)).toMatchObject({ code: "invalid_request", message: /at most 4 documents/ });
    // Exactly the maximum is offered a price.
    expect((await postJson("structure", { documents: documents.slice(0, MAX_DOCUMENTS) })).status).toBe(402);
  });

  it("answers 400 with each document's error when none is accepted, and asks no payment", async () => {
    const refused = await call("POST", "/api/batch/structure", {
      body: form([
        { bytes: fixture("corrupted.pdf"), name: "a.pdf" },
        { bytes: fixture("image.gif"), name: "b.gif" },
      ]),
    });
    expect(refused.status).toBe(400);
    const body = await json(refused);
    expect(body.documents.map((d: { error: { code: string } }) => d.error.code)).toEqual([
      "corrupted_pdf",
      "unsupported_type",
    ]);
  });

  it("fetches URL documents under the URL rules: a private address is rejected and not priced", async () => {
    const unpaid = await postJson("structure", {
      documents: [{ url: "http://127.0.0.1:9/internal.pdf" }, { text: newDocument(), filename: "kept.md" }],
    });
    expect(unpaid.status).toBe(402);
    expect((await json(unpaid)).paymentRequirements.maxAmountRequired).toBe(String(PRICE));
    const free = await postJson("free", {
      documents: [{ url: "http://127.0.0.1:9/internal.pdf" }, { text: newDocument(), filename: "kept.md" }],
    });
    expect(free.status).toBe(202);
    const accepted = BatchAcceptedSchema.parse(await json(free));
    expect(accepted.documents[0]).toMatchObject({ status: "rejected", error: { code: "url_forbidden" } });
    expect(accepted).toMatchObject({ accepted: 1, rejected: 1, amount: 0 });
    expect((await pollUntilDone(accepted.job_id, 60_000)).at(-1)).toMatchObject({ status: "completed", done: 1 });
  });

  it("answers an unknown tier with 404 and a malformed body with 400", async () => {
    expect((await postJson("gold", { documents: [{ text: "x", filename: "x.md" }] })).status).toBe(404);
    expect((await postJson("structure", { documents: [{ text: "x" }] })).status).toBe(400);
    expect((await postJson("structure", { documents: [] })).status).toBe(400);
  });
});

describe("MCP chunk_documents", () => {
  const connect = () => connectMcp(asClient.address);

  it("asks one x402 payment for the batch in its result, takes it in _meta and answers the job", async () => {
    const sdk = await connect();
    try {
      const args = {
        tier: "structure",
        documents: [
          { text: newDocument(), filename: "one.md" },
          { text: newDocument(), filename: "two.md" },
        ],
      };
      const unpaid = (await sdk.callTool({ name: "chunk_documents", arguments: args })) as CallToolResult;
      expect(unpaid.isError).toBe(true);
      const required = unpaid.structuredContent as PaymentRequired;
      expect(required).toMatchObject({
        x402Version: 2,
        accepts: [{ amount: String(2n * PRICE), payTo: h.chain.payTo }],
      });
      expect(required.extensions?.bazaar).toMatchObject({
        info: { input: { type: "mcp", toolName: "chunk_documents" } },
      });

      const x402 = new x402Client();
      x402.register("solana:*", new ExactSvmScheme(await funded(), { rpcUrl: h.chain.rpcUrl }));
      const before = await usdc(h.chain.payTo);
      const paid = (await sdk.callTool({
        name: "chunk_documents",
        arguments: args,
        _meta: { "x402/payment": await x402.createPaymentPayload(required) },
      })) as CallToolResult;
      expect(paid.isError, JSON.stringify(paid.structuredContent)).toBeFalsy();
      const accepted = BatchAcceptedSchema.parse(paid.structuredContent);
      expect(paid._meta?.["x402/payment-response"]).toMatchObject({ success: true });
      expect(await usdc(h.chain.payTo)).toBe(before + 2n * PRICE);
      expect((await pollUntilDone(accepted.job_id, 120_000)).at(-1)).toMatchObject({ status: "completed", done: 2 });
      const combined = (await sdk.callTool({
        name: "get_result",
        arguments: { job_id: accepted.job_id },
      })) as CallToolResult;
      expect(BatchResultSchema.parse(combined.structuredContent).documents.map((d) => d.status)).toEqual([
        "completed",
        "completed",
      ]);
    } finally {
      await sdk.close();
    }
  });
});
