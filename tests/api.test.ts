import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/ground/config";
import { fetchDocument } from "@/lib/fetch/safe-fetch";
import { RedisStore } from "@/lib/store";
import type { Store } from "@/lib/store/types";
import * as quotaRoute from "@/app/api/quota/route";
import { PEER_HEADER } from "@/lib/http/client-address";
import { ORIGIN, call, json, newClient, prose, upload } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";
import { renderPages } from "./helpers/scans";

const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dirname, "fixtures", name)));

let documents: http.Server;
let docBase: string;
/** A scan of structured.pdf's first page, served as a document URL. */
let scanPng: Uint8Array;
const served = { requests: 0 };

// Fresh services for each test; each test uses its own client address.
const h = serviceHarness({
  chain: true,
  // The AI tiers need a model to be offered at all; nothing here calls it (tests/ai.test.ts does, through the stand-in).
  env: () => ({
    URL_FETCH_ALLOW_PRIVATE: "true",
    AI_BASE_URL: "http://127.0.0.1:9/v1",
    AI_MODEL: "standin-small",
    AI_PRO_MODEL: "standin-large",
  }),
  install: "beforeEach",
});

function expectErrorBody(payload: Record<string, any>, status: number, code: string) {
  expect(payload).toMatchObject({ success: false, code });
  expect(typeof payload.error).toBe("string");
  expect(payload.message.length).toBeGreaterThan(10);
  expect(status).toBeGreaterThanOrEqual(400);
}

beforeAll(async () => {
  scanPng = (await renderPages(fixture("structured.pdf"), [1], 200))[0]!;
  documents = http.createServer((req, res) => {
    served.requests++;
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/doc.txt") {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      res.end(prose(2));
    } else if (url.pathname === "/report.pdf") {
      res.writeHead(200, { "content-type": "application/pdf" });
      res.end(fixture("multipage.pdf"));
    } else if (url.pathname === "/scan.png") {
      res.writeHead(200, { "content-type": "image/png" });
      res.end(scanPng);
    } else if (url.pathname === "/page.html") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(fixture("page.html"));
    } else if (url.pathname === "/to-private") {
      res.writeHead(302, { location: `http://127.0.0.2:${(documents.address() as AddressInfo).port}/doc.txt` });
      res.end();
    } else if (url.pathname === "/slow") {
      // Never answers; the fetch timeout must end it.
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => documents.listen(0, "127.0.0.1", resolve));
  docBase = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
});

afterAll(async () => {
  documents?.closeAllConnections();
  await new Promise((resolve) => documents?.close(resolve));
});

describe("GET /api and /api/health", () => {
  it("lists the tiers from the tier table with prices, defaults and limits", async () => {
    const response = await call("GET", "/api");
    expect(response.status).toBe(200);
    const info = await json(response);
    expect(info.name).toBe("Chunkwise");
    expect(info.network).toBe("solana-localnet");
    expect(Object.fromEntries(info.tiers.map((t: any) => [t.id, t.price_base_units]))).toEqual({
      free: 0,
      structure: 2000,
      semantic: 4000,
      ai: 10000,
      "ai-pro": 25000,
    });
    expect(info.tiers.find((t: any) => t.id === "structure").endpoints).toEqual([
      "http://chunkwise.test/api/chunk/standard",
      "http://chunkwise.test/api/chunk/structure",
    ]);
    expect(info.defaults).toMatchObject({ max_tokens: 512, overlap_tokens: 64, output_format: "raw" });
    expect(info.limits.max_upload_bytes).toBe(25 * 1024 * 1024);
    expect(info.output_formats).toEqual(["raw", "pinecone", "weaviate", "chroma", "qdrant"]);
  });

  it("builds its URLs from the host the client addressed, the forwarded one only behind a trusted proxy", async () => {
    const endpoint = async (headers: Record<string, string>) =>
      (await json(await call("GET", "/api", { headers }))).tiers.find((t: any) => t.id === "free").endpoints[0];
    expect(await endpoint({ host: "api.example.com:8443" })).toBe("http://api.example.com:8443/api/chunk/demo");
    expect(await endpoint({ host: "bad host/../x" })).toBe("http://chunkwise.test/api/chunk/demo");
    expect(
      await endpoint({ host: "api.example.com", "x-forwarded-host": "public.example", "x-forwarded-proto": "https" }),
    ).toBe("http://api.example.com/api/chunk/demo");
    h.use({ TRUST_PROXY_HEADERS: "true" });
    expect(
      await endpoint({
        host: "internal:3000",
        "x-forwarded-host": "public.example, proxy.internal",
        "x-forwarded-proto": "https",
      }),
    ).toBe("https://public.example/api/chunk/demo");
    h.use({ PUBLIC_BASE_URL: "https://chunkwise.example/" });
    expect(await endpoint({ host: "api.example.com" })).toBe("https://chunkwise.example/api/chunk/demo");
  });

  it("announces a browser-facing RPC: the local chain in local mode, else the network's public endpoint, never a keyed SOLANA_RPC_URL", async () => {
    const rpcUrl = async () => (await json(await call("GET", "/api"))).payment.rpc_url;
    expect(await rpcUrl()).toBe(h.chain.rpcUrl);
    const keyed = "https://rpc.provider.example/?api-key=secret";
    try {
      h.use({ SOLANA_NETWORK: "solana-devnet", SOLANA_RPC_URL: keyed });
      expect(await rpcUrl()).toBe("https://api.devnet.solana.com");
      h.use({ SOLANA_NETWORK: "solana", URL_FETCH_ALLOW_PRIVATE: "false", SOLANA_RPC_URL: keyed });
      expect(await rpcUrl()).toBe("https://api.mainnet-beta.solana.com");
      h.use({
        SOLANA_NETWORK: "solana",
        URL_FETCH_ALLOW_PRIVATE: "false",
        SOLANA_RPC_URL: keyed,
        PUBLIC_SOLANA_RPC_URL: "https://public-rpc.example",
      });
      expect(await rpcUrl()).toBe("https://public-rpc.example");
    } finally {
      h.use();
    }
  });

  it("reports healthy with the network, and degraded with a 503 when the store is down", async () => {
    const ok = await call("GET", "/api/health");
    expect(ok.status).toBe(200);
    expect(await json(ok)).toEqual({
      status: "healthy",
      network: "solana-localnet",
      payments: { days: 7, with_reference: expect.any(Number), memo_less: expect.any(Number) },
    });

    const dead = new RedisStore({ url: "redis://127.0.0.1:1" });
    h.use({}, { store: dead });
    const degraded = await call("GET", "/api/health");
    expect(degraded.status).toBe(503);
    const payload = await json(degraded);
    expect(payload.status).toBe("degraded");
    expect(payload.checks.store.ok).toBe(false);
    await dead.close();
  });
});

describe("free tier uploads", () => {
  for (const endpoint of ["demo", "free"]) {
    it(`/api/chunk/${endpoint} chunks a text file inline with the spec's result`, async () => {
      const text = prose(2);
      const response = await call("POST", `/api/chunk/${endpoint}`, {
        body: upload(text, "notes.txt"),
        client: newClient(),
      });
      expect(response.status).toBe(200);
      const result = await json(response);
      expect(result).toMatchObject({
        success: true,
        tier: "free",
        payment: { amount: 0, asset: "USDC", network: "solana-localnet" },
      });
      expect(result.metadata).toMatchObject({
        filename: "notes.txt",
        content_type: "text/plain",
        size_bytes: text.length,
        estimated_pages: 2,
        ocr_pages: [],
      });
      expect(result.total_chunks).toBe(result.chunks.length);
      expect(result.total_chunks).toBeGreaterThan(1);
      result.chunks.forEach((chunk: any, index: number) => {
        expect(chunk.metadata.chunk_index).toBe(index);
        expect(chunk.text).toBe(text.slice(chunk.metadata.start, chunk.metadata.end));
        expect(chunk.metadata.char_count).toBe(chunk.text.length);
        expect(chunk.metadata.token_count).toBeLessThanOrEqual(512);
      });
      expect(response.headers.get("x-ratelimit-limit")).toBe("100");
      expect(response.headers.get("x-ratelimit-remaining")).toBe("98");
    });
  }

  it("keeps PDF page numbers on every chunk", async () => {
    const response = await call("POST", "/api/chunk/free", {
      body: upload(fixture("multipage.pdf"), "report.pdf", { max_tokens: "64", overlap_tokens: "0" }),
      client: newClient(),
    });
    expect(response.status).toBe(200);
    const result = await json(response);
    expect(result.metadata.content_type).toBe("application/pdf");
    const pages = result.metadata.estimated_pages;
    expect(pages).toBeGreaterThanOrEqual(3);
    const first = result.chunks[0].metadata;
    const last = result.chunks.at(-1).metadata;
    expect(first.page_start).toBe(1);
    expect(last.page_end).toBe(pages);
    for (const chunk of result.chunks)
      expect(chunk.metadata.page_end).toBeGreaterThanOrEqual(chunk.metadata.page_start);
  });

  it("reads a scanned page by OCR and says so, counting it as a page", async () => {
    const [scan] = await renderPages(fixture("structured.pdf"), [1], 200);
    const client = newClient();
    const response = await call("POST", "/api/chunk/free", { body: upload(scan!, "scan.png"), client });
    expect(response.status).toBe(200);
    const result = await json(response);
    expect(result.metadata).toMatchObject({ content_type: "image/png", estimated_pages: 1, ocr_pages: [1] });
    const text = result.chunks.map((chunk: any) => chunk.text).join("\n");
    expect(text).toContain("Binoculars and a spotting scope with its tripod");
    expect(response.headers.get("x-ratelimit-remaining")).toBe("99");
  });

  it.each([
    ["report.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
    ["page.html", "text/html"],
    ["notes.md", "text/markdown"],
    ["cjk.txt", "text/plain"],
  ])("accepts %s, detected from its bytes", async (name, mediaType) => {
    // A misleading name: the type must come from the bytes (names only choose between text kinds).
    const filename = name.endsWith(".md") ? name : `${name}.bin`;
    const response = await call("POST", "/api/chunk/free", {
      body: upload(fixture(name), filename),
      client: newClient(),
    });
    expect(response.status).toBe(200);
    const result = await json(response);
    expect(result.metadata.content_type).toBe(mediaType);
    expect(result.total_chunks).toBeGreaterThan(0);
  });

  it("counts characters as code points and keeps offsets as string indices, with emoji", async () => {
    const text = new TextDecoder().decode(fixture("emoji.txt")).replace(/\r\n?/g, "\n");
    const response = await call("POST", "/api/chunk/free", {
      body: upload(text, "emoji.txt", { max_tokens: "48", overlap_tokens: "0" }),
      client: newClient(),
    });
    expect(response.status).toBe(200);
    const result = await json(response);
    let astral = 0;
    for (const chunk of result.chunks) {
      expect(chunk.text).toBe(text.slice(chunk.metadata.start, chunk.metadata.end));
      expect(chunk.metadata.char_count).toBe([...chunk.text].length);
      if (chunk.metadata.char_count < chunk.text.length) astral++;
    }
    expect(astral).toBeGreaterThan(0);
  });

  it("formats chunks for each vector store", async () => {
    const client = newClient();
    const expectations: Record<string, (record: any) => void> = {
      pinecone: (r) =>
        expect(r).toMatchObject({ _id: expect.stringMatching(/#0$/), chunk_text: expect.any(String), chunk_index: 0 }),
      weaviate: (r) =>
        expect(r).toMatchObject({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          properties: { text: expect.any(String), chunk_index: 0 },
        }),
      chroma: (r) =>
        expect(r).toMatchObject({ id: expect.any(String), document: expect.any(String), metadata: { chunk_index: 0 } }),
      qdrant: (r) =>
        expect(r).toMatchObject({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          payload: { text: expect.any(String), chunk_index: 0 },
        }),
    };
    for (const [format, check] of Object.entries(expectations)) {
      const response = await call("POST", "/api/chunk/free", {
        body: upload("One paragraph.\n\nAnother paragraph.", "a.txt", { output_format: format }),
        client,
      });
      expect(response.status).toBe(200);
      const result = await json(response);
      expect(result.metadata.output_format).toBe(format);
      check(result.chunks[0]);
    }
  });
});

describe("stored results", () => {
  it("stores results of 100 or more chunks behind download_url, and forgets them after the TTL", async () => {
    h.use({ RESULT_TTL_SECONDS: "2" });
    const text = prose(10);
    const response = await call("POST", "/api/chunk/free", {
      body: upload(text, "long.txt", { max_tokens: "32", overlap_tokens: "0" }),
      client: newClient(),
    });
    expect(response.status).toBe(200);
    const summary = await json(response);
    expect(summary.total_chunks).toBeGreaterThanOrEqual(100);
    expect(summary.chunks).toBeUndefined();
    expect(summary.result_id).toMatch(/^standard_[0-9a-f]{32}$/);
    expect(summary.download_url).toBe(`http://chunkwise.test/api/results/${summary.result_id}`);
    expect(summary.expires_in).toMatch(/^\d+ minutes$/);

    const stored = await call("GET", `/api/results/${summary.result_id}`);
    expect(stored.status).toBe(200);
    const full = await json(stored);
    expect(full.chunks).toHaveLength(summary.total_chunks);
    expect(full.chunks[5].text).toBe(text.slice(full.chunks[5].metadata.start, full.chunks[5].metadata.end));

    await new Promise((resolve) => setTimeout(resolve, 2300));
    const gone = await call("GET", `/api/results/${summary.result_id}`);
    expect(gone.status).toBe(404);
    expectErrorBody(await json(gone), 404, "expired_or_unknown");
  });

  it("says 60 minutes by default", async () => {
    const response = await call("POST", "/api/chunk/free", {
      body: upload(prose(10), "long.txt", { max_tokens: "32", overlap_tokens: "0" }),
      client: newClient(),
    });
    expect((await json(response)).expires_in).toBe("60 minutes");
  });

  it("answers 404 for unknown and malformed result ids", async () => {
    for (const id of ["standard_000000000000", "nope", "..%2F..%2Fetc"]) {
      const response = await call("GET", `/api/results/${id}`);
      expect(response.status).toBe(404);
      expectErrorBody(await json(response), 404, "expired_or_unknown");
    }
  });
});

describe("POST /api/chunk with a URL", () => {
  it("fetches and chunks a document on the free tier, a scan included", async () => {
    for (const [path, type] of [
      ["/doc.txt", "text/plain"],
      ["/report.pdf", "application/pdf"],
      ["/page.html", "text/html"],
      ["/scan.png", "image/png"],
    ] as const) {
      const response = await call("POST", "/api/chunk", {
        body: JSON.stringify({ url: `${docBase}${path}`, tier: "free" }),
        headers: { "content-type": "application/json" },
        client: newClient(),
      });
      expect(response.status).toBe(200);
      const result = await json(response);
      expect(result.metadata.content_type).toBe(type);
      expect(result.metadata.filename).toBe(path.slice(1));
    }
  });

  it("refuses private addresses unless allowed, and redirects to them", async () => {
    h.use({ URL_FETCH_ALLOW_PRIVATE: "false" });
    const before = served.requests;
    const direct = await call("POST", "/api/chunk", {
      body: JSON.stringify({ url: `${docBase}/doc.txt`, tier: "free" }),
      headers: { "content-type": "application/json" },
      client: newClient(),
    });
    expect(direct.status).toBe(400);
    expectErrorBody(await json(direct), 400, "url_forbidden");
    expect(served.requests).toBe(before);

    // Only 127.0.0.1 counts as public here, so the hop to 127.0.0.2 stands for a private address.
    const config = loadConfig({ REDIS_URL: h.redis.url });
    h.use(
      {},
      {
        fetchUrl: (url) =>
          fetchDocument(url, { ...config.urlFetch, allowPrivate: false, isAllowedAddress: (ip) => ip === "127.0.0.1" }),
      },
    );
    const redirected = await call("POST", "/api/chunk", {
      body: JSON.stringify({ url: `${docBase}/to-private`, tier: "free" }),
      headers: { "content-type": "application/json" },
      client: newClient(),
    });
    expect(redirected.status).toBe(400);
    expectErrorBody(await json(redirected), 400, "url_forbidden");
  });

  it("times out on a server that never answers", async () => {
    h.use({ URL_FETCH_TIMEOUT_MS: "300" });
    const response = await call("POST", "/api/chunk", {
      body: JSON.stringify({ url: `${docBase}/slow`, tier: "free" }),
      headers: { "content-type": "application/json" },
      client: newClient(),
    });
    expect(response.status).toBe(400);
    expectErrorBody(await json(response), 400, "url_timeout");
  });

  it("refuses a JSON body over 64 KB while reading it", async () => {
    const response = await call("POST", "/api/chunk", {
      body: JSON.stringify({ url: `${docBase}/doc.txt`, tier: "free", padding: "x".repeat(200_000) }),
      headers: { "content-type": "application/json" },
      client: newClient(),
    });
    expect(response.status).toBe(413);
    expectErrorBody(await json(response), 413, "body_too_large");
  });

  it("validates the JSON body", async () => {
    const cases: [BodyInit, Record<string, string>, string][] = [
      ["{not json", { "content-type": "application/json" }, "invalid_json"],
      [JSON.stringify({ tier: "free" }), { "content-type": "application/json" }, "invalid_request"],
      [
        JSON.stringify({ url: `${docBase}/doc.txt`, tier: "gold" }),
        { "content-type": "application/json" },
        "invalid_request",
      ],
      [
        JSON.stringify({ url: `${docBase}/doc.txt`, tier: "free", output_format: "csv" }),
        { "content-type": "application/json" },
        "invalid_request",
      ],
      [
        JSON.stringify({ url: "ftp://example.com/a.txt", tier: "free" }),
        { "content-type": "application/json" },
        "invalid_url",
      ],
      ["url=x", { "content-type": "application/x-www-form-urlencoded" }, "expected_json"],
    ];
    for (const [payload, headers, code] of cases) {
      const response = await call("POST", "/api/chunk", { body: payload, headers, client: newClient() });
      expect(response.status).toBe(400);
      expectErrorBody(await json(response), 400, code);
    }
  });
});

describe("paid tiers answer 402 with payment requirements", () => {
  const paid = [
    ["/api/chunk/standard", 2000],
    ["/api/chunk/structure", 2000],
    ["/api/chunk/semantic", 4000],
    ["/api/chunk/ai", 10000],
    ["/api/chunk/ai-pro", 25000],
  ] as const;
  it.each(paid)("%s", async (path, price) => {
    const response = await call("POST", path, { body: upload("Some text.", "a.txt"), client: newClient() });
    expect(response.status).toBe(402);
    const payload = await json(response);
    expect(payload.error).toBe("Payment Required");
    expect(payload.code).toBe("payment_required");
    expect(payload.paymentRequirements).toMatchObject({
      x402Version: 1,
      scheme: "exact",
      network: "solana-localnet",
      maxAmountRequired: String(price),
      asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
      payTo: expect.any(String),
      description: expect.any(String),
      resource: `http://chunkwise.test${path}`,
      mimeType: "application/json",
    });
    expect(payload.x402Version).toBe(1);
    expect(payload.accepts).toHaveLength(1);
    expect(payload.accepts[0]).toMatchObject({ ...payload.paymentRequirements, network: "solana-devnet" });
  });

  it("without a model, the AI tiers are listed as unavailable and answer 503 ai_not_configured, not 402", async () => {
    h.use({ AI_MODEL: "", AI_PRO_MODEL: "" });
    const info = await json(await call("GET", "/api"));
    const tiers = Object.fromEntries(info.tiers.map((t: any) => [t.id, t]));
    expect(tiers.ai).toMatchObject({ available: false, reason: expect.stringContaining("AI_MODEL") });
    expect(tiers["ai-pro"]).toMatchObject({ available: false, reason: expect.stringContaining("AI_PRO_MODEL") });
    expect(tiers.structure.available).toBe(true);
    for (const path of ["/api/chunk/ai", "/api/chunk/ai-pro"]) {
      const response = await call("POST", path, { body: upload("Some text.", "a.txt"), client: newClient() });
      expect(response.status).toBe(503);
      expectErrorBody(await json(response), 503, "ai_not_configured");
    }
    const byUrl = await call("POST", "/api/chunk", {
      body: JSON.stringify({ url: `${docBase}/doc.txt`, tier: "ai" }),
      headers: { "content-type": "application/json" },
      client: newClient(),
    });
    expect(byUrl.status).toBe(503);
  });

  it("POST /api/chunk defaults to the structure tier and asks for payment", async () => {
    const response = await call("POST", "/api/chunk", {
      body: JSON.stringify({ url: `${docBase}/doc.txt` }),
      headers: { "content-type": "application/json" },
      client: newClient(),
    });
    expect(response.status).toBe(402);
    expect((await json(response)).paymentRequirements.maxAmountRequired).toBe("2000");
  });
});

describe("PDFs whose pages repeat", () => {
  it("chunks a PDF of four pages carrying the same notice instead of answering no_text", async () => {
    const response = await call("POST", "/api/chunk/free", {
      body: upload(fixture("repeated-pages.pdf"), "notice.pdf"),
      client: newClient(),
    });
    const result = await json(response);
    expect(response.status, JSON.stringify(result)).toBe(200);
    const text = (result.chunks as { text: string }[]).map((c) => c.text).join("\n");
    expect(text.match(/All members are invited to attend\./g)).toHaveLength(4);
  });
});

describe("free quota", () => {
  it("allows the daily pages, then answers 429 with Retry-After and rate-limit headers; others are unaffected", async () => {
    h.use({ FREE_PAGES_PER_DAY: "5" });
    const client = newClient();
    for (let i = 0; i < 2; i++) {
      const ok = await call("POST", "/api/chunk/free", { body: upload(prose(2, i + 1), "a.txt"), client });
      expect(ok.status).toBe(200);
    }
    const over = await call("POST", "/api/chunk/free", { body: upload(prose(2, 9), "a.txt"), client });
    expect(over.status).toBe(429);
    expectErrorBody(await json(over), 429, "free_quota_exceeded");
    const retryAfter = Number(over.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(over.headers.get("x-ratelimit-limit")).toBe("5");
    expect(over.headers.get("x-ratelimit-remaining")).toBe("1");
    expect(Number(over.headers.get("x-ratelimit-reset")) % 86_400).toBe(0);

    // The remaining page is still usable: the refused request took nothing.
    const onePage = await call("POST", "/api/chunk/free", { body: upload("Short.", "a.txt"), client });
    expect(onePage.status).toBe(200);
    expect(onePage.headers.get("x-ratelimit-remaining")).toBe("0");
    const exhausted = await call("POST", "/api/chunk/free", { body: upload("Short.", "a.txt"), client });
    expect(exhausted.status).toBe(429);

    const other = await call("POST", "/api/chunk/free", { body: upload("Short.", "a.txt"), client: newClient() });
    expect(other.status).toBe(200);
  });

  it("counts an IPv6 client by its /64: rotating addresses within it gets no more pages", async () => {
    h.use({ FREE_PAGES_PER_DAY: "3" });
    for (const page of [1, 2, 3]) {
      const ok = await call("POST", "/api/chunk/free", {
        body: upload(`Page ${page}.`, "a.txt"),
        client: `2001:db8:aa:1::${page}`,
      });
      expect(ok.status).toBe(200);
    }
    const rotated = await call("POST", "/api/chunk/free", {
      body: upload("One more.", "a.txt"),
      client: "2001:db8:aa:1:ffff:ffff:ffff:ffff",
    });
    expect(rotated.status).toBe(429);
    // The next /64 is another client.
    const neighbour = await call("POST", "/api/chunk/free", {
      body: upload("Hello.", "a.txt"),
      client: "2001:db8:aa:2::1",
    });
    expect(neighbour.status).toBe(200);
  });

  it("counts an IPv4-mapped IPv6 address as its IPv4 address", async () => {
    h.use({ FREE_PAGES_PER_DAY: "1" });
    const ipv4 = newClient();
    expect((await call("POST", "/api/chunk/free", { body: upload("Hi.", "a.txt"), client: ipv4 })).status).toBe(200);
    const mapped = await call("POST", "/api/chunk/free", { body: upload("Hi.", "a.txt"), client: `::ffff:${ipv4}` });
    expect(mapped.status).toBe(429);
  });

  it("GET /api/quota reports the caller's pages left without taking any, and follows what uploads take", async () => {
    h.use({ FREE_PAGES_PER_DAY: "5" });
    const client = newClient();
    const quota = async (who: string) => {
      const response = await quotaRoute.GET(new Request(`${ORIGIN}/api/quota`, { headers: { [PEER_HEADER]: who } }));
      expect(response.status).toBe(200);
      return json(response);
    };
    const fresh = await quota(client);
    expect(fresh).toEqual({ limit: 5, remaining: 5, reset: expect.any(Number) });
    expect(fresh.reset % 86_400).toBe(0);
    expect(fresh.reset * 1000).toBeGreaterThan(Date.now());
    // Reading is free: asking again changes nothing.
    expect(await quota(client)).toEqual(fresh);

    const ok = await call("POST", "/api/chunk/free", { body: upload(prose(2), "a.txt"), client });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-ratelimit-remaining")).toBe("3");
    expect(await quota(client)).toEqual({ ...fresh, remaining: 3 });
    expect((await quota(newClient())).remaining).toBe(5);
  });

  it("keeps a page for the client's damaged document; gives back the pages of a request that failed on our side", async () => {
    h.use({ FREE_PAGES_PER_DAY: "12" });
    const client = newClient();
    const bad = await call("POST", "/api/chunk/free", { body: upload(fixture("corrupted.pdf"), "x.pdf"), client });
    expect(bad.status).toBe(400);
    // Opening it was work: resending a damaged file is not free.
    expect(bad.headers.get("x-ratelimit-remaining")).toBeNull();
    const afterBad = await call("GET", "/api/quota", { client });
    expect(((await afterBad.json()) as { remaining: number }).remaining).toBe(11);

    // A store that fails to save results: the work fails after the pages were reserved, and they come back.
    const failingSaves: Store = new Proxy(h.store, {
      get(target, property, receiver) {
        if (property === "set")
          return async () => {
            throw new Error("disk full");
          };
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    h.use({ FREE_PAGES_PER_DAY: "12" }, { store: failingSaves });
    // 10 pages at 32 tokens make over 100 chunks, so the result must be saved, and saving fails.
    const failed = await call("POST", "/api/chunk/free", {
      body: upload(prose(10), "long.txt", { max_tokens: "32", overlap_tokens: "0" }),
      client,
    });
    expect(failed.status).toBe(500);
    expectErrorBody(await json(failed), 500, "internal_error");

    h.use({ FREE_PAGES_PER_DAY: "12" });
    const ok = await call("POST", "/api/chunk/free", { body: upload(prose(11), "a.txt"), client });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-ratelimit-remaining")).toBe("0");
  });
});

describe("bad input gets a specific 4xx and the service keeps serving", () => {
  const cases: [string, () => FormData, number, string][] = [
    ["empty file", () => upload(new Uint8Array(0), "empty.txt"), 400, "empty_document"],
    ["whitespace only", () => upload("  \n\n\t ", "blank.txt"), 400, "empty_document"],
    ["wrong type (GIF)", () => upload(fixture("image.gif"), "photo.txt"), 415, "unsupported_type"],
    ["image without text", () => upload(fixture("image.png"), "photo.png"), 400, "no_text"],
    ["corrupted PDF", () => upload(fixture("corrupted.pdf"), "x.pdf"), 400, "corrupted_pdf"],
    ["truncated PDF", () => upload(fixture("truncated.pdf"), "x.pdf"), 400, "corrupted_pdf"],
    ["invalid UTF-8", () => upload(fixture("invalid-utf8.txt"), "x.txt"), 400, "invalid_encoding"],
    ["zip bomb", () => upload(fixture("zip-bomb.docx"), "x.docx"), 413, "zip_bomb"],
    ["zip bomb with lying sizes", () => upload(fixture("zip-bomb-lying.docx"), "x.docx"), 413, "zip_bomb"],
    ["max_tokens too small", () => upload("Text.", "a.txt", { max_tokens: "5" }), 400, "invalid_options"],
    [
      "overlap above half",
      () => upload("Text.", "a.txt", { max_tokens: "100", overlap_tokens: "60" }),
      400,
      "invalid_options",
    ],
    ["unknown output format", () => upload("Text.", "a.txt", { output_format: "csv" }), 400, "invalid_options"],
  ];
  it.each(cases)("%s", async (_name, form, status, code) => {
    const response = await call("POST", "/api/chunk/free", { body: form(), client: newClient() });
    expect(response.status).toBe(status);
    expectErrorBody(await json(response), status, code);
    const health = await call("GET", "/api/health");
    expect(health.status).toBe(200);
  });

  it("refuses an oversized upload while reading it", async () => {
    h.use({ MAX_UPLOAD_BYTES: "65536" });
    const response = await call("POST", "/api/chunk/free", {
      body: upload(new Uint8Array(300_000).fill(97), "big.txt"),
      client: newClient(),
    });
    expect(response.status).toBe(413);
    expectErrorBody(await json(response), 413, "file_too_large");
  });

  it("refuses bodies that are not multipart or lack the file field", async () => {
    const notMultipart = await call("POST", "/api/chunk/free", {
      body: "{}",
      headers: { "content-type": "application/json" },
      client: newClient(),
    });
    expectErrorBody(await json(notMultipart), notMultipart.status, "expected_multipart");
    const form = new FormData();
    form.set("document", "text");
    const missing = await call("POST", "/api/chunk/free", { body: form, client: newClient() });
    expect(missing.status).toBe(400);
    expectErrorBody(await json(missing), 400, "missing_file");
  });

  it("answers unknown endpoints with 404 and wrong methods with 405, as JSON", async () => {
    const unknown = await call("POST", "/api/chunk/gold", { body: upload("x", "a.txt") });
    expect(unknown.status).toBe(404);
    expectErrorBody(await json(unknown), 404, "unknown_endpoint");
    const wrongMethod = await call("GET", "/api/chunk/free");
    expect(wrongMethod.status).toBe(405);
    expectErrorBody(await json(wrongMethod), 405, "method_not_allowed");
    const elsewhere = await call("GET", "/api/nothing/here");
    expect(elsewhere.status).toBe(404);
    expectErrorBody(await json(elsewhere), 404, "not_found");
  });
});
