import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, startApp } from "./helpers/app";
import { newPage, openHome, problemAlert, setOptions, shownChunkCount, waitForChunks } from "./helpers/home";
import { launchChromium } from "../tests/helpers/chromium";
import { paddedPdf } from "../tests/helpers/large-pdf";

/**
 * Past a host's function body limit: the built server in the harness's test
 * mode (FUNCTION_BODY_LIMIT_BYTES at Vercel's 4.5 MB) refuses larger request
 * bodies with 413 before any handler reads them, as Vercel does; a 10 MB PDF
 * dropped on the page still gets its chunks, through the two-step upload.
 */

const VERCEL_BODY_LIMIT = 4.5 * 1024 * 1024;

let app: App;
let browser: Browser;
let bigPdf: Uint8Array;

beforeAll(async () => {
  bigPdf = await paddedPdf(10 * 1024 * 1024);
  [app, browser] = await Promise.all([
    startApp({ FUNCTION_BODY_LIMIT_BYTES: String(VERCEL_BODY_LIMIT) }),
    launchChromium(),
  ]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

function multipart(bytes: Uint8Array): FormData {
  const form = new FormData();
  form.set("file", new Blob([bytes as BlobPart], { type: "application/pdf" }), "big.pdf");
  return form;
}

describe("the function body limit (test mode)", () => {
  it("refuses a body over it with 413 body_too_large, by Content-Length and when streamed, and serves on", async () => {
    const declared = await fetch(`${app.base}/api/chunk/free`, { method: "POST", body: multipart(bigPdf) });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ success: false, code: "body_too_large" });

    // No Content-Length: the body is counted as it arrives and cut off past the limit.
    let sent = 0;
    const piece = new Uint8Array(256 * 1024).fill(0x61);
    const streamed = await fetch(`${app.base}/api/chunk`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 2 * VERCEL_BODY_LIMIT) return controller.close();
          sent += piece.length;
          controller.enqueue(piece);
        },
      }),
      duplex: "half",
    } as RequestInit).catch((error: unknown) => error as Error);
    // The answer is written before the socket closes; a client still sending may see the close first.
    if (streamed instanceof Response) {
      expect(streamed.status).toBe(413);
      expect(await streamed.json()).toMatchObject({ code: "body_too_large" });
    } else expect(String(streamed)).toMatch(/fetch failed|other side closed|socket/i);

    const small = await fetch(`${app.base}/api/chunk/free`, {
      method: "POST",
      body: (() => {
        const form = new FormData();
        form.set("file", new Blob(["# Small\n\nStill served after the refusals."]), "small.md");
        return form;
      })(),
    });
    expect(small.status).toBe(200);
  });

  it(
    "the two-step path takes the same 10 MB PDF: declared, PUT, chunked by upload_id",
    { timeout: 120_000 },
    async () => {
      const created = await fetch(`${app.base}/api/uploads`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ filename: "big.pdf", content_type: "application/pdf", size: bigPdf.length }),
      });
      expect(created.status).toBe(201);
      const { upload_id, target } = (await created.json()) as {
        upload_id: string;
        target: { kind: string; url: string };
      };
      expect(target.kind).toBe("put");
      const put = await fetch(target.url, { method: "PUT", body: bigPdf as BlobPart as BodyInit });
      expect(put.status).toBe(200);
      const chunked = await fetch(`${app.base}/api/chunk`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ upload_id, tier: "free", max_tokens: 64 }),
      });
      expect(chunked.status).toBe(200);
      const body = (await chunked.json()) as { chunks: unknown[]; metadata: { filename: string } };
      expect(body.metadata.filename).toBe("big.pdf");
      expect(body.chunks.length).toBeGreaterThan(1);
    },
  );
});

describe("the web page", () => {
  it("a dropped 10 MB PDF is uploaded in two steps and chunked", { timeout: 180_000 }, async () => {
    const page = await newPage(browser);
    const bodies: Array<{ method: string; path: string; bytes: number }> = [];
    page.on("request", (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith("/api/"))
        bodies.push({ method: request.method(), path, bytes: request.postDataBuffer()?.length ?? 0 });
    });
    await openHome(page, app.base);
    await page
      .getByLabel("Drop a document here, or choose a file")
      .setInputFiles({ name: "big.pdf", mimeType: "application/pdf", buffer: Buffer.from(bigPdf) });
    await setOptions(page, { maxTokens: 64, overlap: 8 });
    await page.getByRole("button", { name: "Chunk for free" }).click();
    await waitForChunks(page);
    expect(await shownChunkCount(page)).toBeGreaterThan(1);
    expect(await problemAlert(page).count()).toBe(0);

    const put = bodies.find((b) => b.method === "PUT" && b.path.startsWith("/api/uploads/upl_"));
    expect(put, JSON.stringify(bodies)).toBeDefined();
    const chunk = bodies.find((b) => b.method === "POST" && b.path.startsWith("/api/chunk/"));
    expect(chunk, JSON.stringify(bodies)).toBeDefined();
    // Only the upload carried the document; the chunking request named it.
    expect(chunk!.bytes).toBeLessThan(VERCEL_BODY_LIMIT);
    expect(bodies.filter((b) => b.method === "POST").every((b) => b.bytes < VERCEL_BODY_LIMIT)).toBe(true);
  });
});
