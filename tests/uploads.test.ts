import { createHash } from "node:crypto";
import { getPayloadFromClientToken } from "@vercel/blob/client";
import { beforeAll, describe, expect, it } from "vitest";
import { call, newClient, payFor402, pollUntilDone, prose, upload } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";
import { paddedPdf } from "./helpers/large-pdf";

/**
 * Two-step uploads (lib/uploads/): declared with POST /api/uploads, the bytes
 * PUT to the service, then chunked by `upload_id` on the free and a paid tier,
 * synchronously and as a job; the refusals (unknown, expired, not yet sent,
 * too large, other bytes than declared); and the Vercel Blob handshake at its
 * HTTP boundary (the client token is signed locally: no network).
 */

const h = serviceHarness({ chain: true });
/** A 10 MB PDF: twice what Vercel lets a request body be. */
let bigPdf: Uint8Array;

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const jsonBody = (value: unknown) => ({
  body: JSON.stringify(value),
  headers: { "content-type": "application/json" },
});

async function declare(
  client: string,
  declared: { filename: string; content_type: string; size: number; sha256?: string },
): Promise<Response> {
  return call("POST", "/api/uploads", { ...jsonBody(declared), client });
}

/** Declares and sends `bytes`; the upload id. */
async function uploaded(bytes: Uint8Array, filename = "report.pdf", client = newClient()): Promise<string> {
  const created = await declare(client, { filename, content_type: "application/pdf", size: bytes.length });
  expect(created.status).toBe(201);
  const { upload_id, target } = (await created.json()) as Record<string, any>;
  expect(target).toMatchObject({ kind: "put", method: "PUT" });
  const put = await call("PUT", new URL(target.url as string).pathname, {
    body: bytes as BlobPart as BodyInit,
    client,
  });
  expect(put.status).toBe(200);
  expect(await put.json()).toMatchObject({ upload_id, size: bytes.length, sha256: sha256(bytes) });
  return upload_id as string;
}

const chunkTexts = (body: Record<string, any>) => (body.chunks as Array<{ text: string }>).map((c) => c.text);

beforeAll(async () => {
  bigPdf = await paddedPdf(10 * 1024 * 1024);
}, 60_000);

describe("two-step uploads to the service", () => {
  it(
    "a 10 MB PDF uploaded, then chunked by upload_id (multipart and JSON), answers what the file sent inline does",
    { timeout: 180_000 },
    async () => {
      h.use();
      const client = newClient();
      const uploadId = await uploaded(bigPdf, "report.pdf", client);

      const byMultipart = await call("POST", "/api/chunk/free", {
        body: (() => {
          const form = new FormData();
          form.set("upload_id", uploadId);
          form.set("max_tokens", "64");
          return form;
        })(),
        client,
      });
      expect(byMultipart.status).toBe(200);
      const viaUpload = (await byMultipart.json()) as Record<string, any>;
      expect(viaUpload.metadata).toMatchObject({ filename: "report.pdf" });

      const byJson = await call("POST", "/api/chunk", {
        ...jsonBody({ upload_id: uploadId, tier: "free", max_tokens: 64 }),
        client,
      });
      expect(byJson.status).toBe(200);

      const inline = await call("POST", "/api/chunk/free", {
        body: upload(bigPdf, "report.pdf", { max_tokens: "64" }, "application/pdf"),
        client,
      });
      expect(inline.status).toBe(200);
      const expected = chunkTexts((await inline.json()) as Record<string, any>);
      expect(expected.length).toBeGreaterThan(1);
      expect(chunkTexts(viaUpload)).toEqual(expected);
      expect(chunkTexts((await byJson.json()) as Record<string, any>)).toEqual(expected);
    },
  );

  it(
    "a paid tier by upload_id: 402 first, paid on the local h.chain, then chunked; the binding is the bytes' SHA-256",
    { timeout: 180_000 },
    async () => {
      const services = h.use();
      const client = newClient();
      const uploadId = await uploaded(bigPdf, "report.pdf", client);
      const ask = () =>
        call("POST", "/api/chunk", {
          ...jsonBody({ upload_id: uploadId, tier: "structure", max_tokens: 128 }),
          client,
        });
      const signature = await payFor402(h.rpc, h.chain, ask);
      const paid = await call("POST", "/api/chunk", {
        ...jsonBody({ upload_id: uploadId, tier: "structure", max_tokens: 128 }),
        headers: { "content-type": "application/json", "x-payment": signature },
        client,
      });
      expect(paid.status).toBe(200);
      const body = (await paid.json()) as Record<string, any>;
      expect(body.payment).toMatchObject({ transaction: signature, asset: "USDC" });
      expect(body.chunks.length).toBeGreaterThan(0);
      // The ledger bound the payment to the uploaded bytes, as it binds a file sent inline.
      const bound = await services.store.get(`upload:${uploadId}`);
      expect(JSON.parse(bound!).received.sha256).toBe(sha256(bigPdf));
      const reused = await call("POST", "/api/chunk", {
        ...jsonBody({ upload_id: uploadId, tier: "structure", max_tokens: 256 }),
        headers: { "content-type": "application/json", "x-payment": signature },
        client,
      });
      // The same payment does not buy other options on the same bytes.
      expect(reused.status).toBe(402);
    },
  );

  it("runs as a job by upload_id (async=true): the job reads the uploaded bytes", { timeout: 120_000 }, async () => {
    h.use();
    const client = newClient();
    const text = new TextEncoder().encode(`# Large notes\n\n${prose(3)}`);
    const created = await declare(client, { filename: "notes.md", content_type: "text/markdown", size: text.length });
    const { upload_id, target } = (await created.json()) as Record<string, any>;
    expect((await call("PUT", new URL(target.url as string).pathname, { body: text, client })).status).toBe(200);
    const accepted = await call("POST", "/api/chunk", {
      ...jsonBody({ upload_id, tier: "free", async: true, max_tokens: 64 }),
      client,
    });
    expect(accepted.status).toBe(200);
    const { job_id } = (await accepted.json()) as { job_id: string };
    const seen = await pollUntilDone(job_id, 60_000);
    expect(seen.at(-1)).toMatchObject({ status: "completed" });
    const result = (await (await call("GET", `/api/job/${job_id}/result`)).json()) as Record<string, any>;
    expect(result.metadata.filename).toBe("notes.md");
    expect(result.chunks.map((c: { text: string }) => c.text).join(" ")).toContain("Large notes");
  });
});

describe("refusals", () => {
  it("an unknown, malformed or expired upload_id answers 404 expired_or_unknown; one never sent 409 upload_incomplete", async () => {
    h.use({ RESULT_TTL_SECONDS: "2" });
    const client = newClient();
    for (const id of ["upl_00000000000000000000000000000000", "not-an-id"]) {
      const answer = await call("POST", "/api/chunk", { ...jsonBody({ upload_id: id, tier: "free" }), client });
      expect(answer.status).toBe(404);
      expect(await answer.json()).toMatchObject({ code: "expired_or_unknown" });
    }
    const pending = await declare(client, { filename: "a.md", content_type: "text/markdown", size: 10 });
    const { upload_id } = (await pending.json()) as { upload_id: string };
    const early = await call("POST", "/api/chunk", { ...jsonBody({ upload_id, tier: "free" }), client });
    expect(early.status).toBe(409);
    expect(await early.json()).toMatchObject({ code: "upload_incomplete" });

    const sent = await uploaded(new TextEncoder().encode(`# Soon gone\n\n${prose(1)}`), "gone.md", client);
    expect((await call("POST", "/api/chunk", { ...jsonBody({ upload_id: sent, tier: "free" }), client })).status).toBe(
      200,
    );
    // Past RESULT_TTL_SECONDS the record and its bytes are gone.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const late = await call("POST", "/api/chunk", { ...jsonBody({ upload_id: sent, tier: "free" }), client });
    expect(late.status).toBe(404);
    expect(await late.json()).toMatchObject({ code: "expired_or_unknown" });
  });

  it("a document over 25 MB is refused when declared, and bytes other than declared when sent", async () => {
    const services = h.use();
    const client = newClient();
    const tooBig = await declare(client, {
      filename: "huge.pdf",
      content_type: "application/pdf",
      size: services.config.limits.maxUploadBytes + 1,
    });
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toMatchObject({ code: "file_too_large" });

    const text = new TextEncoder().encode(`# Declared\n\n${prose(1)}`);
    const created = await declare(client, {
      filename: "a.md",
      content_type: "text/markdown",
      size: text.length,
      sha256: sha256(text),
    });
    const { target, upload_id } = (await created.json()) as Record<string, any>;
    const path = new URL(target.url as string).pathname;
    for (const [name, bytes] of [
      ["one byte more", new Uint8Array([...text, 0x20])],
      ["one byte less", text.subarray(1)],
      ["the size but other bytes", new Uint8Array(text).fill(0x41)],
    ] as const) {
      const answer = await call("PUT", path, { body: bytes, client });
      expect(answer.status, name).toBe(400);
      expect(await answer.json(), name).toMatchObject({ code: "upload_mismatch" });
    }
    // Nothing was kept: the upload still waits for its bytes.
    expect((await call("POST", "/api/chunk", { ...jsonBody({ upload_id, tier: "free" }), client })).status).toBe(409);
    expect((await call("PUT", path, { body: text, client })).status).toBe(200);
    expect((await call("PUT", path, { body: text, client })).status).toBe(200);

    const binary = new Uint8Array(64).fill(0);
    const junk = await declare(client, { filename: "x.bin", content_type: "application/octet-stream", size: 64 });
    const junkPath = new URL(((await junk.json()) as Record<string, any>).target.url as string).pathname;
    const refused = await call("PUT", junkPath, { body: binary, client });
    expect(refused.status).toBe(415);
    expect(await refused.json()).toMatchObject({ code: "unsupported_type" });
  });

  it("exactly one of file/url and upload_id; a client starting too many uploads is told to wait", async () => {
    h.use({ UPLOADS_BURST: "2", UPLOADS_PER_MINUTE: "1" });
    const client = newClient();
    const uploadId = await uploaded(new TextEncoder().encode(`# Both\n\n${prose(1)}`), "both.md", client);
    const both = upload("# Inline\n\ntext", "inline.md", { upload_id: uploadId });
    const multipart = await call("POST", "/api/chunk/free", { body: both, client });
    expect(multipart.status).toBe(400);
    expect(await multipart.json()).toMatchObject({ code: "invalid_request" });
    const json = await call("POST", "/api/chunk", {
      ...jsonBody({ upload_id: uploadId, url: "https://example.com/a.pdf", tier: "free" }),
      client,
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ code: "invalid_request" });

    expect((await declare(client, { filename: "b.md", content_type: "text/markdown", size: 5 })).status).toBe(201);
    const third = await declare(client, { filename: "c.md", content_type: "text/markdown", size: 5 });
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({ code: "too_many_uploads" });
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another client is not held back by this one.
    expect((await declare(newClient(), { filename: "d.md", content_type: "text/markdown", size: 5 })).status).toBe(201);
  });
});

describe("the Vercel Blob path", () => {
  // The shape of a real read-write token (vercel_blob_rw_<store id>_<secret>); handleUpload signs with it locally.
  const BLOB_ENV = { BLOB_READ_WRITE_TOKEN: "vercel_blob_rw_teststore123_0123456789abcdefghijklmnop" };

  it("answers a Blob target, and the handshake gives upload() a token for the one pathname, type and size", async () => {
    h.use(BLOB_ENV);
    const client = newClient();
    const created = await declare(client, {
      filename: "big report.pdf",
      content_type: "application/pdf",
      size: bigPdf.length,
    });
    expect(created.status).toBe(201);
    const { upload_id, target } = (await created.json()) as Record<string, any>;
    expect(target).toMatchObject({ kind: "blob", access: "private", pathname: `uploads/${upload_id}/big_report.pdf` });
    expect(new URL(target.handle_upload_url as string).pathname).toBe("/api/uploads/blob");

    const handshake = (payload: Record<string, unknown>) =>
      call("POST", "/api/uploads/blob", {
        ...jsonBody({ type: "blob.generate-client-token", payload: { multipart: false, ...payload } }),
        client,
      });
    const before = Date.now();
    const granted = await handshake({ pathname: target.pathname, clientPayload: upload_id });
    expect(granted.status).toBe(200);
    const { type, clientToken } = (await granted.json()) as { type: string; clientToken: string };
    expect(type).toBe("blob.generate-client-token");
    expect(clientToken).toMatch(/^vercel_blob_client_teststore123_/);
    const decoded = getPayloadFromClientToken(clientToken);
    expect(decoded).toMatchObject({
      pathname: target.pathname,
      allowedContentTypes: ["application/pdf"],
      maximumSizeInBytes: bigPdf.length,
      addRandomSuffix: false,
      allowOverwrite: false,
      tokenPayload: upload_id,
    });
    expect(decoded.validUntil).toBeGreaterThan(before);
    expect(decoded.validUntil).toBeLessThanOrEqual(Date.now() + 10 * 60_000);

    // Another pathname, another or no upload id: no token.
    for (const payload of [
      { pathname: `uploads/${upload_id}/other.pdf`, clientPayload: upload_id },
      { pathname: target.pathname, clientPayload: "upl_00000000000000000000000000000000" },
      { pathname: target.pathname, clientPayload: null },
    ]) {
      const refused = await handshake(payload);
      expect(refused.status, JSON.stringify(payload)).toBe(404);
      expect(await refused.json()).toMatchObject({ code: "expired_or_unknown" });
    }
    // A Blob upload cannot be PUT to the service instead.
    const put = await call("PUT", `/api/uploads/${upload_id}`, { body: bigPdf as BlobPart as BodyInit, client });
    expect(put.status).toBe(404);
  });

  it("without Blob configured, the handshake route answers 404", async () => {
    h.use();
    const answer = await call("POST", "/api/uploads/blob", {
      ...jsonBody({
        type: "blob.generate-client-token",
        payload: { pathname: "x", clientPayload: null, multipart: false },
      }),
      client: newClient(),
    });
    expect(answer.status).toBe(404);
  });
});
