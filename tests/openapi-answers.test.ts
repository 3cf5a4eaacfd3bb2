import { type TransactionSigner, generateKeyPairSigner } from "@solana/kit";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import * as quotaRoute from "@/app/api/quota/route";
import type { apiInfo } from "@/lib/service-info/api-info";
import {
  ApiInfoSchema,
  ChunkMetadataSchema,
  ChunkingResultSchema,
  ErrorBodySchema,
  FaucetAnswerSchema,
  FreeQuotaSchema,
  HealthSchema,
  JobAcceptedSchema,
  JobStatusSchema,
  OpenApiDocumentSchema,
  PaymentRequiredSchema,
  type ChromaRecordSchema,
  type PineconeRecordSchema,
  type QdrantPointSchema,
  StoredResultSchema,
  StoredResultSummarySchema,
  type WeaviateObjectSchema,
  ChunkMetadata,
} from "@/lib/api-schema";
import type { runFaucet } from "@/localchain/faucet-endpoint";
import type { ChromaRecord, PineconeRecord, QdrantPoint, WeaviateObject } from "@/lib/formats";
import type { checkHealth } from "@/lib/service-info/health";
import { PEER_HEADER } from "@/lib/http/client-address";
import { memoInstruction } from "@/lib/payments/usdc-transfer";
import { TIERS, TIER_IDS } from "@/lib/tiers";
import type * as web from "@/web/api-client";
import { ORIGIN, call, prose, upload } from "./helpers/api";
import { transferToken } from "./helpers/chain";
import { chain, expectDocumented, fixture, model, openApiSuite, rpc, served, useServices } from "./helpers/openapi";

/**
 * What the route handlers really answer is what the OpenAPI document says (status, schema, required headers), for
 * every tier, paid on the local chain; and, checked by `tsc --noEmit`, the core's and the page's types agree with
 * the wire schemas.
 */

openApiSuite();

// ---------------------------------------------------------------------------
// Answers: what the routes say is what the document says
// ---------------------------------------------------------------------------

let clientCounter = 0;
const newClient = () => `203.0.113.${++clientCounter}`;

async function funded(): Promise<TransactionSigner> {
  const signer = await generateKeyPairSigner();
  const response = await call("POST", "/api/dev/faucet", {
    body: JSON.stringify({ address: signer.address }),
    headers: { "content-type": "application/json" },
  });
  const answer = await expectDocumented(response, "POST", "/api/dev/faucet", FaucetAnswerSchema);
  expect(answer.address).toBe(signer.address);
  return signer;
}

const post = (
  endpoint: string,
  document: string,
  headers: Record<string, string> = {},
  fields: Record<string, string> = {},
) =>
  call("POST", `/api/chunk/${endpoint}`, { body: upload(document, "notes.md", fields), headers, client: newClient() });

/** The spec's flow: ask, read the 402, pay with the reference in a Memo. */
async function payFor(endpoint: string, document: string, fields: Record<string, string> = {}): Promise<string> {
  const required = await expectDocumented(
    await post(endpoint, document, {}, fields),
    "POST",
    `/api/chunk/${endpoint}`,
    PaymentRequiredSchema,
  );
  expect(required.code).toBe("payment_required");
  const { maxAmountRequired, payTo, asset, extra } = required.paymentRequirements;
  return transferToken(rpc, await funded(), {
    owner: payTo,
    mint: asset,
    amount: BigInt(maxAmountRequired),
    memo: memoInstruction(extra.reference!),
  });
}

let documentCounter = 0;
const newDocument = () =>
  `# Notes ${++documentCounter}\n\nAbout the orchard: apple trees need pruning in late winter.\n\n## Invoices\n\nPayment is due within thirty days. ${prose(1, documentCounter)}`;

describe("answers match the documented schemas", () => {
  it("GET /api, /api/health, /api/quota and /api/openapi.json", async () => {
    const info = await expectDocumented(await call("GET", "/api"), "GET", "/api", ApiInfoSchema);
    expect(info.tiers.map((tier) => tier.id)).toEqual([...TIER_IDS]);
    const health = await expectDocumented(await call("GET", "/api/health"), "GET", "/api/health", HealthSchema);
    expect(health.status).toBe("healthy");
    const quota = await quotaRoute.GET(new Request(`${ORIGIN}/api/quota`, { headers: { [PEER_HEADER]: newClient() } }));
    expect((await expectDocumented(quota, "GET", "/api/quota", FreeQuotaSchema)).remaining).toBe(100);
    const { response } = await served();
    await expectDocumented(response, "GET", "/api/openapi.json", OpenApiDocumentSchema);
  });

  it("free tier: inline results in every output format, a PDF's pages, a stored result and its download", async () => {
    for (const format of ["raw", "pinecone", "weaviate", "chroma", "qdrant"]) {
      const result = await expectDocumented(
        await post("free", newDocument(), {}, { max_tokens: "64", output_format: format }),
        "POST",
        "/api/chunk/free",
        ChunkingResultSchema,
      );
      expect(result.metadata.output_format).toBe(format);
      expect(result.chunks.length).toBe(result.total_chunks);
    }
    const pdf = await call("POST", "/api/chunk/demo", {
      body: upload(fixture("multipage.pdf"), "multipage.pdf", { max_tokens: "64" }),
      client: newClient(),
    });
    const pages = await expectDocumented(pdf, "POST", "/api/chunk/demo", ChunkingResultSchema);
    expect(
      pages.chunks.some(
        (chunk) => ChunkMetadataSchema.safeParse((chunk as { metadata?: unknown }).metadata).data?.page_end === 4,
      ),
    ).toBe(true);

    const large = await call("POST", "/api/chunk/free", {
      body: upload(prose(8), "long.txt", { max_tokens: "32", overlap_tokens: "0" }),
      client: newClient(),
    });
    const summary = await expectDocumented(large, "POST", "/api/chunk/free", StoredResultSummarySchema);
    expect(summary.total_chunks).toBeGreaterThanOrEqual(100);
    expect(summary.download_url).toBe(`${ORIGIN}/api/results/${summary.result_id}`);
    const stored = await expectDocumented(
      await call("GET", summary.download_url),
      "GET",
      summary.download_url,
      StoredResultSchema,
    );
    expect(stored.chunks).toHaveLength(summary.total_chunks);
  });

  it("errors: 400, 404, 405-free paths, 413, 415, 429 and 503, each a documented code of its operation", async () => {
    const expectError = async (response: Response, method: string, path: string, code: string) =>
      expect((await expectDocumented(response, method, path, ErrorBodySchema)).code).toBe(code);

    await expectError(
      await post("free", newDocument(), {}, { max_tokens: "4" }),
      "POST",
      "/api/chunk/free",
      "invalid_options",
    );
    const asJson = (value: unknown) => ({
      body: JSON.stringify(value),
      headers: { "content-type": "application/json" },
    });
    // Each request answers its documented error code: [code, method, path, request].
    const cases: Array<[string, string, string, Parameters<typeof call>[2]?]> = [
      ["expected_multipart", "POST", "/api/chunk/free", { body: "plain", headers: { "content-type": "text/plain" } }],
      [
        "corrupted_pdf",
        "POST",
        "/api/chunk/free",
        { body: upload(fixture("corrupted.pdf"), "x.pdf"), client: newClient() },
      ],
      [
        "unsupported_type",
        "POST",
        "/api/chunk/free",
        { body: upload(fixture("image.gif"), "x.gif"), client: newClient() },
      ],
      ["invalid_json", "POST", "/api/chunk", { ...asJson(null), body: "{" }],
      ["invalid_url", "POST", "/api/chunk", asJson({ url: "ftp://example.com/a", tier: "free" })],
      ["url_forbidden", "POST", "/api/chunk", asJson({ url: "http://127.0.0.1/a", tier: "free" })],
      ["expired_or_unknown", "GET", "/api/results/standard_000000000000"],
      ["expired_or_unknown", "GET", "/api/job/ai-pro_000000000000/status"],
      ["expired_or_unknown", "GET", "/api/job/ai-pro_000000000000/result"],
      ["invalid_request", "POST", "/api/dev/faucet", asJson({ address: "nope" })],
    ];
    for (const [code, method, path, init] of cases)
      await expectError(await call(method, path, init), method, path, code);

    useServices({ MAX_UPLOAD_BYTES: "1024" });
    await expectError(await post("free", prose(1)), "POST", "/api/chunk/free", "file_too_large");
    useServices({ FREE_PAGES_PER_DAY: "1" });
    await expectError(await post("free", prose(2)), "POST", "/api/chunk/free", "free_quota_exceeded");
    useServices({ AI_MODEL: "", AI_PRO_MODEL: "" });
    await expectError(await post("ai", newDocument()), "POST", "/api/chunk/ai", "ai_not_configured");
  });

  it("paid tiers: the 402, then the paid result with its payment, for structure, semantic and ai", async () => {
    for (const [endpoint, method] of [
      ["standard", "structure"],
      ["semantic", "semantic"],
      ["ai", "ai-boundaries"],
    ] as const) {
      const document = newDocument();
      const signature = await payFor(endpoint, document);
      const result = await expectDocumented(
        await post(endpoint, document, { "X-PAYMENT": signature }),
        "POST",
        `/api/chunk/${endpoint}`,
        ChunkingResultSchema,
      );
      expect(result.metadata.method).toBe(method);
      expect(result.payment).toEqual({
        amount: TIERS[result.tier].priceBaseUnits,
        asset: "USDC",
        network: "solana-localnet",
        transaction: signature,
      });
      if (endpoint === "ai") expect(result.metadata.ai?.model).toBe("standin-small");
      if (endpoint === "semantic") expect(result.metadata.embedder).toBeTruthy();
      // The same payment for another request is refused with a documented code.
      const reused = await post(endpoint, newDocument(), { "X-PAYMENT": signature });
      expect((await expectDocumented(reused, "POST", `/api/chunk/${endpoint}`, PaymentRequiredSchema)).code).toMatch(
        /^payment_(already_used|reference_mismatch)$/,
      );
    }
    const url = await call("POST", "/api/chunk", {
      body: JSON.stringify({ url: "https://example.com/paper.pdf", tier: "ai-pro" }),
      headers: { "content-type": "application/json" },
    });
    const required = await expectDocumented(url, "POST", "/api/chunk", PaymentRequiredSchema);
    expect(required.accepts[0]!.network).toBe("solana-devnet");
    expect(required.paymentRequirements.extra.feePayer).toBe(chain.feePayer.address);
  });

  it("ai-pro: the job, its status while processing and when completed, and its enriched result", async () => {
    model.control({ delayMs: 150 });
    const document = `${newDocument()}\n\n## Volcanoes\n\nBasaltic lava flows far because it is hot and runny, said Maria Lopez in Reykjavik.`;
    const signature = await payFor("ai-pro", document, { max_tokens: "96" });
    const job = await expectDocumented(
      await post("ai-pro", document, { "X-PAYMENT": signature }, { max_tokens: "96" }),
      "POST",
      "/api/chunk/ai-pro",
      JobAcceptedSchema,
    );
    const statusPath = new URL(job.status_url).pathname;
    const resultPath = statusPath.replace(/status$/, "result");

    const early = await call("GET", resultPath);
    if (early.status === 409)
      expect((await expectDocumented(early, "GET", resultPath, ErrorBodySchema)).code).toBe("job_not_finished");
    const seen: string[] = [];
    const deadline = Date.now() + 20_000;
    let status = await expectDocumented(await call("GET", statusPath), "GET", statusPath, JobStatusSchema);
    while (status.status === "processing" && Date.now() < deadline) {
      seen.push(status.status);
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = await expectDocumented(await call("GET", statusPath), "GET", statusPath, JobStatusSchema);
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(status).toMatchObject({ status: "completed", progress: 100 });

    const result = await expectDocumented(await call("GET", resultPath), "GET", resultPath, StoredResultSchema);
    expect(result.job_id).toBe(job.job_id);
    const chunks = result.chunks.map((chunk) => ChunkMetadataSchema.parse((chunk as { metadata: unknown }).metadata));
    expect(chunks.every((metadata) => typeof metadata.summary === "string")).toBe(true);
    expect(result.document_summary).toBeTruthy();
    await expectDocumented(await call("GET", status.download_url!), "GET", status.download_url!, StoredResultSchema);
  });
});
// ---------------------------------------------------------------------------
// Types: the core's and the page's types agree with the schemas (checked by `tsc --noEmit`)
// ---------------------------------------------------------------------------

type Infer<T extends z.ZodType> = z.infer<T>;
expectTypeOf<ChunkMetadata>().toEqualTypeOf<Infer<typeof ChunkMetadataSchema>>();
expectTypeOf<PineconeRecord>().toExtend<Infer<typeof PineconeRecordSchema>>();
expectTypeOf<ChromaRecord>().toExtend<Infer<typeof ChromaRecordSchema>>();
expectTypeOf<WeaviateObject>().toExtend<Infer<typeof WeaviateObjectSchema>>();
expectTypeOf<QdrantPoint>().toExtend<Infer<typeof QdrantPointSchema>>();
expectTypeOf<ReturnType<typeof apiInfo>["tiers"]>().toExtend<Infer<typeof ApiInfoSchema>["tiers"]>();
expectTypeOf<Awaited<ReturnType<typeof checkHealth>>>().toExtend<Infer<typeof HealthSchema>>();
// The faucet's `success: true` is widened to boolean in lib/; the answer itself is parsed above.
expectTypeOf<Omit<Awaited<ReturnType<typeof runFaucet>>, "success">>().toExtend<
  Omit<Infer<typeof FaucetAnswerSchema>, "success">
>();
// What the API answers is what the page's client expects.
expectTypeOf<Infer<typeof ApiInfoSchema>>().toExtend<web.ApiInfo>();
expectTypeOf<Infer<typeof ChunkingResultSchema>>().toExtend<web.ResultAnswer>();
expectTypeOf<Infer<typeof StoredResultSummarySchema>>().toExtend<web.ResultAnswer>();
expectTypeOf<Infer<typeof StoredResultSchema>>().toExtend<web.ResultAnswer>();
expectTypeOf<Infer<typeof JobAcceptedSchema>>().toExtend<web.JobAccepted>();
expectTypeOf<Infer<typeof JobStatusSchema>>().toExtend<web.JobStatus>();
expectTypeOf<Infer<typeof PaymentRequiredSchema>>().toExtend<web.PaymentRequired>();
expectTypeOf<Infer<typeof ErrorBodySchema>>().toExtend<web.ErrorBody>();
expectTypeOf<Infer<typeof FreeQuotaSchema>>().toExtend<web.FreeQuota>();
expectTypeOf<Infer<typeof ChunkMetadataSchema>>().toExtend<web.Chunk["metadata"]>();
