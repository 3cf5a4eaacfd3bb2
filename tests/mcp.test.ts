import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { PaymentRequired } from "@x402/core/types";
import { x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { associatedTokenAccount } from "@/lib/payments/usdc-transfer";
import { connectMcp, funded, newClient, prose } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";

/**
 * The MCP server at /api/mcp through the official MCP SDK client, its HTTP
 * requests dispatched to the route handler in process; paid calls go
 * through x402's MCP transport on the local chain.
 */

const h = serviceHarness({ store: "memory", chain: true, feePayer: true });
let client: Client;

/** A connected SDK client whose requests come from a client address of its own. */
const connect = () => connectMcp(newClient());

const chunk = (sdk: Client, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
  sdk.callTool({
    name: "chunk_document",
    arguments: args,
    ...(meta ? { _meta: meta } : {}),
  }) as Promise<CallToolResult>;

const usdc = async (owner: string) =>
  BigInt(
    (await h.rpc.getTokenAccountBalance(await associatedTokenAccount(owner, h.chain.usdcMint)).send()).value.amount,
  );

beforeAll(async () => {
  client = await connect();
});

afterAll(async () => {
  await client?.close();
});

describe("the MCP server", () => {
  it("lists its tools with their input schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "chunk_document",
      "chunk_documents",
      "create_upload",
      "get_job",
      "get_result",
      "list_tiers",
    ]);
    const chunkTool = tools.find((t) => t.name === "chunk_document")!;
    expect(Object.keys(chunkTool.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(["url", "text", "file_base64", "upload_id", "filename", "tier", "max_tokens"]),
    );
    const batchTool = tools.find((t) => t.name === "chunk_documents")!;
    expect(Object.keys(batchTool.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(["documents", "tier", "max_tokens"]),
    );
    // An agent with a large file learns the two-step path from the tools themselves.
    expect(chunkTool.description).toContain("create_upload");
    const uploadTool = tools.find((t) => t.name === "create_upload")!;
    expect(Object.keys(uploadTool.inputSchema.properties ?? {}).sort()).toEqual([
      "content_type",
      "filename",
      "sha256",
      "size",
    ]);
  });

  it("chunks text on the free tier and counts the caller's free pages as HTTP does", async () => {
    h.use({ FREE_PAGES_PER_DAY: "2" });
    try {
      const sdk = await connect();
      const text = `# Rivers\n\n${prose(1)}`;
      const result = await chunk(sdk, { text, tier: "free", max_tokens: 128 });
      expect(result.isError).toBeFalsy();
      const body = result.structuredContent as { success: boolean; chunks: { text: string }[]; total_chunks: number };
      expect(body.success).toBe(true);
      expect(body.chunks.length).toBe(body.total_chunks);
      expect(body.chunks.map((c) => c.text).join(" ")).toContain("Rivers");
      expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(body);

      expect((await chunk(sdk, { text: "Second page.", tier: "free" })).isError).toBeFalsy();
      const over = await chunk(sdk, { text: "Third page.", tier: "free" });
      expect(over.isError).toBe(true);
      expect(over.structuredContent).toMatchObject({ code: "free_quota_exceeded" });
      await sdk.close();
    } finally {
      h.use();
    }
  });

  it("runs any tier as a job with async: true, followed with get_job and fetched with get_result", async () => {
    const text = `# Lighthouses\n\n${prose(1, 7)}`;
    const accepted = await chunk(client, { text, tier: "free", max_tokens: 128, async: true });
    expect(accepted.isError).toBeFalsy();
    const job = accepted.structuredContent as { async: boolean; job_id: string; status: string };
    expect(job).toMatchObject({ async: true, status: "processing" });
    expect(job.job_id).toMatch(/^free_[0-9a-f]{32}$/);
    let status: { status?: string } = {};
    // Bounded: a page of text is chunked in well under a second.
    for (let i = 0; i < 200 && status.status !== "completed"; i++) {
      const polled = (await client.callTool({ name: "get_job", arguments: { job_id: job.job_id } })) as CallToolResult;
      expect(polled.isError).toBeFalsy();
      status = polled.structuredContent as { status: string };
      expect(status.status).not.toBe("failed");
      if (status.status !== "completed") await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status.status).toBe("completed");
    const result = (await client.callTool({ name: "get_result", arguments: { job_id: job.job_id } })) as CallToolResult;
    const body = result.structuredContent as { tier: string; job_id: string; chunks: { text: string }[] };
    expect(body).toMatchObject({ tier: "free", job_id: job.job_id });
    expect(body.chunks.map((c) => c.text).join(" ")).toContain("Lighthouses");
  });

  it("answers a clear tool error for bad arguments and an unknown job", async () => {
    const both = await chunk(client, { text: "a", url: "https://example.com/a.pdf", tier: "free" });
    expect(both.isError).toBe(true);
    expect(both.structuredContent).toMatchObject({ code: "invalid_request" });
    const job = (await client.callTool({
      name: "get_job",
      arguments: { job_id: `ai-pro_${"0".repeat(32)}` },
    })) as CallToolResult;
    expect(job.isError).toBe(true);
    expect(job.structuredContent).toMatchObject({ code: "expired_or_unknown" });
  });

  it("lists the tiers with prices from the tier table", async () => {
    const result = (await client.callTool({ name: "list_tiers", arguments: {} })) as CallToolResult;
    const { tiers } = result.structuredContent as { tiers: { id: string; price_base_units: number }[] };
    expect(tiers.find((t) => t.id === "structure")?.price_base_units).toBe(2000);
  });

  it("refuses an unpaid structure call with the x402 PaymentRequired, takes the payment in _meta, and refuses it replayed", async () => {
    const payer = await funded();
    const args = { text: `# Paid\n\n${prose(1, 77)}`, tier: "structure" };
    const unpaid = await chunk(client, args);
    expect(unpaid.isError).toBe(true);
    const required = unpaid.structuredContent as PaymentRequired;
    expect(required).toMatchObject({
      x402Version: 2,
      accepts: [{ scheme: "exact", amount: "2000", payTo: h.chain.payTo }],
    });
    expect(JSON.parse((unpaid.content[0] as { text: string }).text)).toEqual(required);
    expect(required.extensions?.bazaar).toMatchObject({ info: { input: { type: "mcp", toolName: "chunk_document" } } });

    const x402 = new x402Client();
    x402.register("solana:*", new ExactSvmScheme(payer, { rpcUrl: h.chain.rpcUrl }));
    const payment = await x402.createPaymentPayload(required);
    const before = await usdc(h.chain.payTo);
    const paid = await chunk(client, args, { "x402/payment": payment });
    expect(paid.isError, JSON.stringify(paid.structuredContent)).toBeFalsy();
    expect((paid.structuredContent as { chunks: unknown[] }).chunks.length).toBeGreaterThan(0);
    const settlement = paid._meta?.["x402/payment-response"] as {
      success: boolean;
      transaction: string;
      payer: string;
    };
    expect(settlement).toMatchObject({ success: true, payer: payer.address });
    expect(await usdc(h.chain.payTo)).toBe(before + 2000n);

    // Replayed for the same call it answers the same result again; for another document it is refused.
    const again = await chunk(client, args, { "x402/payment": payment });
    expect(again.structuredContent).toEqual(paid.structuredContent);
    const replay = await chunk(client, { ...args, text: "# Another\n\nSomething else." }, { "x402/payment": payment });
    expect(replay.isError).toBe(true);
    expect((replay.structuredContent as PaymentRequired).error).toMatch(/reference issued for this request/);
    expect(await usdc(h.chain.payTo)).toBe(before + 2000n);
  });
});
